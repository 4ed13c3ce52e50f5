import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { startRadicale, type RadicaleServer } from '../fakes/radicale.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, type TestApp, HAS_RADICALE } from '../helpers.js';
import { startTcpSwitch, type TcpSwitch } from './tcp-switch.js';

type Slot = { start: string; username: string };

function calendarText(...lines: string[]): string {
  return ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Someone else//Their client//EN', ...lines, 'END:VCALENDAR', ''].join('\r\n');
}

/** The host's own calendar, as other clients left it (Warsaw is UTC+1 all of March until the 28th). */
const EVENTS: Record<string, string> = {
  // Wednesday 3 March 10:00–11:00 Warsaw.
  'single.ics': calendarText('BEGIN:VEVENT', 'UID:single', 'DTSTAMP:20270101T000000Z', 'DTSTART:20270303T090000Z', 'DTEND:20270303T100000Z', 'SUMMARY:Dentist', 'END:VEVENT'),
  // Mondays 12:00–13:00 Warsaw, three times; the 8 March one moved to Tuesday 9 March 14:00.
  'weekly.ics': calendarText(
    'BEGIN:VEVENT',
    'UID:weekly',
    'DTSTAMP:20270101T000000Z',
    'DTSTART;TZID=Europe/Warsaw:20270301T120000',
    'DTEND;TZID=Europe/Warsaw:20270301T130000',
    'RRULE:FREQ=WEEKLY;COUNT=3',
    'SUMMARY:Team lunch',
    'END:VEVENT',
    'BEGIN:VEVENT',
    'UID:weekly',
    'DTSTAMP:20270101T000000Z',
    'RECURRENCE-ID;TZID=Europe/Warsaw:20270308T120000',
    'DTSTART;TZID=Europe/Warsaw:20270309T140000',
    'DTEND;TZID=Europe/Warsaw:20270309T150000',
    'SUMMARY:Team lunch (moved)',
    'END:VEVENT',
  ),
  // Friday 5 March, all day: the host's whole Warsaw day.
  'all-day.ics': calendarText(
    'BEGIN:VEVENT',
    'UID:all-day',
    'DTSTAMP:20270101T000000Z',
    'DTSTART;VALUE=DATE:20270305',
    'DTEND;VALUE=DATE:20270306',
    'SUMMARY:Conference',
    'END:VEVENT',
  ),
  // Thursday 4 March 09:00–10:00 in New York (EST) = 14:00–15:00Z.
  'new-york.ics': calendarText(
    'BEGIN:VEVENT',
    'UID:new-york',
    'DTSTAMP:20270101T000000Z',
    'DTSTART;TZID=America/New_York:20270304T090000',
    'DTEND;TZID=America/New_York:20270304T100000',
    'SUMMARY:Call with New York',
    'END:VEVENT',
  ),
  // Thursday 4 March 10:00–11:00 Warsaw, marked free: blocks nothing.
  'free.ics': calendarText(
    'BEGIN:VEVENT',
    'UID:free',
    'DTSTAMP:20270101T000000Z',
    'DTSTART:20270304T090000Z',
    'DTEND:20270304T100000Z',
    'TRANSP:TRANSPARENT',
    'SUMMARY:Focus time',
    'END:VEVENT',
  ),
};

const FRIDAY = ['08', '09', '10', '11', '12', '13', '14', '15'].map((hour) => `2027-03-05T${hour}:00:00.000Z`);
const REMOVED = [
  '2027-03-01T11:00:00.000Z', // weekly, 1st
  '2027-03-03T09:00:00.000Z', // single
  '2027-03-04T14:00:00.000Z', // New York
  ...FRIDAY, // all day
  '2027-03-09T13:00:00.000Z', // the 8th's lunch, moved
  '2027-03-15T11:00:00.000Z', // weekly, 3rd
].sort();

function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

