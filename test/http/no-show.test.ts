import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RenderedMessage } from '../../src/mail/message.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, runJobsCapturingMail, type TestApp } from '../helpers.js';
import { startReceiver, type Receiver } from '../net/receivers.js';

const START = '2027-01-04T06:00:00.000Z';

/** No-shows as a host records them: only once the meeting started, filterable, and told to webhooks. */
for (const dialect of DIALECTS) {
  describe(`no-shows [${dialect}]`, () => {
    let t: TestApp;
    let receiver: Receiver;
    beforeAll(async () => {
      t = await createTestApp(dialect, createClock(START), { ALLOW_PRIVATE_URLS: 'true' });
      receiver = await startReceiver((_req, res) => res.writeHead(204).end());
    });
    afterAll(async () => {
      await receiver.close();
      await t.close();
    });

    const setUp = async () => {
      t.clock.set(START);
      const acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['offline'] });
      const topic = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Visit', durationMinutes: 30, places: ['offline'] })).json();
      const book = async (start: string, email: string) => {
        const response = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
          dates: [{ start, username: acme.owner.username }],
          email,
          lang: 'en',
          name: 'Jan Kowalski',
          place: 'offline',
          meetingTopic: topic.uuid,
          timezone: 'Europe/Warsaw',
        });
        expect(response.statusCode).toBe(201);
        return response.json().meetings[0] as { uuid: string; start: string; noShow: string | null };
      };
      return { acme, book };
    };

    it('marks after the start only, replaces and clears the mark, filters by it, and sends meeting.no_show per change', async () => {
      const { acme, book } = await setUp();
      const hook = await call(t.app, acme.apiKey, 'POST', '/api/v1/webhooks', { url: `${receiver.url}/no-show`, events: ['meeting.no_show'] });
      expect(hook.statusCode).toBe(201);
      const first = await book('2027-01-05T08:00:00.000Z', 'first@example.com');
      const second = await book('2027-01-05T09:00:00.000Z', 'second@example.com');
      expect(first.noShow).toBeNull();

      // Before the start nobody can know yet.
      t.clock.set('2027-01-05T07:59:59.999Z');
      expectProblem(await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${first.uuid}/no-show`, { who: 'participant' }), 409, 'MEETING_STATE_CONFLICT');
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${first.uuid}`)).json().noShow).toBeNull();

      t.clock.set('2027-01-05T09:10:00.000Z');
      const marked = await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${first.uuid}/no-show`, { who: 'participant' });
      expect(marked.statusCode).toBe(200);
      expect(marked.json().noShow).toBe('participant');
      // The same mark again changes nothing.
      expect((await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${first.uuid}/no-show`, { who: 'participant' })).json().noShow).toBe('participant');
      expect((await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${second.uuid}/no-show`, { who: 'participant' })).statusCode).toBe(200);
      // The other party replaces it.
      expect((await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${second.uuid}/no-show`, { who: 'host' })).json().noShow).toBe('host');

      const listed = async (query: string) =>
        ((await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings?${query}`)).json().meetings as { uuid: string; noShow: string | null }[]).map((m) => [m.uuid, m.noShow]);
      expect(await listed('noShow=participant')).toEqual([[first.uuid, 'participant']]);
      expect(await listed('noShow=host')).toEqual([[second.uuid, 'host']]);
      expectProblem(await call(t.app, acme.apiKey, 'GET', '/api/v1/meetings?noShow=nobody'), 400, 'VALIDATION_FAILED');

      const cleared = await call(t.app, acme.apiKey, 'DELETE', `/api/v1/meetings/${first.uuid}/no-show`);
      expect(cleared.statusCode).toBe(200);
      expect(cleared.json().noShow).toBeNull();
      expect((await call(t.app, acme.apiKey, 'DELETE', `/api/v1/meetings/${first.uuid}/no-show`)).json().noShow).toBeNull();
      expect(await listed('noShow=participant')).toEqual([]);

      const mail: RenderedMessage[] = [];
      await runJobsCapturingMail(t.ctx, mail);
      const bodies = receiver.requests
        .filter((request) => request.url === '/no-show')
        .map((request) => JSON.parse(request.body) as { type: string; data: { uuid: string; noShow: string | null } })
        .map((body) => [body.type, body.data.uuid, body.data.noShow]);
      expect(bodies.sort()).toEqual(
        [
          ['meeting.no_show', first.uuid, 'participant'],
          ['meeting.no_show', second.uuid, 'participant'],
          ['meeting.no_show', second.uuid, 'host'],
          ['meeting.no_show', first.uuid, null],
        ].sort(),
      );
      // A no-show is a record, not news for the participant.
      expect(mail.filter((message) => message.to.email === 'first@example.com')).toHaveLength(1);
    });

    it('refuses a no-show on a cancelled meeting, and the body names only participant or host', async () => {
      const { acme, book } = await setUp();
      const meeting = await book('2027-01-05T10:00:00.000Z', 'third@example.com');
      expectProblem(await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${meeting.uuid}/no-show`, { who: 'nobody' }), 400, 'VALIDATION_FAILED');
      expect((await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${meeting.uuid}/cancel`, {})).statusCode).toBe(200);
      t.clock.set('2027-01-05T11:00:00.000Z');
      expectProblem(await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${meeting.uuid}/no-show`, { who: 'participant' }), 409, 'MEETING_STATE_CONFLICT');
      const other = await createTestAccount(t.ctx, { places: ['offline'] });
      expectProblem(await call(t.app, other.apiKey, 'POST', `/api/v1/meetings/${meeting.uuid}/no-show`, { who: 'participant' }), 404, 'NOT_FOUND');
    });
  });
}
