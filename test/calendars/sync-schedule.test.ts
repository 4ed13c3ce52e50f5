import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findCalendarVersion } from '../../src/db/repositories/users.js';
import { calendarSettingsFromConfig, syncCalendar, syncDueCalendars } from '../../src/scheduling/calendars-sync.js';
import type { CreatedAccount } from '../../src/scheduling/create-account.js';
import { startRadicale, type RadicaleServer } from '../fakes/radicale.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, type TestApp, HAS_RADICALE } from '../helpers.js';

const event = (uid: string, start: string, end: string) =>
  ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN', 'BEGIN:VEVENT', `UID:${uid}`, 'DTSTAMP:20270101T000000Z', `DTSTART:${start}`, `DTEND:${end}`, 'END:VEVENT', 'END:VCALENDAR', ''].join('\r\n');

describe.runIf(HAS_RADICALE)('the background sync', () => {
  let radicale: RadicaleServer;
  beforeAll(async () => {
    radicale = await startRadicale();
  });
  afterAll(async () => radicale?.stop());

  const put = async (collection: string, uid: string, text: string) => {
    const response = await fetch(new URL(`${uid}.ics`, collection), {
      method: 'PUT',
      headers: { authorization: `Basic ${Buffer.from(`${radicale.username}:${radicale.password}`).toString('base64')}`, 'content-type': 'text/calendar' },
      body: text,
    });
    expect(response.status).toBe(201);
  };

  for (const dialect of DIALECTS) {
    describe(`[${dialect}]`, () => {
      let t: TestApp;
      let acme: CreatedAccount;
      let collection: string;
      let calendarUuid: string;
      const settings = () => calendarSettingsFromConfig(t.ctx.config);
      const spans = () => t.ctx.db.selectFrom('external_busy').select(['starts_at', 'ends_at']).where('source_id', '=', calendarUuid).orderBy('starts_at').execute();

      beforeAll(async () => {
        t = await createTestApp(dialect, createClock('2027-03-01T06:00:00.000Z'), { ALLOW_PRIVATE_URLS: 'true', CALENDAR_SYNC_INTERVAL_SECONDS: '300' });
        acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw' });
        collection = await radicale.createCalendar(`sync-${dialect}`);
        await put(collection, 'first', event('first', '20270302T090000Z', '20270302T100000Z'));
        const created = await call(t.app, acme.apiKey, 'POST', `/api/v1/users/${acme.owner.uuid}/calendars`, {
          type: 'caldav',
          url: collection,
          username: radicale.username,
          password: radicale.password,
        });
        expect(created.json().status).toBe('ok');
        calendarUuid = created.json().uuid;
      });
      afterAll(async () => t?.close());

      it('reads each calendar again once its interval has passed, bumping the version only on a change', async () => {
        const version = await findCalendarVersion(t.ctx.db, acme.owner.uuid);
        expect(await syncDueCalendars(t.ctx, settings())).toBe(0);
        t.clock.advance(300_000);
        expect(await syncDueCalendars(t.ctx, settings())).toBe(1);
        expect(await findCalendarVersion(t.ctx.db, acme.owner.uuid)).toBe(version);

        await put(collection, 'second', event('second', '20270303T090000Z', '20270303T100000Z'));
        t.clock.advance(299_000);
        expect(await syncDueCalendars(t.ctx, settings())).toBe(0);
        t.clock.advance(1_000);
        expect(await syncDueCalendars(t.ctx, settings())).toBe(1);
        expect(await findCalendarVersion(t.ctx.db, acme.owner.uuid)).toBe(version! + 1);
        expect((await spans()).map((s) => new Date(Number(s.starts_at)).toISOString())).toEqual(['2027-03-02T09:00:00.000Z', '2027-03-03T09:00:00.000Z']);
      });

      it('lets one of two simultaneous syncs of a calendar run; the other stands back', async () => {
        const results = await Promise.all([syncCalendar(t.ctx, settings(), calendarUuid), syncCalendar(t.ctx, settings(), calendarUuid)]);
        expect(results.filter((r) => 'busy' in r)).toHaveLength(1);
        expect(results.filter((r) => r.synced)).toHaveLength(1);
      });

      it('reads as far ahead as the longest booking window of the host\'s topics, at least 60 days', async () => {
        // 100 days ahead: past the 60-day minimum.
        await put(collection, 'far', event('far', '20270610T090000Z', '20270610T100000Z'));
        await syncCalendar(t.ctx, settings(), calendarUuid);
        expect((await spans()).map((s) => new Date(Number(s.starts_at)).toISOString())).not.toContain('2027-06-10T09:00:00.000Z');
        await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Far ahead', durationMinutes: 60, bookingWindowDays: 120 });
        await syncCalendar(t.ctx, settings(), calendarUuid);
        expect((await spans()).map((s) => new Date(Number(s.starts_at)).toISOString())).toContain('2027-06-10T09:00:00.000Z');
      });
    });
  }
});
