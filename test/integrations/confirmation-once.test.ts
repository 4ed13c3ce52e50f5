import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RenderedMessage } from '../../src/mail/message.js';
import { createConferenceRoomHandler } from '../../src/scheduling/integrations/rooms.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, runJobsCapturingMail, type TestApp } from '../helpers.js';

/**
 * A meeting at a place with rooms whose host has no connection is confirmed by two paths: the
 * e-mail reaction to `meeting.scheduled`/`meeting.confirmed`, and the room job, which finds no
 * connection and sends the confirmations saying the link follows. Outbox jobs run in any
 * order and several at once, so the room job may come first; the participant must still get
 * one confirmation, and webhook subscribers no `meeting.located` (no room, no link: nothing
 * changed for them). (Seen as flaky PayU and webhook-document tests on PostgreSQL.)
 */
for (const dialect of DIALECTS) {
  describe(`one confirmation when the room job runs before the booking's own event [${dialect}]`, () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'), { PUBLIC_URL: 'http://termin.test', ALLOW_PRIVATE_URLS: 'true' });
    });
    afterAll(async () => {
      await t?.close();
    });

    it.each([
      ['an account without a Zoom app', false],
      ['an account with a Zoom app and an unconnected host', true],
    ])('%s', async (_, withApp) => {
      const account = await createTestAccount(t.ctx, { timezone: 'UTC', places: ['zoom'] });
      if (withApp) {
        const configured = await call(t.app, account.apiKey, 'PATCH', '/api/v1/account', { integrations: { zoom: { clientId: 'app', clientSecret: 'secret' } } });
        expect(configured.statusCode, configured.body).toBe(200);
      }
      // A subscriber to every meeting event: `meeting.located` promises a room's link, so it must not hear one here.
      const hook = await call(t.app, account.apiKey, 'POST', '/api/v1/webhooks', { url: 'http://127.0.0.1:9/hooks', events: ['meeting.scheduled', 'meeting.located'] });
      expect(hook.statusCode, hook.body).toBe(201);
      const topic = (await call(t.app, account.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Intro', durationMinutes: 30, places: ['zoom'] })).json() as { uuid: string };
      const schedule = (
        await call(t.app, null, 'POST', '/api/v1/calculate-schedule', { username: account.owner.username, meetingTopic: topic.uuid, timezone: 'UTC', offset: 0 })
      ).json() as { days: { slots: { start: string; username: string }[] }[] };
      const email = `once-${withApp ? 'app' : 'label'}@example.com`;
      const booked = await call(t.app, account.apiKey, 'POST', '/api/v1/schedule', {
        dates: [schedule.days.flatMap((day) => day.slots)[0]],
        email,
        lang: 'en',
        name: 'Una Once',
        place: 'zoom',
        meetingTopic: topic.uuid,
        timezone: 'UTC',
      });
      expect(booked.statusCode, booked.body).toBe(201);
      const meetingUuid = (booked.json() as { meetings: { uuid: string }[] }).meetings[0]!.uuid;

      // The room job (as a later event of the meeting would queue it) wins the race against the event job of the booking.
      await createConferenceRoomHandler(t.ctx).handle({ uuid: 'room-first', payload: { meetingUuid, accountUuid: account.account.uuid }, attempts: 0, claim: 'c' });
      const sent: RenderedMessage[] = [];
      await runJobsCapturingMail(t.ctx, sent);

      const confirmations = sent.filter((message) => message.to.email === email && message.subject.startsWith('Confirmed'));
      expect(confirmations).toHaveLength(1);
      const deliveries = (await call(t.app, account.apiKey, 'GET', `/api/v1/webhooks/${hook.json().uuid}/deliveries`)).json() as { deliveries: { event: string }[] };
      expect(deliveries.deliveries.map((delivery) => delivery.event)).toEqual(['meeting.scheduled']);
    });
  });
}
