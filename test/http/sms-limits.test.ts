import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RenderedMessage } from '../../src/mail/message.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, runJobsCapturingMail, type TestApp } from '../helpers.js';
import { startFakeSmsapi, type FakeSmsapi } from '../fakes/smsapi.js';

const NOW = '2027-10-25T06:00:00.000Z';
const HOUR = 3_600_000;

/**
 * SMS pumping: a public booking page takes any number, and each SMS costs the business. The
 * server sends reminders only to SMS_ALLOWED_COUNTRIES (default: SMS_DEFAULT_COUNTRY, here PL)
 * and at most SMS_MAX_PER_NUMBER_PER_DAY (here 2) to one number in any 24 hours, across its
 * accounts; the booking is taken either way, and the reminder says why it was skipped.
 */
for (const dialect of DIALECTS) {
  describe(`SMS limits [${dialect}]`, () => {
    let t: TestApp;
    let smsapi: FakeSmsapi;
    const mail: RenderedMessage[] = [];
    beforeAll(async () => {
      smsapi = await startFakeSmsapi();
      t = await createTestApp(dialect, createClock(NOW), { ...smsapi.env, SMS_MAX_PER_NUMBER_PER_DAY: '2' });
    });
    afterAll(async () => {
      await t?.close();
      await smsapi?.close();
    });

    const account = async () => {
      t.clock.set(NOW);
      const acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['offline'] });
      const created = await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', {
        name: 'Konsultacja',
        durationMinutes: 30,
        places: ['offline'],
        reminders: [{ minutesBefore: 60, channel: 'sms', to: 'participant' }],
      });
      expect(created.statusCode, created.body).toBe(201);
      const book = async (start: string, phone: string) => {
        const response = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
          dates: [{ start, username: acme.owner.username }],
          email: 'jan@example.com',
          lang: 'pl',
          name: 'Jan Kowalski',
          place: 'offline',
          meetingTopic: created.json().uuid,
          timezone: 'Europe/Warsaw',
          phone,
        });
        // Taken whatever the number: only its SMS are held back.
        expect(response.statusCode, response.body).toBe(201);
        return response.json().meetings[0] as { uuid: string };
      };
      const reminders = async (meeting: { uuid: string }) =>
        ((await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${meeting.uuid}/reminders`)).json().reminders as { status: string; detail: string | null }[]).map((reminder) => [
          reminder.status,
          reminder.detail,
        ]);
      return { book, reminders };
    };
    /** Runs what is due `start` − 1 hour (the reminder's moment). */
    const remindAt = async (start: string) => {
      t.clock.set(Date.parse(start) - HOUR);
      await runJobsCapturingMail(t.ctx, mail);
    };
    const smsTo = (digits: string) => smsapi.sent.filter((sms) => sms.to === digits);

    it('skips, saying why, an SMS to a country the server does not allow: an international premium range and another country', async () => {
      const warn = vi.spyOn(t.ctx.log, 'warn');
      const { book, reminders } = await account();
      const premium = await book('2027-11-01T13:00:00.000Z', '+882 34 567 890');
      const german = await book('2027-11-01T14:00:00.000Z', '+49 151 12345678');
      const polish = await book('2027-11-01T15:00:00.000Z', '606 111 222');
      for (const start of ['2027-11-01T13:00:00.000Z', '2027-11-01T14:00:00.000Z', '2027-11-01T15:00:00.000Z']) await remindAt(start);
      expect(smsTo('88234567890')).toEqual([]);
      expect(smsTo('4915112345678')).toEqual([]);
      expect(smsTo('48606111222')).toHaveLength(1);
      expect(await reminders(premium)).toEqual([['skipped', "the number's country (+882) is not in SMS_ALLOWED_COUNTRIES (PL): not sent"]]);
      expect(await reminders(german)).toEqual([['skipped', "the number's country (DE, +49) is not in SMS_ALLOWED_COUNTRIES (PL): not sent"]]);
      expect((await reminders(polish)).map(([status]) => status)).toEqual(['sent']);
      // The operator sees it in the log too, without the number.
      const logged = warn.mock.calls.filter(([, message]) => message === 'an SMS reminder was skipped');
      expect(logged.map(([fields]) => (fields as { reason: string }).reason)).toEqual([
        "the number's country (+882) is not in SMS_ALLOWED_COUNTRIES (PL): not sent",
        "the number's country (DE, +49) is not in SMS_ALLOWED_COUNTRIES (PL): not sent",
      ]);
      expect(JSON.stringify(logged)).not.toContain('567890');
      warn.mockRestore();
    });

    it('sends at most SMS_MAX_PER_NUMBER_PER_DAY SMS to one number in any 24 hours, across accounts; the rest are skipped, saying why', async () => {
      const [acme, other] = [await account(), await account()];
      // The same number, written two ways, on two accounts' meetings.
      const first = await acme.book('2027-11-01T09:00:00.000Z', '601 234 567');
      const second = await other.book('2027-11-01T10:00:00.000Z', '+48 601-234-567');
      const third = await acme.book('2027-11-01T11:00:00.000Z', '601234567');
      const nextDay = await acme.book('2027-11-02T09:30:00.000Z', '601 234 567');
      await remindAt('2027-11-01T09:00:00.000Z');
      await remindAt('2027-11-01T10:00:00.000Z');
      expect(smsTo('48601234567')).toHaveLength(2);
      await remindAt('2027-11-01T11:00:00.000Z');
      expect(smsTo('48601234567')).toHaveLength(2);
      expect((await acme.reminders(first)).map(([status]) => status)).toEqual(['sent']);
      expect((await other.reminders(second)).map(([status]) => status)).toEqual(['sent']);
      expect(await acme.reminders(third)).toEqual([['skipped', '2 SMS already sent to this number in the last 24 hours (SMS_MAX_PER_NUMBER_PER_DAY): not sent']]);
      // Tuesday 08:30Z: the first SMS (Monday 08:00Z) is more than 24 hours old, the second not: one more may go.
      await remindAt('2027-11-02T09:30:00.000Z');
      expect(smsTo('48601234567')).toHaveLength(3);
      expect((await acme.reminders(nextDay)).map(([status]) => status)).toEqual(['sent']);
    });

    it('four reminders to one number due at once, on four accounts, run together: exactly SMS_MAX_PER_NUMBER_PER_DAY are sent', async () => {
      const accounts = [await account(), await account(), await account(), await account()];
      const meetings = [];
      for (const each of accounts) meetings.push({ each, meeting: await each.book('2027-11-03T09:00:00.000Z', '608 777 888') });
      await remindAt('2027-11-03T09:00:00.000Z');
      expect(smsTo('48608777888')).toHaveLength(2);
      const statuses = await Promise.all(meetings.map(async ({ each, meeting }) => (await each.reminders(meeting)).map(([status]) => status)));
      expect(statuses.flat().sort()).toEqual(['sent', 'sent', 'skipped', 'skipped']);
    });
  });
}
