import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackgroundJobs, type BackgroundJobs } from '../../src/background.js';
import { createApiKeyForUser } from '../../src/scheduling/account/api-keys.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, type TestApp } from '../helpers.js';

/** Cancellation as participants and hosts see it: one message per change, never a CANCEL for what was never sent. */
for (const dialect of DIALECTS) {
  describe(`cancelling meetings [${dialect}]`, () => {
    let t: TestApp;
    let jobs: BackgroundJobs;
    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'));
      jobs = startBackgroundJobs(t.ctx, { jobIntervalMs: 3_600_000, wakeOnBooking: false });
    });
    afterAll(async () => {
      await jobs.stop();
      await t.close();
    });

    let participantCounter = 0;
    const setUp = async (fields: Record<string, unknown> = {}) => {
      const acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['zoom'] });
      await call(t.app, acme.apiKey, 'PATCH', '/api/v1/account', { gateways: { p24: { merchantId: 1, posId: 1, apiKey: 'k', crc: 'c' } } });
      const topic = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Call', durationMinutes: 30, places: ['zoom'], ...fields })).json();
      participantCounter += 1;
      const email = `participant${participantCounter}@example.com`;
      const book = async (start: string, key = acme.apiKey, extra: Record<string, unknown> = {}) => {
        const response = await call(t.app, key, 'POST', '/api/v1/schedule', {
          dates: [{ start, username: acme.owner.username }],
          email,
          lang: 'en',
          name: 'Jan Kowalski',
          place: 'zoom',
          meetingTopic: topic.uuid,
          timezone: 'Europe/Warsaw',
          ...extra,
        });
        expect(response.statusCode).toBe(201);
        return response.json();
      };
      return { acme, topic, email, book };
    };
    /** The messages written for one recipient so far (no SMTP in tests: one .eml file each). */
    const messagesTo = (email: string) => {
      const dir = t.ctx.config.mail.outboxDir;
      if (!fs.existsSync(dir)) return [];
      return fs
        .readdirSync(dir)
        .map((file) => fs.readFileSync(path.join(dir, file), 'utf8'))
        .filter((text) => new RegExp(`^To: .*<${email.replaceAll('.', '\\.')}>`, 'm').test(text));
    };
    const cancelEvents = async (meetingUuid: string) =>
      (await t.ctx.db.selectFrom('events').select('id').where('subject_id', '=', meetingUuid).where('type', '=', 'meeting.cancelled').execute()).length;

    it('six concurrent cancels of one meeting: one cancellation, one CANCEL to each side, SEQUENCE 1', async () => {
      const { acme, email, book } = await setUp();
      const meeting = (await book('2027-01-05T08:00:00.000Z')).meetings[0];
      await jobs.runOnce();
      expect(messagesTo(email).filter((text) => text.includes('METHOD:REQUEST'))).toHaveLength(1);

      const responses = await Promise.all(Array.from({ length: 6 }, () => call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${meeting.uuid}/cancel`, { reason: 'Ill' })));
      expect(responses.map((response) => response.statusCode)).toEqual(Array(6).fill(200));
      expect(responses.map((response) => response.json().status)).toEqual(Array(6).fill('cancelled'));
      expect(await cancelEvents(meeting.uuid)).toBe(1);
      const stored = await t.ctx.db.selectFrom('meetings').select(['sequence', 'status']).where('id', '=', meeting.uuid).executeTakeFirstOrThrow();
      expect(stored).toEqual({ sequence: 1, status: 'cancelled' });

      await jobs.runOnce();
      const cancels = messagesTo(email).filter((text) => text.includes('METHOD:CANCEL'));
      expect(cancels).toHaveLength(1);
      expect(cancels[0]).toContain('SEQUENCE:1');
      const hostCancels = messagesTo(acme.owner.email).filter((text) => text.includes('METHOD:CANCEL') && text.includes(meeting.uuid));
      expect(hostCancels).toHaveLength(1);
    });

    it('cancelling a meeting pending payment sends no CANCEL: no invitation was ever sent', async () => {
      const { acme, email, book } = await setUp({ price: { amount: 5_000, currency: 'PLN' } });
      const booked = await book('2027-01-05T09:00:00.000Z', acme.apiKey, { gateway: 'p24' });
      expect(booked.meetings[0].status).toBe('pending_payment');
      const cancelled = await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${booked.meetings[0].uuid}/cancel`);
      expect(cancelled.json().status).toBe('cancelled');
      await jobs.runOnce();
      expect(messagesTo(email).filter((text) => /METHOD:(CANCEL|REQUEST)/.test(text))).toEqual([]);
    });

    it('cancelling a meeting whose payment hold lapsed changes nothing: it stays expired', async () => {
      const { acme, book } = await setUp({ price: { amount: 5_000, currency: 'PLN' } });
      const booked = await book('2027-01-05T10:00:00.000Z', acme.apiKey, { gateway: 'p24' });
      const meetingUuid = booked.meetings[0].uuid;
      t.clock.set(Date.parse(booked.payment.expiresAt) + 1_000);
      try {
        const response = await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${meetingUuid}/cancel`, { reason: 'late' });
        expect(response.statusCode).toBe(200);
        expect(response.json()).toMatchObject({ status: 'expired', cancelReason: null, cancelledAt: null });
        expect(await cancelEvents(meetingUuid)).toBe(0);
        expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${meetingUuid}`)).json().status).toBe('expired');
      } finally {
        t.clock.set('2027-01-04T06:00:00.000Z');
      }
    });

    it('only the host, a team admin of the host or the key that booked it may cancel', async () => {
      const { acme, book } = await setUp();
      // A plain member of a second team, with a key of her own.
      const team = (await call(t.app, acme.apiKey, 'POST', '/api/v1/teams', { name: 'Support' })).json();
      const member = (await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${team.uuid}/users`, { firstName: 'Mia', lastName: 'Member', email: 'mia@example.com' })).json();
      const memberKey = (await createApiKeyForUser(t.ctx, member.uuid)).apiKey;
      const byOwner = (await book('2027-01-05T11:00:00.000Z')).meetings[0];
      expectProblem(await call(t.app, memberKey, 'POST', `/api/v1/meetings/${byOwner.uuid}/cancel`), 403, 'FORBIDDEN');
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${byOwner.uuid}`)).json().status).toBe('confirmed');
      // A meeting the member's key booked, she may cancel.
      const byMember = (await book('2027-01-05T12:00:00.000Z', memberKey)).meetings[0];
      const cancelled = await call(t.app, memberKey, 'POST', `/api/v1/meetings/${byMember.uuid}/cancel`);
      expect(cancelled.statusCode).toBe(200);
      expect(cancelled.json().status).toBe('cancelled');
      // The host (the owner) cancels her own.
      expect((await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${byOwner.uuid}/cancel`)).json().status).toBe('cancelled');
    });
  });
}