describe.runIf(HAS_RADICALE)('busy time from a CalDAV calendar (Radicale)', () => {
  let radicale: RadicaleServer;
  let radicalePort: number;

  beforeAll(async () => {
    radicale = await startRadicale();
    radicalePort = Number(new URL(radicale.baseUrl).port);
  });
  afterAll(async () => radicale?.stop());

  async function seed(name: string, events: Record<string, string>): Promise<string> {
    const url = await radicale.createCalendar(name);
    for (const [file, text] of Object.entries(events)) {
      const response = await fetch(new URL(file, url), {
        method: 'PUT',
        headers: { authorization: basic(radicale.username, radicale.password), 'content-type': 'text/calendar; charset=utf-8' },
        body: text,
      });
      expect(response.status, await response.text()).toBe(201);
    }
    return url;
  }

  for (const dialect of DIALECTS) {
    describe(`[${dialect}]`, () => {
      let t: TestApp;
      let acme: CreatedAccount;
      let topic: { uuid: string };
      let busyUrl: string;
      let tcp: TcpSwitch;

      beforeAll(async () => {
        // Monday 1 March 2027, 07:00 Warsaw.
        t = await createTestApp(dialect, createClock('2027-03-01T06:00:00.000Z'), { ALLOW_PRIVATE_URLS: 'true' });
        busyUrl = await seed(`busy-${dialect}`, EVENTS);
        tcp = await startTcpSwitch(radicalePort);
      });
      // A host, a topic and a clock of their own for every test: a calendar one test connects
      // (or a meeting it books) would otherwise change the slots the next one sees.
      beforeEach(async () => {
        t.clock.set('2027-03-01T06:00:00.000Z');
        tcp.up();
        acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw' });
        topic = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Consultation', durationMinutes: 60 })).json();
      });
      afterAll(async () => {
        await tcp?.close();
        await t?.close();
      });

      const marchSlots = async (): Promise<string[]> => {
        const response = await call(t.app, null, 'POST', '/api/v1/calculate-schedule', {
          username: acme.owner.username,
          meetingTopic: topic.uuid,
          timezone: 'UTC',
          offset: 0,
          month: 3,
          year: 2027,
        });
        expect(response.statusCode).toBe(200);
        return (response.json().days as { slots: Slot[] }[]).flatMap((day) => day.slots.map((slot) => slot.start));
      };
      const book = (start: string) =>
        call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
          dates: [{ start, username: acme.owner.username }],
          email: 'jan@example.com',
          lang: 'en',
          name: 'Jan Kowalski',
          place: 'zoom',
          meetingTopic: topic.uuid,
          timezone: 'Europe/Warsaw',
        });
      const calendarsPath = () => `/api/v1/users/${acme.owner.uuid}/calendars`;
      const connectBusyCalendar = async (url = busyUrl): Promise<string> => {
        const created = await call(t.app, acme.apiKey, 'POST', calendarsPath(), {
          type: 'caldav',
          url,
          username: radicale.username,
          password: radicale.password,
          checkConflicts: true,
        });
        expect(created.json().status).toBe('ok');
        return created.json().uuid as string;
      };

      it('removes exactly the busy slots: single, recurring with a moved instance, all-day, New York; not the free event', async () => {
        const before = await marchSlots();
        expect(before).toEqual(expect.arrayContaining(REMOVED));
        expect(before).toContain('2027-03-08T11:00:00.000Z');
        expect(before).toContain('2027-03-04T09:00:00.000Z');

        const created = await call(t.app, acme.apiKey, 'POST', calendarsPath(), {
          type: 'caldav',
          url: busyUrl,
          username: radicale.username,
          password: radicale.password,
          checkConflicts: true,
        });
        expect(created.statusCode).toBe(201);
        const calendar = created.json();
        expect(calendar).toMatchObject({ type: 'caldav', url: busyUrl, username: radicale.username, checkConflicts: true, writeMeetings: false, status: 'ok', lastError: null });
        expect(calendar.lastSyncAt).toBe('2027-03-01T06:00:00.000Z');
        expect(created.body).not.toContain(radicale.password);

        const after = await marchSlots();
        const removed = before.filter((start) => !after.includes(start)).sort();
        expect(removed).toEqual(REMOVED);
        expect(after.filter((start) => !before.includes(start))).toEqual([]);
      });

      it("refuses a booking in busy time with 409, and takes one in the moved instance's old place", async () => {
        await connectBusyCalendar();
        const busy = await book('2027-03-03T09:00:00.000Z');
        expect(expectProblem(busy, 409, 'SLOT_UNAVAILABLE').errors?.[0]?.path).toBe('/dates/0');
        expectProblem(await book('2027-03-05T12:00:00.000Z'), 409, 'SLOT_UNAVAILABLE');
        expect((await book('2027-03-08T11:00:00.000Z')).statusCode).toBe(201);
      });

      it('keeps the last good busy time when the server is down, and shows the error on the calendar', async () => {
        const viaSwitch = `http://127.0.0.1:${tcp.port}${new URL(busyUrl).pathname}`;
        const uuid = await connectBusyCalendar(viaSwitch);
        const good = await marchSlots();
        expect(good).not.toContain('2027-03-03T09:00:00.000Z');

        tcp.down();
        t.clock.advance(3_600_000);
        const synced = await call(t.app, acme.apiKey, 'POST', `${calendarsPath()}/${uuid}/sync`);
        expect(synced.statusCode).toBe(200);
        const body = synced.json();
        expect(body.status).toBe('error');
        expect(body.lastError).toMatch(/Could not read the CalDAV calendar/);
        expect(body.lastSyncAt).toBe('2027-03-01T07:00:00.000Z');
        expect(body.lastSuccessAt).toBe('2027-03-01T06:00:00.000Z');
        expect(body.lastError).not.toContain(radicale.password);
        expect(await marchSlots()).toEqual(good);
        expectProblem(await book('2027-03-03T09:00:00.000Z'), 409, 'SLOT_UNAVAILABLE');

        const listed = (await call(t.app, acme.apiKey, 'GET', calendarsPath())).json().calendars;
        expect(listed).toEqual([expect.objectContaining({ uuid, status: 'error', lastError: body.lastError })]);
        expect((await call(t.app, acme.apiKey, 'GET', `${calendarsPath()}/${uuid}`)).json()).toEqual(body);

        tcp.up();
        t.clock.advance(60_000);
        const back = (await call(t.app, acme.apiKey, 'POST', `${calendarsPath()}/${uuid}/sync`)).json();
        expect(back).toMatchObject({ status: 'ok', lastError: null, lastSuccessAt: '2027-03-01T07:01:00.000Z' });
      });

      it('frees the busy time at once when the calendar is disconnected', async () => {
        await connectBusyCalendar();
        expect(await marchSlots()).not.toContain('2027-03-03T09:00:00.000Z');
        const [calendar] = (await call(t.app, acme.apiKey, 'GET', calendarsPath())).json().calendars;
        expect((await call(t.app, acme.apiKey, 'DELETE', `${calendarsPath()}/${calendar.uuid}`)).statusCode).toBe(204);
        expect((await call(t.app, acme.apiKey, 'GET', calendarsPath())).json().calendars).toEqual([]);
        expect(await marchSlots()).toContain('2027-03-03T09:00:00.000Z');
        expectProblem(await call(t.app, acme.apiKey, 'DELETE', `${calendarsPath()}/${calendar.uuid}`), 404, 'NOT_FOUND');
      });

      it('reads a plain iCalendar URL too, and never shows its path', async () => {
        const feedUrl = new URL('single.ics', busyUrl).href;
        // Radicale wants a login for the object: the secret-address style feed is played by a public Radicale object here.
        const created = await call(t.app, acme.apiKey, 'POST', calendarsPath(), { type: 'ics', url: feedUrl });
        expect(created.statusCode).toBe(201);
        const calendar = created.json();
        expect(calendar.url).toBe(`http://127.0.0.1:${radicalePort}/…`);
        expect(created.body).not.toContain('single.ics');
        // Radicale refuses an anonymous read: the error is shown, without the address's path.
        expect(calendar.status).toBe('error');
        expect(calendar.lastError).toContain('HTTP 401');
        expect(calendar.lastError).not.toContain('single.ics');
        await call(t.app, acme.apiKey, 'DELETE', `${calendarsPath()}/${calendar.uuid}`);
      });

      it('validates the body per type', async () => {
        const missing = expectProblem(await call(t.app, acme.apiKey, 'POST', calendarsPath(), { type: 'caldav', url: busyUrl }), 400, 'VALIDATION_FAILED');
        expect(missing.errors!.map((e) => e.path)).toEqual(['/username', '/password']);
        const icsWrites = expectProblem(await call(t.app, acme.apiKey, 'POST', calendarsPath(), { type: 'ics', url: busyUrl, writeMeetings: true }), 400, 'VALIDATION_FAILED');
        expect(icsWrites.errors!.map((e) => e.path)).toEqual(['/writeMeetings']);
        expectProblem(await call(t.app, acme.apiKey, 'POST', calendarsPath(), { type: 'google', url: busyUrl }), 400, 'VALIDATION_FAILED');
        expectProblem(await call(t.app, acme.apiKey, 'POST', calendarsPath(), { type: 'ics', url: 'ftp://example.com/x.ics' }), 400, 'VALIDATION_FAILED');
      });

      it('lets only the user or an admin of their teams manage their calendars', async () => {
        const member = (
          await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, {
            firstName: 'Mia',
            lastName: 'Member',
            email: `mia-${dialect}@example.com`,
            admin: false,
          })
        ).json();
        // The admin manages the member's calendars.
        expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/users/${member.uuid}/calendars`)).statusCode).toBe(200);
        const other = await createTestAccount(t.ctx);
        expectProblem(await call(t.app, other.apiKey, 'GET', calendarsPath()), 404, 'NOT_FOUND');
        expectProblem(await call(t.app, null, 'GET', calendarsPath()), 401, 'UNAUTHENTICATED');
      });
    });
  }
});

describe('private addresses', () => {
  for (const dialect of DIALECTS) {
    it(`refuses a loopback or private calendar URL without ALLOW_PRIVATE_URLS [${dialect}]`, async () => {
      const t = await createTestApp(dialect, createClock('2027-03-01T06:00:00.000Z'));
      try {
        const acme = await createTestAccount(t.ctx);
        const path = `/api/v1/users/${acme.owner.uuid}/calendars`;
        for (const body of [
          { type: 'caldav', url: 'http://127.0.0.1:5232/alice/work/', username: 'alice', password: 'pw' },
          { type: 'ics', url: 'webcal://169.254.169.254/latest/meta-data' },
          { type: 'ics', url: 'http://10.0.0.8/calendar.ics' },
        ]) {
          const problem = expectProblem(await call(t.app, acme.apiKey, 'POST', path, body), 400, 'VALIDATION_FAILED');
          expect(problem.errors).toEqual([{ path: '/url', message: expect.stringContaining('ALLOW_PRIVATE_URLS') }]);
        }
        expect((await call(t.app, acme.apiKey, 'GET', path)).json().calendars).toEqual([]);
      } finally {
        await t.close();
      }
    });
  }
});
