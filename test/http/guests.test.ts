import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RenderedMessage } from '../../src/mail/message.js';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, runJobsCapturingMail, type TestApp } from '../helpers.js';

/**
 * Guests (issue 41 item 2): a participant brings up to 10 people by e-mail. Each is an
 * ATTENDEE of the invitation and gets its confirmation, updates and cancellation, never the
 * manage link; the host's e-mail lists them. Monday 2027-01-04; Warsaw hours 08:00–16:00 UTC.
 */
for (const dialect of DIALECTS) {
  describe(`guests [${dialect}]`, () => {
    let t: TestApp;
    let acme: CreatedAccount;
    let open: { uuid: string; allowGuests: boolean };
    let closed: { uuid: string; allowGuests: boolean };
    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'));
      acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['offline'] });
      const create = async (fields: Record<string, unknown>) =>
        (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Tour', durationMinutes: 60, places: ['offline'], ...fields })).json();
      open = await create({ allowGuests: true });
      closed = await create({});
    });
    afterAll(async () => t.close());

    const book = (topicUuid: string, start: string, guests: unknown) =>
      call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
        dates: [{ start, username: acme.owner.username }],
        email: 'jan@example.com',
        lang: 'pl',
        name: 'Jan Kowalski',
        place: 'offline',
        meetingTopic: topicUuid,
        timezone: 'Europe/Warsaw',
        guests,
      });
    const pathsOf = async (topicUuid: string, guests: unknown) =>
      (expectProblem(await book(topicUuid, '2027-01-05T08:00:00.000Z', guests), 400, 'VALIDATION_FAILED').errors ?? []).map((error) => error.path);

    it('a topic takes guests only when it allows them: at most 10 distinct addresses, none the participant’s', async () => {
      expect([open.allowGuests, closed.allowGuests]).toEqual([true, false]);
      expect(await pathsOf(closed.uuid, ['ola@example.com'])).toEqual(['/guests']);
      expect(
        await pathsOf(
          open.uuid,
          Array.from({ length: 11 }, (_, i) => `g${i}@example.com`),
        ),
      ).toEqual(['/guests']);
      expect(await pathsOf(open.uuid, ['ola@example.com', 'OLA@example.com'])).toEqual(['/guests/1']);
      expect(await pathsOf(open.uuid, ['Jan@Example.com'])).toEqual(['/guests/0']);
      expect(await pathsOf(open.uuid, ['not an address'])).toEqual(['/guests/0']);
      expect((await book(closed.uuid, '2027-01-05T08:00:00.000Z', [])).statusCode).toBe(201);
    });

    it('guests are attendees of the invitation and get the confirmation, the move and the cancellation, without the manage link', async () => {
      const sent: RenderedMessage[] = [];
      const booked = await book(open.uuid, '2027-01-06T08:00:00.000Z', ['ola@example.com', 'piotr@example.com']);
      expect(booked.statusCode).toBe(201);
      const meeting = booked.json().meetings[0];
      expect(meeting.guests).toEqual(['ola@example.com', 'piotr@example.com']);
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${meeting.uuid}`)).json().guests).toEqual(['ola@example.com', 'piotr@example.com']);

      await runJobsCapturingMail(t.ctx, sent);
      const about = (email: string) => sent.filter((message) => message.to.email === email && message.ics.content.includes(meeting.uuid));
      const [ola] = about('ola@example.com');
      expect(about('ola@example.com')).toHaveLength(1);
      expect(about('piotr@example.com')).toHaveLength(1);
      // In the participant's language, naming who invited them, with both guests and the participant as attendees.
      expect(ola!.subject).toContain('Potwierdzenie');
      expect(ola!.text).toContain('Zaprasza: Jan Kowalski');
      const attendees = (ics: string) =>
        ics
          .replace(/\r\n /g, '')
          .match(/^ATTENDEE.*$/gm)!
          .map((line) => line.replace(/^.*mailto:/i, ''));
      expect(attendees(ola!.ics.content)).toEqual(['jan@example.com', 'ola@example.com', 'piotr@example.com']);
      // The manage link is the participant's alone.
      expect(ola!.text).not.toContain('/booking/');
      expect(about('jan@example.com')[0]!.text).toContain('/booking/');
      expect(attendees(about('jan@example.com')[0]!.ics.content)).toEqual(['jan@example.com', 'ola@example.com', 'piotr@example.com']);
      // The host reads who comes.
      const host = about(acme.owner.email)[0]!;
      expect(host.text).toContain('Guests: ola@example.com, piotr@example.com');
      expect(attendees(host.ics.content)).toEqual(['jan@example.com', 'ola@example.com', 'piotr@example.com']);

      sent.length = 0;
      expect((await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${meeting.uuid}/reschedule`, { start: '2027-01-07T08:00:00.000Z' })).statusCode).toBe(200);
      await runJobsCapturingMail(t.ctx, sent);
      expect(about('ola@example.com').map((message) => message.ics.method)).toEqual(['REQUEST']);
      expect(about('ola@example.com')[0]!.ics.content).toContain('SEQUENCE:1');

      sent.length = 0;
      expect((await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${meeting.uuid}/cancel`, {})).statusCode).toBe(200);
      await runJobsCapturingMail(t.ctx, sent);
      expect(about('piotr@example.com').map((message) => message.ics.method)).toEqual(['CANCEL']);
    });
  });
}
