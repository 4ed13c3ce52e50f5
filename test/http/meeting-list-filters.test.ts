import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, type TestApp } from '../helpers.js';
import { currentDocument } from '../client/generate.js';
import { bookingBody, firstFreeSlots } from '../webhooks/helpers.js';

// Integrators' tools send a multi-value filter either repeated or comma-separated; both
// select the same meetings, and the document says how.

for (const dialect of DIALECTS) {
  describe(`GET /meetings status filter (${dialect})`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T08:00:00.000Z'));
    });
    afterAll(async () => t.close());

    it('takes status=a,b like status=a&status=b', async () => {
      const acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['zoom'] });
      const topic = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Intro', durationMinutes: 30, places: ['zoom'] })).json();
      const slots = await firstFreeSlots(t.app, acme.owner.username, topic.uuid, 3);
      const uuids: string[] = [];
      for (const [i, slot] of slots.entries()) {
        const booked = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', bookingBody(topic.uuid, slot, i));
        expect(booked.statusCode).toBe(201);
        uuids.push(booked.json().meetings[0].uuid);
      }
      expect((await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${uuids[1]}/cancel`, {})).statusCode).toBe(200);
      const listed = async (query: string) => {
        const response = await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings?${query}`);
        expect(response.statusCode, response.body).toBe(200);
        return (response.json().meetings as { uuid: string }[]).map((m) => m.uuid);
      };

      expect(await listed('status=cancelled')).toEqual([uuids[1]]);
      expect(await listed('status=confirmed')).toEqual([uuids[0], uuids[2]]);
      expect(await listed('status=confirmed,cancelled')).toEqual(uuids);
      expect(await listed('status=confirmed&status=cancelled')).toEqual(uuids);
      expect(await listed('status=expired,cancelled&status=declined')).toEqual([uuids[1]]);
      const bad = expectProblem(await call(t.app, acme.apiKey, 'GET', '/api/v1/meetings?status=confirmed,booked'), 400, 'VALIDATION_FAILED');
      expect(bad.errors?.[0]?.path).toBe('/query/status/1');
    });
  });
}

describe('the document', () => {
  it('declares the status filter as a repeated form parameter and says commas work too', async () => {
    const doc = (await currentDocument()) as { paths: Record<string, { get: { parameters: { name: string; style?: string; explode?: boolean; description?: string }[] } }> };
    const status = doc.paths['/api/v1/meetings']!.get.parameters.find((p) => p.name === 'status')!;
    expect(status).toMatchObject({ style: 'form', explode: true });
    expect(status.description).toContain('status=confirmed,pending_payment');
  });
});
