import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findCalendarVersion } from '../../src/db/repositories/users.js';
import { SYNC_LEASE_MS, syncCalendar, syncDueCalendars } from '../../src/scheduling/calendars/sync.js';
import { startRadicale, type RadicaleServer } from '../fakes/radicale.js';
import { startResponseGate, type ResponseGate } from '../fakes/response-gate.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, HAS_RADICALE } from '../helpers.js';

const event = (uid: string, start: string, end: string) =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//test//EN',
    'BEGIN:VEVENT',
    `UID:${uid}`,
    'DTSTAMP:20270101T000000Z',
    `DTSTART:${start}`,
    `DTEND:${end}`,
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');

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
      /**
       * A service of its own with one account whose owner has one CalDAV calendar holding
       * the event `first` (so the background sync sees only this test's calendar), reached
       * through `via` (a gate in front of Radicale) when given.
       */
      const setup = async (name: string, via?: ResponseGate) => {
        const t = await createTestApp(dialect, createClock('2027-03-01T06:00:00.000Z'), { ALLOW_PRIVATE_URLS: 'true', CALENDAR_SYNC_INTERVAL_SECONDS: '300' });
        const acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw' });
        const collection = await radicale.createCalendar(`${name}-${dialect}`);
        await put(collection, 'first', event('first', '20270302T090000Z', '20270302T100000Z'));
        const created = await call(t.app, acme.apiKey, 'POST', `/api/v1/users/${acme.owner.uuid}/calendars`, {
          type: 'caldav',
          url: via ? new URL(new URL(collection).pathname, via.baseUrl).toString() : collection,
          username: radicale.username,
          password: radicale.password,
        });
        expect(created.json().status).toBe('ok');
        const calendarUuid: string = created.json().uuid;
        const spans = async () =>
          (await t.ctx.db.selectFrom('external_busy').select('starts_at').where('source_id', '=', calendarUuid).orderBy('starts_at').execute()).map((s) =>
            new Date(Number(s.starts_at)).toISOString(),
          );
        const sync = () => syncCalendar(t.ctx, calendarUuid);
        return { t, acme, collection, calendarUuid, spans, sync };
      };

      it('reads each calendar again once its interval has passed, bumping the version only on a change', async () => {
        const { t, acme, collection, spans } = await setup('interval');
        try {
          const version = await findCalendarVersion(t.ctx.db, acme.owner.uuid);
          expect(await syncDueCalendars(t.ctx)).toBe(0);
          t.clock.advance(300_000);
          expect(await syncDueCalendars(t.ctx)).toBe(1);
          expect(await findCalendarVersion(t.ctx.db, acme.owner.uuid)).toBe(version);

          await put(collection, 'second', event('second', '20270303T090000Z', '20270303T100000Z'));
          t.clock.advance(299_000);
          expect(await syncDueCalendars(t.ctx)).toBe(0);
          t.clock.advance(1_000);
          expect(await syncDueCalendars(t.ctx)).toBe(1);
          expect(await findCalendarVersion(t.ctx.db, acme.owner.uuid)).toBe(version! + 1);
          expect(await spans()).toEqual(['2027-03-02T09:00:00.000Z', '2027-03-03T09:00:00.000Z']);
        } finally {
          await t.close();
        }
      });

      it('while one sync holds a calendar no other reads it; after the lease another may, and the late one stores nothing', async () => {
        const gate = await startResponseGate(radicale.baseUrl);
        const { t, collection, spans, sync } = await setup('claim', gate);
        try {
          // The first sync claims the calendar and is frozen inside its remote read.
          gate.hold();
          const first = sync();
          await expect.poll(() => gate.held).toBeGreaterThan(0);
          const readsSoFar = gate.requests.length;

          // A second one, on this or any instance, stands back without touching the calendar.
          expect(await sync()).toEqual({ synced: false, busy: true });
          expect(await syncDueCalendars(t.ctx)).toBe(0);
          expect(gate.requests).toHaveLength(readsSoFar);

          // The calendar changes, and the first sync's lease runs out (its instance looks dead):
          // the next sync claims the calendar and reads the new state.
          await put(collection, 'moved', event('moved', '20270304T090000Z', '20270304T100000Z'));
          t.clock.advance(SYNC_LEASE_MS);
          gate.pass();
          expect(await sync()).toEqual({ synced: true, changed: true });
          expect(gate.requests.length).toBeGreaterThan(readsSoFar);
          expect(await spans()).toEqual(['2027-03-02T09:00:00.000Z', '2027-03-04T09:00:00.000Z']);

          // The first sync wakes with its older read: it no longer holds the calendar, so it
          // stores nothing and the newer busy time stays.
          gate.release();
          expect(await first).toEqual({ synced: false, superseded: true });
          expect(await spans()).toEqual(['2027-03-02T09:00:00.000Z', '2027-03-04T09:00:00.000Z']);
          // Nor did it release the calendar or move its schedule: the next sync is due 300 s after the second one.
          const row = await t.ctx.db.selectFrom('calendars').select(['next_sync_at', 'sync_lease_until']).executeTakeFirstOrThrow();
          expect(row.sync_lease_until).toBeNull();
          expect(Number(row.next_sync_at)).toBe(t.clock.now() + 300_000);
        } finally {
          await t.close();
          await gate.close();
        }
      });

      it("reads as far ahead as the longest booking window of the host's topics, at least 60 days", async () => {
        const { t, acme, collection, spans, sync } = await setup('window');
        try {
          // 100 days ahead: past the 60-day minimum.
          await put(collection, 'far', event('far', '20270610T090000Z', '20270610T100000Z'));
          await sync();
          expect(await spans()).not.toContain('2027-06-10T09:00:00.000Z');
          await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Far ahead', durationMinutes: 60, bookingWindowDays: 120 });
          await sync();
          expect(await spans()).toContain('2027-06-10T09:00:00.000Z');
        } finally {
          await t.close();
        }
      });
    });
  }
});
