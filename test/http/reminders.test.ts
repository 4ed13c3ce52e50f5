import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { startBackgroundJobs } from '../../src/background.js';
import { createContext } from '../../src/context.js';
import { findReminderOutcomes } from '../../src/db/repositories/meeting-reminders.js';
import type { RenderedMessage } from '../../src/mail/render.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, runJobsCapturingMail, type TestApp } from '../helpers.js';
import { startFakeSmsapi, type FakeSmsapi } from '../fakes/smsapi.js';
import { startReceiver, type Receiver } from '../net/receivers.js';

const MINUTE = 60_000;
const sorted = <T>(rows: T[]) => [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
const NOW = '2027-10-25T06:00:00.000Z';
/**
 * Monday 1 November 2027, 09:00 in Warsaw (CET, UTC+1) is 08:00Z. Two days before it is
 * Saturday 30 October, still summer time: 08:00Z there is 10:00 CEST. The clocks go back
 * on Sunday 31 October, between the reminder and the meeting: a reminder computed in local
 * wall time ("09:00 two days before") would come an hour early, at 07:00Z.
 */
const MONDAY_9_WARSAW = '2027-11-01T08:00:00.000Z';
const TWO_DAYS_BEFORE = Date.parse('2027-10-30T08:00:00.000Z');

/** Reminders by e-mail and SMS: when they go out, once, and what moves, drops or skips them. */
for (const dialect of DIALECTS) {
  describe(`reminders [${dialect}]`, () => {
    let t: TestApp;
    let smsapi: FakeSmsapi;
    let receiver: Receiver;
    const mail: RenderedMessage[] = [];
    beforeAll(async () => {
      smsapi = await startFakeSmsapi();
      receiver = await startReceiver((_req, res) => res.writeHead(204).end());
      t = await createTestApp(dialect, createClock(NOW), { ...smsapi.env, ALLOW_PRIVATE_URLS: 'true' });
    });
    afterAll(async () => {
      await t?.close();
      await smsapi?.close();
      await receiver?.close();
    });

    let counter = 0;
    const setUp = async (reminders: unknown[]) => {
      t.clock.set(NOW);
      counter += 1;
      const acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['offline'] });
      const path = `/hook-${counter}`;
      expect((await call(t.app, acme.apiKey, 'POST', '/api/v1/webhooks', { url: `${receiver.url}${path}`, events: ['meeting.reminder_sent'] })).statusCode).toBe(201);
      const created = await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', {
        name: 'Konsultacja',
        durationMinutes: 30,
        places: ['offline'],
        placeDetails: { offline: 'ul. Prosta 1, Warszawa' },
        reminders,
      });
      expect(created.statusCode).toBe(201);
      const topic = created.json();
      const email = `participant${counter}@example.com`;
      const book = async (start: string, phone: string | undefined = '601 234 567') => {
        const response = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
          dates: [{ start, username: acme.owner.username }],
          email,
          lang: 'pl',
          name: 'Jan Kowalski',
          place: 'offline',
          meetingTopic: topic.uuid,
          timezone: 'Europe/Warsaw',
          ...(phone ? { phone } : {}),
        });
        expect(response.statusCode).toBe(201);
        return response.json().meetings[0] as { uuid: string; start: string };
      };
      const hooks = () =>
        receiver.requests.filter((request) => request.url === path).map((request) => JSON.parse(request.body) as { type: string; data: { uuid: string; reminder: unknown } });
      return { acme, topic, email, book, hooks };
    };
    const drain = async () => {
      mail.length = 0;
      await runJobsCapturingMail(t.ctx, mail);
      return mail.filter((message) => message.subject.startsWith('Przypomnienie') || message.subject.startsWith('Reminder'));
    };
    const smsTo = (number: string) => smsapi.sent.filter((sms) => sms.to === number);

    it('sends each reminder once, at start − minutesBefore to the millisecond across the change to winter time, in the participant’s language', async () => {
      const { acme, email, book, hooks } = await setUp([
        { minutesBefore: 2880, channel: 'email', to: 'participant' },
        { minutesBefore: 60, channel: 'sms', to: 'participant' },
        { minutesBefore: 60, channel: 'email', to: 'host' },
      ]);
      const phone = '601 234 567';
      const meeting = await book(MONDAY_9_WARSAW, phone);
      const confirmations = await drain().then(() => mail.slice());
      // The invitation's alarm is the reader's earliest reminder: two days for the participant, an hour for the host.
      const participantInvite = confirmations.find((message) => message.to.email === email)!;
      expect(participantInvite.ics.content).toMatch(/BEGIN:VALARM\r?\nACTION:DISPLAY\r?\nTRIGGER:-P2D/);
      expect(confirmations.find((message) => message.to.email === acme.owner.email)!.ics.content).toContain('TRIGGER:-PT1H');

      t.clock.set(TWO_DAYS_BEFORE - 1);
      expect(await drain()).toEqual([]);
      t.clock.set(TWO_DAYS_BEFORE);
      const [reminder, ...more] = await drain();
      expect(more).toEqual([]);
      expect(reminder!.to.email).toBe(email);
      expect(reminder!.subject).toMatch(/^Przypomnienie: Konsultacja/);
      // Monday 09:00 in Warsaw, the address, and the participant's manage link.
      expect(reminder!.text).toContain('9:00');
      expect(reminder!.text).toContain('ul. Prosta 1, Warszawa');
      expect(reminder!.text).toMatch(/Zmień termin lub odwołaj: http:\/\/\S+\/booking\/\S+/);
      // Once: later runs, and a later moment, send nothing more.
      t.clock.advance(MINUTE);
      expect(await drain()).toEqual([]);
      expect(smsTo('48601234567')).toEqual([]);

      t.clock.set(Date.parse(MONDAY_9_WARSAW) - 60 * MINUTE);
      const hostReminders = await drain();
      expect(hostReminders.map((message) => message.to.email)).toEqual([acme.owner.email]);
      expect(hostReminders[0]!.subject).toMatch(/^Reminder: Konsultacja/);
      // The SMS: the number in E.164 without its plus, as SMSAPI takes it, the registered sender, a Polish text with the time and the link.
      const sms = smsTo('48601234567');
      expect(sms).toHaveLength(1);
      expect(sms[0]!.from).toBe('Termin');
      expect(sms[0]!.message).toMatch(/^Przypomnienie: Konsultacja, Olga Owner, .*9:00.*ul\. Prosta 1, Warszawa Zmień termin lub odwołaj: http:\/\/\S+\/booking\/\S+$/);
      expect(smsapi.requests.at(-1)!.authorization).toBe(`Bearer ${smsapi.token}`);
      await drain();
      expect(smsTo('48601234567')).toHaveLength(1);

      const outcomes = await findReminderOutcomes(t.ctx.db, meeting.uuid);
      expect(sorted(outcomes.map((outcome) => [outcome.channel, outcome.recipient, outcome.minutesBefore, outcome.status]))).toEqual(
        sorted([
          ['email', 'participant', 2880, 'sent'],
          ['sms', 'participant', 60, 'sent'],
          ['email', 'host', 60, 'sent'],
        ]),
      );
      // One webhook per reminder sent, with which reminder it was.
      expect(sorted(hooks().map((hook) => [hook.type, hook.data.uuid, hook.data.reminder]))).toEqual(
        sorted([
          ['meeting.reminder_sent', meeting.uuid, { minutesBefore: 2880, channel: 'email', to: 'participant' }],
          ['meeting.reminder_sent', meeting.uuid, { minutesBefore: 60, channel: 'sms', to: 'participant' }],
          ['meeting.reminder_sent', meeting.uuid, { minutesBefore: 60, channel: 'email', to: 'host' }],
        ]),
      );
    });
  });
}
