import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { startBackgroundJobs } from '../../src/background.js';
import { createContext } from '../../src/context.js';
import { claimReminder, findReminderOutcomes } from '../../src/db/repositories/meeting-reminders.js';
import { reminderKey } from '../../src/domain/reminders.js';
import type { RenderedMessage } from '../../src/mail/message.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, runJobsCapturingMail, type TestApp } from '../helpers.js';
import { startFakeSmsapi, type FakeSmsapi } from '../fakes/smsapi.js';
import { startFakeTwilio, type FakeTwilio } from '../fakes/twilio.js';
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
    let readers: string[] = [];
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
      // Each test reads only its own account's reminders: the file may run shuffled.
      readers = [email, acme.owner.email];
      const book = async (start: string, phone: string | null = '601 234 567') => {
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
      return mail.filter((message) => readers.includes(message.to.email) && (message.subject.startsWith('Przypomnienie') || message.subject.startsWith('Reminder')));
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
      // The text itself names the topic, not only the subject line.
      expect(reminder!.text).toContain('Przypominamy o spotkaniu „Konsultacja” (Olga Owner).');
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
      expect(sms[0]!.message).toMatch(/^Przypomnienie: Konsultacja, Olga Owner, .*9:00.*ul\. Prosta 1, Warszawa\. Zmień termin lub odwołaj: http:\/\/\S+\/booking\/\S+$/);
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

    const HOUR_BEFORE = Date.parse(MONDAY_9_WARSAW) - 60 * MINUTE;
    const emailHourBefore = [{ minutesBefore: 60, channel: 'email', to: 'participant' }];

    it('a reschedule moves the reminder to the new start; a cancel drops it', async () => {
      const { acme, book } = await setUp(emailHourBefore);
      const moved = await book(MONDAY_9_WARSAW);
      const cancelled = await book('2027-11-01T10:00:00.000Z');
      await drain();
      const tuesday = '2027-11-02T08:00:00.000Z';
      expect((await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${moved.uuid}/reschedule`, { start: tuesday })).statusCode).toBe(200);
      expect((await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${cancelled.uuid}/cancel`, { reason: 'Ill' })).statusCode).toBe(200);
      await drain();
      // Nothing at the old time, nor at the cancelled meeting's.
      t.clock.set(HOUR_BEFORE);
      expect(await drain()).toEqual([]);
      t.clock.set(Date.parse('2027-11-01T09:00:00.000Z'));
      expect(await drain()).toEqual([]);
      t.clock.set(Date.parse(tuesday) - 60 * MINUTE - 1);
      expect(await drain()).toEqual([]);
      t.clock.set(Date.parse(tuesday) - 60 * MINUTE);
      const sent = await drain();
      expect(sent).toHaveLength(1);
      expect(sent[0]!.text).toContain('2 listopada 2027');
      expect(await findReminderOutcomes(t.ctx.db, cancelled.uuid)).toEqual([]);
      expect((await findReminderOutcomes(t.ctx.db, moved.uuid)).map((outcome) => [outcome.dueAt, outcome.status])).toEqual([[Date.parse(tuesday) - 60 * MINUTE, 'sent']]);
    });

    it('a meeting moved away and back is reminded once at its start', async () => {
      const { acme, book } = await setUp(emailHourBefore);
      const meeting = await book(MONDAY_9_WARSAW);
      const move = (start: string) => call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${meeting.uuid}/reschedule`, { start });
      await drain();
      expect((await move('2027-11-02T08:00:00.000Z')).statusCode).toBe(200);
      await drain();
      expect((await move(MONDAY_9_WARSAW)).statusCode).toBe(200);
      await drain();
      // Two jobs are due now for the same start (the first booking's, the move back's): one reminder.
      t.clock.set(HOUR_BEFORE);
      expect(await drain()).toHaveLength(1);
      t.clock.set(Date.parse('2027-11-02T07:00:00.000Z'));
      expect(await drain()).toEqual([]);
    });

    it('a meeting moved away and back gets one SMS at its start, though both jobs for that start run at once', async () => {
      // An SMS leaves before its outcome is recorded, so the record alone cannot stop the second job: the send itself is claimed.
      const { acme, book } = await setUp([{ minutesBefore: 60, channel: 'sms', to: 'participant' }]);
      const meeting = await book(MONDAY_9_WARSAW, '605 000 444');
      const move = (start: string) => call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${meeting.uuid}/reschedule`, { start });
      await drain();
      expect((await move('2027-11-02T08:00:00.000Z')).statusCode).toBe(200);
      await drain();
      expect((await move(MONDAY_9_WARSAW)).statusCode).toBe(200);
      await drain();
      t.clock.set(HOUR_BEFORE);
      await drain();
      await drain();
      expect(smsTo('48605000444')).toHaveLength(1);
      expect((await findReminderOutcomes(t.ctx.db, meeting.uuid)).map((outcome) => [outcome.channel, outcome.dueAt, outcome.status])).toEqual([['sms', HOUR_BEFORE, 'sent']]);
    });

    it('a job that claimed the SMS and died before sending it sends it on its retry; the other job for that start does not', async () => {
      const { acme, book } = await setUp([{ minutesBefore: 60, channel: 'sms', to: 'participant' }]);
      const meeting = await book(MONDAY_9_WARSAW, '606 000 555');
      const move = (start: string) => call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${meeting.uuid}/reschedule`, { start });
      await drain();
      expect((await move('2027-11-02T08:00:00.000Z')).statusCode).toBe(200);
      await drain();
      expect((await move(MONDAY_9_WARSAW)).statusCode).toBe(200);
      await drain();
      const jobs = await t.ctx.db.selectFrom('outbox').select(['id', 'payload']).where('kind', '=', 'reminder').where('status', '=', 'pending').execute();
      const due = jobs.filter((job) => {
        const payload = JSON.parse(job.payload) as { meetingUuid: string; start: number };
        return payload.meetingUuid === meeting.uuid && payload.start === Date.parse(MONDAY_9_WARSAW);
      });
      expect(due).toHaveLength(2);
      // The later job's first attempt claimed the send, then its process died: its lease has run out and the job is due again.
      t.clock.set(HOUR_BEFORE);
      const crashed = due.map((job) => job.id).sort()[1]!;
      const claimed = await claimReminder(t.ctx.db, {
        uuid: crypto.randomUUID(),
        meetingUuid: meeting.uuid,
        key: reminderKey(Date.parse(MONDAY_9_WARSAW), { minutesBefore: 60, channel: 'sms', to: 'participant' }),
        channel: 'sms',
        recipient: 'participant',
        minutesBefore: 60,
        dueAt: HOUR_BEFORE,
        jobUuid: crashed,
        claimedAt: HOUR_BEFORE,
      });
      expect(claimed).toBe(true);
      // Not yet an outcome: the listing shows none while the send is under way.
      expect(await findReminderOutcomes(t.ctx.db, meeting.uuid)).toEqual([]);
      await drain();
      await drain();
      expect(smsTo('48606000555')).toHaveLength(1);
      const rows = await t.ctx.db.selectFrom('meeting_reminders').select(['status', 'claimed_by']).where('meeting_id', '=', meeting.uuid).execute();
      expect(rows).toEqual([{ status: 'sent', claimed_by: crashed }]);
    });

    it('no reminder for a meeting confirmed after its moment', async () => {
      const { book } = await setUp(emailHourBefore);
      t.clock.set(Date.parse(MONDAY_9_WARSAW) - 30 * MINUTE);
      const meeting = await book(MONDAY_9_WARSAW);
      expect(await drain()).toEqual([]);
      t.clock.set(Date.parse(MONDAY_9_WARSAW) - MINUTE);
      expect(await drain()).toEqual([]);
      expect(await findReminderOutcomes(t.ctx.db, meeting.uuid)).toEqual([]);
      const jobs = await t.ctx.db.selectFrom('outbox').select('id').where('kind', '=', 'reminder').where('payload', 'like', `%${meeting.uuid}%`).execute();
      expect(jobs).toEqual([]);
    });

    it('after an outage past the start a reminder is not sent late but recorded as skipped', async () => {
      const { acme, book } = await setUp([...emailHourBefore, { minutesBefore: 30, channel: 'sms', to: 'participant' }]);
      const meeting = await book(MONDAY_9_WARSAW, '+48 602 000 111');
      await drain();
      // The service was down from before the reminders until the meeting had begun.
      t.clock.set(Date.parse(MONDAY_9_WARSAW) + 5 * MINUTE);
      expect(await drain()).toEqual([]);
      expect(smsTo('48602000111')).toEqual([]);
      const outcomes = await findReminderOutcomes(t.ctx.db, meeting.uuid);
      expect(sorted(outcomes.map((outcome) => [outcome.channel, outcome.status]))).toEqual([
        ['email', 'skipped'],
        ['sms', 'skipped'],
      ]);
      expect(outcomes[0]!.detail).toMatch(/^picked up at 2027-11-01T08:05:00.000Z, not before the meeting's start: not sent late$/);
      const events = await t.ctx.db.selectFrom('events').select('type').where('subject_id', '=', meeting.uuid).where('type', 'like', 'meeting.reminder%').execute();
      expect(events.map((event) => event.type)).toEqual(['meeting.reminder_skipped', 'meeting.reminder_skipped']);
      // The host sees it on the meeting; another account does not.
      const listed = await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${meeting.uuid}/reminders`);
      expect(listed.statusCode).toBe(200);
      expect(sorted(listed.json().reminders as { channel: string }[])).toEqual(
        sorted([
          {
            minutesBefore: 60,
            channel: 'email',
            to: 'participant',
            dueAt: '2027-11-01T07:00:00.000Z',
            status: 'skipped',
            detail: "picked up at 2027-11-01T08:05:00.000Z, not before the meeting's start: not sent late",
            recordedAt: '2027-11-01T08:05:00.000Z',
          },
          {
            minutesBefore: 30,
            channel: 'sms',
            to: 'participant',
            dueAt: '2027-11-01T07:30:00.000Z',
            status: 'skipped',
            detail: "picked up at 2027-11-01T08:05:00.000Z, not before the meeting's start: not sent late",
            recordedAt: '2027-11-01T08:05:00.000Z',
          },
        ]),
      );
      const stranger = await createTestAccount(t.ctx);
      expectProblem(await call(t.app, stranger.apiKey, 'GET', `/api/v1/meetings/${meeting.uuid}/reminders`), 404, 'NOT_FOUND');
    });

    it('an SMS the provider rate-limits is retried and sent once; a meeting without a phone gets none', async () => {
      const { book } = await setUp([{ minutesBefore: 60, channel: 'sms', to: 'participant' }]);
      const withPhone = await book(MONDAY_9_WARSAW, '0048 603 000 222');
      const withoutPhone = await book('2027-11-01T09:00:00.000Z', null);
      await drain();
      const requestsBefore = smsapi.requests.length;
      smsapi.rateLimitNext(1);
      t.clock.set(HOUR_BEFORE);
      await drain();
      expect(smsTo('48603000222')).toEqual([]);
      expect(await findReminderOutcomes(t.ctx.db, withPhone.uuid)).toEqual([]);
      // The outbox's retry, seconds later.
      t.clock.advance(MINUTE);
      await drain();
      expect(smsTo('48603000222')).toHaveLength(1);
      expect(smsapi.requests.length - requestsBefore).toBe(2);
      t.clock.set(Date.parse('2027-11-01T08:00:00.000Z'));
      await drain();
      expect(smsapi.requests.length - requestsBefore).toBe(2);
      expect((await findReminderOutcomes(t.ctx.db, withoutPhone.uuid)).map((outcome) => [outcome.status, outcome.detail])).toEqual([['skipped', 'no phone number']]);
    });

    it('an SMS claimed, refused for a moment, then moved away is not sent and leaves no claim behind', async () => {
      const { acme, book } = await setUp([{ minutesBefore: 60, channel: 'sms', to: 'participant' }]);
      const meeting = await book(MONDAY_9_WARSAW, '607 000 666');
      await drain();
      smsapi.rateLimitNext(1);
      t.clock.set(HOUR_BEFORE);
      await drain();
      const claims = () => t.ctx.db.selectFrom('meeting_reminders').select(['status', 'reminder_key']).where('meeting_id', '=', meeting.uuid).execute();
      expect((await claims()).map((row) => row.status)).toEqual(['sending']);
      expect((await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${meeting.uuid}/reschedule`, { start: '2027-11-02T08:00:00.000Z' })).statusCode).toBe(200);
      t.clock.advance(MINUTE);
      await drain();
      expect(smsTo('48607000666')).toEqual([]);
      expect(await claims()).toEqual([]);
    });

    it('two instances on one database send each reminder once', async () => {
      const { book } = await setUp([...emailHourBefore, { minutesBefore: 60, channel: 'sms', to: 'participant' }]);
      await book(MONDAY_9_WARSAW, '604 000 333');
      await drain();
      const other = await createContext(t.ctx.config, { now: t.clock.now, log: pino({ level: 'silent' }) });
      try {
        t.clock.set(HOUR_BEFORE);
        const sent: RenderedMessage[] = [];
        const transport = { send: async (message: RenderedMessage) => void sent.push(message), close: () => undefined, describe: () => 'capture' };
        const instances = [t.ctx, other].map((ctx) => startBackgroundJobs(ctx, { transport, jobIntervalMs: 3_600_000, wakeOnBooking: false }));
        try {
          await Promise.all(instances.flatMap((jobs) => [jobs.runOnce(), jobs.runOnce()]));
          await Promise.all(instances.map((jobs) => jobs.runOnce()));
        } finally {
          await Promise.all(instances.map((jobs) => jobs.stop()));
        }
        expect(sent.filter((message) => message.subject.startsWith('Przypomnienie'))).toHaveLength(1);
        expect(smsTo('48604000333')).toHaveLength(1);
      } finally {
        await other.close();
      }
    });

    describe('through Twilio', () => {
      let tw: TestApp;
      let twilio: FakeTwilio;
      beforeAll(async () => {
        twilio = await startFakeTwilio();
        // A business with customers in Poland and the United States lets both (the default would be Poland alone).
        tw = await createTestApp(dialect, createClock(NOW), { ...twilio.env, SMS_ALLOWED_COUNTRIES: 'PL, US' });
      });
      afterAll(async () => {
        await tw?.close();
        await twilio?.close();
      });

      it('sends the reminder to the number in E.164, in the participant’s language', async () => {
        const acme = await createTestAccount(tw.ctx, { timezone: 'Europe/Warsaw', places: ['phone-call'] });
        const topic = (
          await call(tw.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', {
            name: 'Intro call',
            durationMinutes: 30,
            places: ['phone-call'],
            reminders: [
              { minutesBefore: 120, channel: 'sms', to: 'participant' },
              { minutesBefore: 120, channel: 'email', to: 'participant' },
              { minutesBefore: 120, channel: 'email', to: 'host' },
            ],
          })
        ).json();
        const book = (start: string, phone: string, lang: string) =>
          call(tw.app, acme.apiKey, 'POST', '/api/v1/schedule', {
            dates: [{ start, username: acme.owner.username }],
            email: `${lang}@example.com`,
            lang,
            name: 'Pat Doe',
            phone,
            place: 'phone-call',
            meetingTopic: topic.uuid,
            timezone: lang === 'en' ? 'America/New_York' : 'Europe/Warsaw',
          });
        expect((await book(MONDAY_9_WARSAW, '+1 (415) 555-2671', 'en')).statusCode).toBe(201);
        expect((await book('2027-11-01T09:00:00.000Z', '601 234 567', 'pl')).statusCode).toBe(201);
        await runJobsCapturingMail(tw.ctx, []);
        tw.clock.set(Date.parse(MONDAY_9_WARSAW) - 120 * MINUTE);
        const mails: RenderedMessage[] = [];
        await runJobsCapturingMail(tw.ctx, mails);
        expect(twilio.sent.map((sms) => [sms.to, sms.from])).toEqual([['+14155552671', twilio.from]]);
        // The participant's zone and language: 4:00 AM in New York (still summer time there), the number the host calls.
        // Who calls whom, not a bare number: the host calls the participant's.
        expect(twilio.sent[0]!.body).toMatch(
          /^Reminder: Intro call with Olga Owner, .*4:00\sAM\. Phone call: we will call \+1 \(415\) 555-2671\. Move or cancel: http:\/\/\S+\/booking\/\S+$/,
        );
        // The e-mails say it too: the participant is called, the host is told to call; both name the topic.
        const reminderTo = (address: string) => mails.find((message) => message.to.email === address && /^(Reminder|Przypomnienie)/.test(message.subject))!.text;
        expect(reminderTo('en@example.com')).toContain('This is a reminder of your meeting “Intro call” with Olga Owner.');
        expect(reminderTo('en@example.com')).toContain('Where: Phone call: we will call +1 (415) 555-2671\n');
        expect(reminderTo(acme.owner.email)).toContain('This is a reminder of your meeting “Intro call” with Pat Doe.');
        expect(reminderTo(acme.owner.email)).toContain('Where: Phone call: call +1 (415) 555-2671\n');
        mails.length = 0;
        tw.clock.set(Date.parse('2027-11-01T07:00:00.000Z'));
        await runJobsCapturingMail(tw.ctx, mails);
        expect(reminderTo('pl@example.com')).toContain('Przypominamy o spotkaniu „Intro call” (Olga Owner).');
        expect(reminderTo('pl@example.com')).toContain('Gdzie: Rozmowa telefoniczna: zadzwonimy pod numer 601 234 567\n');
        expect(twilio.sent.map((sms) => sms.to)).toEqual(['+14155552671', '+48601234567']);
        expect(twilio.sent[1]!.body).toMatch(/^Przypomnienie: Intro call, Olga Owner, 1 lis 2027, 10:00\. Rozmowa telefoniczna: zadzwonimy pod numer 601 234 567\. /);
      });
    });

    describe('bad input', () => {
      let plain: TestApp;
      beforeAll(async () => {
        plain = await createTestApp(dialect, createClock(NOW));
      });
      afterAll(async () => {
        await plain?.close();
      });
      const topic = (reminders: unknown) => ({ name: 'Intro', durationMinutes: 30, places: ['offline'], reminders });

      it('refuses more than 5 reminders, more than 14 days or less than a minute before, and unknown channels or readers', async () => {
        const acme = await createTestAccount(t.ctx, { places: ['offline'] });
        const post = (body: unknown) => call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', body);
        const six = Array.from({ length: 6 }, (_, i) => ({ minutesBefore: 10 + i, channel: 'email', to: 'participant' }));
        for (const reminders of [
          six,
          [{ minutesBefore: 20_161, channel: 'email', to: 'participant' }],
          [{ minutesBefore: 0, channel: 'email', to: 'participant' }],
          [{ minutesBefore: 1.5, channel: 'email', to: 'participant' }],
          [{ minutesBefore: 60, channel: 'fax', to: 'participant' }],
          [{ minutesBefore: 60, channel: 'email', to: 'everyone' }],
          [{ minutesBefore: 60, channel: 'email' }],
          [
            { minutesBefore: 60, channel: 'email', to: 'host' },
            { minutesBefore: 60, channel: 'email', to: 'host' },
          ],
        ]) {
          expectProblem(await post(topic(reminders)), 400, 'VALIDATION_FAILED');
        }
        const ok = await post(topic([{ minutesBefore: 20_160, channel: 'sms', to: 'participant' }]));
        expect(ok.statusCode).toBe(201);
        expect(ok.json().reminders).toEqual([{ minutesBefore: 20_160, channel: 'sms', to: 'participant' }]);
        // An update with bad reminders changes nothing.
        expectProblem(await call(t.app, acme.apiKey, 'PATCH', `/api/v1/meeting-topics/${ok.json().uuid}`, { reminders: six }), 400, 'VALIDATION_FAILED');
        expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meeting-topics/${ok.json().uuid}`)).json().reminders).toEqual([
          { minutesBefore: 20_160, channel: 'sms', to: 'participant' },
        ]);
        const topics = await t.ctx.db.selectFrom('meeting_topics').select('id').where('account_id', '=', acme.account.uuid).execute();
        expect(topics).toHaveLength(1);
      });

      it('refuses SMS reminders on a server without an SMS provider, naming the setting; e-mail ones are fine', async () => {
        const acme = await createTestAccount(plain.ctx, { places: ['offline'] });
        const refused = expectProblem(
          await call(plain.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', topic([{ minutesBefore: 60, channel: 'sms', to: 'participant' }])),
          400,
          'VALIDATION_FAILED',
        );
        expect(refused.errors).toEqual([{ path: '/reminders/0/channel', message: 'sms reminders are not configured on this server: SMS_PROVIDER is not set' }]);
        expect(refused.detail).toContain('SMS_PROVIDER');
        const created = await call(plain.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', topic([{ minutesBefore: 60, channel: 'email', to: 'host' }]));
        expect(created.statusCode).toBe(201);
        expectProblem(
          await call(plain.app, acme.apiKey, 'PATCH', `/api/v1/meeting-topics/${created.json().uuid}`, { reminders: [{ minutesBefore: 60, channel: 'sms', to: 'host' }] }),
          400,
          'VALIDATION_FAILED',
        );
        expect((await call(plain.app, acme.apiKey, 'GET', `/api/v1/meeting-topics/${created.json().uuid}`)).json().reminders).toEqual([
          { minutesBefore: 60, channel: 'email', to: 'host' },
        ]);
      });
    });
  });
}
