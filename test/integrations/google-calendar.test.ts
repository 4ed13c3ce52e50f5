import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { busyOfGoogleEvents, googleCopyIdOf } from '../../src/integrations/google/calendar.js';
import { CalendarUnreachableError } from '../../src/calendars/errors.js';
import { meetingEventUid } from '../../src/calendars/meeting-event.js';
import { withAccessToken } from '../../src/scheduling/integrations/provider-access.js';
import { type FakeGoogle, startFakeGoogle } from '../fakes/google.js';
import { DIALECTS, createClock, createTestAccount, expectProblem } from '../helpers.js';
import { createRoomBookings, freeSlots, type Harness, type RoomBookings, startHarness } from './harness.js';

/**
 * A host's Google Calendar on their Google connection, against the stand-in in
 * test/fakes/google.ts: its busy events (over more than one page of `events.list`) block
 * their slots, free, declined and termin's own events do not, an all-day event blocks the
 * host's day; meetings are written there (one event per meeting, moved and removed with it)
 * except a Google Meet meeting, whose room's event already is the copy; and a refused
 * connection shows on the calendar.
 */
const HOUR = 3_600_000;

for (const dialect of DIALECTS) {
  // Not shuffled, by design, as zoom.test.ts: the tests are the life of one host's connection
  // in order (app configured, connected, used, broken, reconnected, disconnected), each step
  // on the connection, the stand-in's state and the counts the step before left.
  describe(`Google calendars [${dialect}]`, { shuffle: false }, () => {
    let h: Harness;
    let google: FakeGoogle;
    let topicUuid: string;
    let connectionUuid: string;
    let calendarUuid: string;
    /** Free slots before any Google event, by UTC day. */
    let days: string[][];
    let bookings: RoomBookings;

    const slotsNow = async () => new Set(await freeSlots(h.app, h.acme.owner.username, topicUuid, 150));
    const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
    const calendarsPath = () => `/api/v1/users/${h.acme.owner.uuid}/calendars`;

    beforeAll(async () => {
      const clock = createClock('2027-01-04T06:00:00.000Z');
      google = await startFakeGoogle({ now: clock.now, accountEmail: 'olga@acme-workspace.example' });
      h = await startHarness(dialect, clock, google.env, ['google-meet', 'offline']);
      const topic = await h.api('POST', '/api/v1/meeting-topics', { name: 'Intro call', durationMinutes: 30, places: ['google-meet', 'offline'], bookingWindowDays: 365 });
      topicUuid = (topic.json() as { uuid: string }).uuid;
      bookings = createRoomBookings(h, 'offline', topicUuid);
      const byDay = new Map<string, string[]>();
      for (const slot of await freeSlots(h.app, h.acme.owner.username, topicUuid, 150)) byDay.set(slot.slice(0, 10), [...(byDay.get(slot.slice(0, 10)) ?? []), slot]);
      days = [...byDay.values()].filter((slots) => slots.length >= 6);
      await h.api('PATCH', '/api/v1/account', { integrations: { google: { clientId: google.clientId, clientSecret: google.clientSecret } } });
      const { started, callback } = await h.connect(h.acme.owner.uuid, 'google', google);
      expect(callback.statusCode, callback.body).toBe(200);
      connectionUuid = String(started.uuid);
    }, 60_000);

    afterAll(async () => {
      await h?.close();
      await google?.close();
    });

    it('refuses a Google calendar without the host’s own Google connection, or with CalDAV’s fields', async () => {
      const missing = await h.api('POST', calendarsPath(), { type: 'google', calendarId: 'primary' });
      expect(expectProblem(missing, 400, 'VALIDATION_FAILED').errors?.map((e) => e.path)).toEqual(['/connection']);
      const withUrl = await h.api('POST', calendarsPath(), { type: 'google', connection: connectionUuid, url: 'https://dav.example.com/cal/' });
      expect(expectProblem(withUrl, 400, 'VALIDATION_FAILED').errors?.map((e) => e.path)).toEqual(['/url']);
      const stranger = await createTestAccount(h.ctx);
      const foreign = await h.api('POST', `/api/v1/users/${stranger.owner.uuid}/calendars`, { type: 'google', connection: connectionUuid }, stranger.apiKey);
      expect(expectProblem(foreign, 400, 'VALIDATION_FAILED').errors?.map((e) => e.path)).toEqual(['/connection']);
      const caldav = await h.api('POST', calendarsPath(), { type: 'caldav', url: 'https://dav.example.com/cal/', username: 'a', password: 'b', connection: connectionUuid });
      expect(expectProblem(caldav, 400, 'VALIDATION_FAILED').errors?.map((e) => e.path)).toEqual(['/connection']);
      const noUrl = await h.api('POST', calendarsPath(), { type: 'ics' });
      expect(expectProblem(noUrl, 400, 'VALIDATION_FAILED').errors?.map((e) => e.path)).toEqual(['/url']);
      expect(((await h.api('GET', calendarsPath())).json() as { calendars: unknown[] }).calendars).toHaveLength(0);
    });

    it('blocks the slots of the host’s busy Google events, read over several pages, and not those of free, declined or termin’s own', async () => {
      const [day, allDay] = [days[1]!, days[2]!];
      // 2 600 free events first: the busy ones come on the second page of events.list.
      for (let i = 0; i < 2_600; i += 1) {
        google.addEvent({
          id: `filler${i}`,
          summary: 'Focus',
          start: { dateTime: plus(day[0]!, -2 * HOUR) },
          end: { dateTime: plus(day[0]!, -HOUR) },
          transparency: 'transparent',
        });
      }
      // Written with Warsaw's offset, as Google answers in the calendar's zone.
      const warsaw = (iso: string) => `${new Date(Date.parse(iso) + HOUR).toISOString().slice(0, 19)}+01:00`;
      google.addEvent({ id: 'dentist1', summary: 'Dentist', start: { dateTime: warsaw(day[0]!) }, end: { dateTime: warsaw(plus(day[0]!, 30 * 60_000)) } });
      google.addEvent({ id: 'focus1', summary: 'Focus', start: { dateTime: day[1]! }, end: { dateTime: plus(day[1]!, 30 * 60_000) }, transparency: 'transparent' });
      google.addEvent({
        id: 'declined1',
        summary: 'Optional sync',
        start: { dateTime: day[2]! },
        end: { dateTime: plus(day[2]!, 30 * 60_000) },
        attendees: [{ email: 'olga@acme-workspace.example', self: true, responseStatus: 'declined' }],
      });
      google.addEvent({
        id: 'termin1',
        summary: 'Intro call: someone',
        start: { dateTime: day[3]! },
        end: { dateTime: plus(day[3]!, 30 * 60_000) },
        extendedProperties: { private: { termin: 'x' } },
      });
      google.addEvent({ id: 'offsite1', summary: 'Offsite', start: { date: allDay[0]!.slice(0, 10) }, end: { date: plus(allDay[0]!, 24 * HOUR).slice(0, 10) } });

      const added = await h.api('POST', calendarsPath(), { type: 'google', connection: connectionUuid, calendarId: 'primary', checkConflicts: true, writeMeetings: true });
      expect(added.statusCode, added.body).toBe(201);
      const calendar = added.json() as { uuid: string; type: string; url: string; status: string; lastError: string | null; writeMeetings: boolean };
      expect(calendar).toMatchObject({ type: 'google', url: 'google:primary', status: 'ok', lastError: null, writeMeetings: true });
      calendarUuid = calendar.uuid;
      const lists = google.apiCalls.filter((c) => c.method === 'GET' && c.path.startsWith('/calendar/v3/calendars/primary/events?'));
      expect(lists).toHaveLength(2);
      expect(new URL(lists[0]!.path, 'http://x').searchParams.get('singleEvents')).toBe('true');
      expect(new URL(lists[1]!.path, 'http://x').searchParams.get('pageToken')).toBe('2500');

      const free = await slotsNow();
      expect(free.has(day[0]!)).toBe(false);
      for (const slot of [day[1]!, day[2]!, day[3]!, day[4]!]) expect(free.has(slot), slot).toBe(true);
      for (const slot of allDay) expect(free.has(slot), slot).toBe(false);
      expect(free.has(days[3]![0]!)).toBe(true);
    });

    it('writes a booked meeting into the Google calendar once, moves and removes it, and never counts it as busy', async () => {
      const [start, moved] = [days[3]![1]!, days[3]![4]!];
      const uuid = await bookings.book({ start, place: 'offline' });
      await h.runJobs();
      const id = googleCopyIdOf(meetingEventUid(uuid));
      const copy = google.events.get(id)!;
      expect(copy).toMatchObject({ summary: 'Intro call: Guest 1', status: 'confirmed', extendedProperties: { private: { termin: meetingEventUid(uuid) } } });
      // Made under termin's id alone: Google takes only one of `id` and `iCalUID` at creation.
      const inserts = google.apiCalls.filter((call) => call.method === 'POST' && (call.body as { id?: string } | undefined)?.id === id);
      expect(inserts).toHaveLength(1);
      expect(inserts[0]!.body).not.toHaveProperty('iCalUID');
      expect('dateTime' in copy.start && Date.parse(copy.start.dateTime)).toBe(Date.parse(start));
      expect((await h.api('POST', `/api/v1/meetings/${uuid}/reschedule`, { start: moved })).statusCode).toBe(200);
      await h.runJobs();
      const again = google.events.get(id)!;
      expect('dateTime' in again.start && Date.parse(again.start.dateTime)).toBe(Date.parse(moved));
      expect([...google.events.values()].filter((event) => event.summary === 'Intro call: Guest 1')).toHaveLength(1);

      // Cancelled in termin, its copy not yet removed from Google: the sync reads the copy and does not count it.
      expect((await h.api('POST', `/api/v1/meetings/${uuid}/cancel`, {})).statusCode).toBe(200);
      expect((await h.api('POST', `${calendarsPath()}/${calendarUuid}/sync`)).json()).toMatchObject({ status: 'ok' });
      expect((await slotsNow()).has(moved)).toBe(true);
      await h.runJobs();
      expect(google.events.get(id)!.status).toBe('cancelled');
    });

    it('keeps a Google Meet meeting to its one event: the room’s event is the calendar copy', async () => {
      const uuid = await bookings.book({ start: days[4]![0]!, place: 'google-meet' });
      await h.runJobs();
      const location = ((await h.api('GET', `/api/v1/meetings/${uuid}`)).json() as { location: { url: string | null } }).location;
      expect(location.url).toMatch(/^https:\/\/meet\.google\.com\//);
      const events = [...google.events.values()].filter((event) => event.summary === `Intro call: Guest ${bookings.participant}`);
      expect(events).toHaveLength(1);
      expect(events[0]!.conference).not.toBeNull();
      expect(google.events.has(googleCopyIdOf(meetingEventUid(uuid)))).toBe(false);
      // Cancelled in termin, its room's event not yet deleted at Google: that event blocks nothing.
      expect((await h.api('POST', `/api/v1/meetings/${uuid}/cancel`, {})).statusCode).toBe(200);
      expect((await h.api('POST', `${calendarsPath()}/${calendarUuid}/sync`)).json()).toMatchObject({ status: 'ok' });
      expect((await slotsNow()).has(days[4]![0]!)).toBe(true);
      await h.runJobs();
      expect(events[0]!.status).toBe('cancelled');
    });

    const syncNow = async () => {
      const synced = await h.api('POST', `${calendarsPath()}/${calendarUuid}/sync`);
      expect(synced.json(), synced.body).toMatchObject({ status: 'ok', lastError: null });
    };
    const lastListPaths = (since: number) =>
      google.apiCalls
        .slice(since)
        .filter((c) => c.method === 'GET' && c.path.startsWith('/calendar/v3/calendars/primary/events?'))
        .map((c) => new URL(c.path, 'http://x').searchParams);

    it('asks only for the changes on the next sync, by its sync token: a new busy event blocks, a deleted or cancelled one frees its time', async () => {
      const day = days[6]!;
      google.addEvent({ id: 'gone1', summary: 'Lunch', start: { dateTime: day[1]! }, end: { dateTime: plus(day[1]!, 30 * 60_000) } });
      google.addEvent({ id: 'cancel1', summary: 'Review', start: { dateTime: day[2]! }, end: { dateTime: plus(day[2]!, 30 * 60_000) } });
      await syncNow();
      let free = await slotsNow();
      expect(free.has(day[1]!)).toBe(false);
      expect(free.has(day[2]!)).toBe(false);

      const calls = google.apiCalls.length;
      const answers = google.listAnswers.length;
      google.addEvent({ id: 'new1', summary: 'Dentist', start: { dateTime: day[0]! }, end: { dateTime: plus(day[0]!, 30 * 60_000) } });
      google.events.delete('gone1');
      google.events.get('cancel1')!.status = 'cancelled';
      await syncNow();
      // One incremental list: the token alone (Google refuses timeMin/timeMax beside it), and just the three changed events back.
      const [query, ...more] = lastListPaths(calls);
      expect(more).toHaveLength(0);
      expect(query!.get('syncToken')).toBeTruthy();
      expect(query!.has('timeMin') || query!.has('timeMax')).toBe(false);
      expect(google.listAnswers.slice(answers)).toEqual([{ syncToken: true, ids: expect.arrayContaining(['new1', 'gone1', 'cancel1']) }]);
      expect(google.listAnswers.at(-1)!.ids).toHaveLength(3);
      free = await slotsNow();
      expect(free.has(day[0]!)).toBe(false);
      expect(free.has(day[1]!)).toBe(true);
      expect(free.has(day[2]!)).toBe(true);
      // Events read by earlier syncs still block.
      expect(free.has(days[1]![0]!)).toBe(false);
    });

    it('reads the whole window again when Google no longer knows the sync token (410), and the busy time is still right', async () => {
      const day = days[6]!;
      google.expireSyncTokens();
      google.addEvent({ id: 'after410', summary: 'Call', start: { dateTime: day[3]! }, end: { dateTime: plus(day[3]!, 30 * 60_000) } });
      google.events.get('new1')!.status = 'cancelled';
      const calls = google.apiCalls.length;
      await syncNow();
      const [incremental, ...full] = lastListPaths(calls);
      expect(incremental!.get('syncToken')).toBeTruthy();
      expect(full.length).toBeGreaterThan(0);
      expect(full[0]!.get('syncToken')).toBeNull();
      expect(full[0]!.get('timeMin')).toBeTruthy();
      const free = await slotsNow();
      expect(free.has(day[3]!)).toBe(false);
      for (const slot of [day[0]!, day[1]!, day[2]!]) expect(free.has(slot), slot).toBe(true);
      expect(free.has(days[1]![0]!)).toBe(false);
      for (const slot of days[2]!) expect(free.has(slot), slot).toBe(false);
      // And from the new token on, incremental again, with nothing changed.
      const answers = google.listAnswers.length;
      await syncNow();
      expect(google.listAnswers.slice(answers)).toEqual([{ syncToken: true, ids: [] }]);
    });

    it('reads the whole window again once the booking window reaches past the full read, or the host changed zones', async () => {
      const remote = h.ctx.calendars.google.open(
        { url: 'primary', username: null, passwordSealed: null, remoteCalendarId: 'primary', connectionUuid },
        { seal: (secret) => secret, open: (sealed) => sealed },
        globalThis.fetch,
        { withAccessToken: (call) => withAccessToken(h.ctx, connectionUuid, call) },
      );
      const range = { from: h.clock.now(), to: h.clock.now() + 30 * 24 * HOUR };
      const first = await remote.readChanges!(null, range, 'UTC');
      expect(first.full).toBe(true);
      expect(await remote.readChanges!(first.state, range, 'UTC')).toMatchObject({ full: false, events: [] });
      // The full read covered twice the window: 31 more days reach past it.
      expect((await remote.readChanges!(first.state, { from: range.from, to: range.to + 31 * 24 * HOUR }, 'UTC')).full).toBe(true);
      // All-day events were placed in UTC: a host now in Warsaw needs them placed again.
      expect((await remote.readChanges!(first.state, range, 'Europe/Warsaw')).full).toBe(true);
    });

    it('says why Google refused a sync (its 403 reason), keeps the busy time, and recovers on the next sync', async () => {
      google.failNextApiCalls(1, 403);
      const failed = (await h.api('POST', `${calendarsPath()}/${calendarUuid}/sync`)).json() as { status: string; lastError: string };
      expect(failed).toMatchObject({ status: 'error', lastError: expect.stringMatching(/HTTP 403 rateLimitExceeded/) });
      expect((await slotsNow()).has(days[1]![0]!)).toBe(false);
      const again = (await h.api('POST', `${calendarsPath()}/${calendarUuid}/sync`)).json() as { status: string; lastError: string | null };
      expect(again).toMatchObject({ status: 'ok', lastError: null });
    });

    it('reads a 403 rateLimitExceeded or userRateLimitExceeded as a rate limit, tried again at the next sync, not as a refusal of access', async () => {
      const remote = h.ctx.calendars.google.open(
        { url: 'primary', username: null, passwordSealed: null, remoteCalendarId: 'primary', connectionUuid },
        { seal: (secret) => secret, open: (sealed) => sealed },
        globalThis.fetch,
        { withAccessToken: (call) => withAccessToken(h.ctx, connectionUuid, call) },
      );
      const range = { from: h.clock.now(), to: h.clock.now() + 30 * 24 * HOUR };
      for (const why of ['rateLimitExceeded', 'userRateLimitExceeded'] as const) {
        google.refuseNextApiCalls(1, why);
        const error = await remote.readChanges!(null, range, 'UTC').then(
          () => null,
          (failure: unknown) => failure,
        );
        expect(error, why).toBeInstanceOf(CalendarUnreachableError);
        expect((error as CalendarUnreachableError).retryable).toBe(true);
        expect((error as Error).message).toMatch(new RegExp(`HTTP 403 ${why}.*rate limited`));
      }
      google.refuseNextApiCalls(1, 'userRateLimitExceeded');
      const failed = (await h.api('POST', `${calendarsPath()}/${calendarUuid}/sync`)).json() as { status: string; lastError: string };
      expect(failed).toMatchObject({ status: 'error', lastError: expect.stringMatching(/rate limited/) });
      expect((await bookings.connectionOf()).status).toBe('connected');
      expect((await slotsNow()).has(days[1]![0]!)).toBe(false);
      expect((await h.api('POST', `${calendarsPath()}/${calendarUuid}/sync`)).json()).toMatchObject({ status: 'ok', lastError: null });
    });

    it('shows a refused Google connection on the calendar, keeping the busy time it had', async () => {
      google.revokeAllGrants();
      google.expireAccessTokens();
      const synced = await h.api('POST', `${calendarsPath()}/${calendarUuid}/sync`);
      expect(synced.statusCode, synced.body).toBe(200);
      const calendar = synced.json() as { status: string; lastError: string };
      expect(calendar.status).toBe('error');
      expect(calendar.lastError).toMatch(/connection does not work.*Connect it again/);
      expect((await slotsNow()).has(days[1]![0]!)).toBe(false);
    });

    it('removes the Google calendars of a connection the host deletes, and their busy time with them', async () => {
      expect((await slotsNow()).has(days[1]![0]!)).toBe(false);
      const removed = await h.api('DELETE', `/api/v1/users/${h.acme.owner.uuid}/connections/${connectionUuid}`);
      expect(removed.statusCode, removed.body).toBe(204);
      expect(((await h.api('GET', calendarsPath())).json() as { calendars: unknown[] }).calendars).toHaveLength(0);
      const free = await slotsNow();
      expect(free.has(days[1]![0]!)).toBe(true);
      expect(free.has(days[6]![3]!)).toBe(true);
      expect((await h.api('GET', `${calendarsPath()}/${calendarUuid}`)).statusCode).toBe(404);
    });

    it('never shows or logs a token', () => {
      const logs = h.logs.join('\n');
      for (const token of google.issuedTokens) {
        expect(logs.includes(token)).toBe(false);
        expect(h.answers.some((body) => body.includes(token))).toBe(false);
      }
    });
  });
}

describe('busy time of Google events', () => {
  const range = { from: Date.parse('2027-03-01T00:00:00Z'), to: Date.parse('2027-03-31T00:00:00Z') };
  it('reads offsets and all-day dates in the host’s zone, and skips cancelled, free, declined and termin’s events', () => {
    const busy = busyOfGoogleEvents(
      [
        { start: { dateTime: '2027-03-01T09:00:00+01:00' }, end: { dateTime: '2027-03-01T10:00:00+01:00' } },
        { start: { date: '2027-03-02' }, end: { date: '2027-03-03' } },
        { status: 'cancelled', start: { dateTime: '2027-03-04T09:00:00Z' }, end: { dateTime: '2027-03-04T10:00:00Z' } },
        { transparency: 'transparent', start: { dateTime: '2027-03-05T09:00:00Z' }, end: { dateTime: '2027-03-05T10:00:00Z' } },
        { attendees: [{ self: true, responseStatus: 'declined' }], start: { dateTime: '2027-03-06T09:00:00Z' }, end: { dateTime: '2027-03-06T10:00:00Z' } },
        { extendedProperties: { private: { termin: 'a@termin' } }, start: { dateTime: '2027-03-07T09:00:00Z' }, end: { dateTime: '2027-03-07T10:00:00Z' } },
        { start: { dateTime: 'not a time' }, end: { dateTime: '2027-03-08T10:00:00Z' } },
        { start: { dateTime: '2027-04-08T09:00:00Z' }, end: { dateTime: '2027-04-08T10:00:00Z' } },
      ],
      range,
      'Europe/Warsaw',
    );
    expect(busy.map((b) => [new Date(b.start).toISOString(), new Date(b.end).toISOString()])).toEqual([
      ['2027-03-01T08:00:00.000Z', '2027-03-01T09:00:00.000Z'],
      ['2027-03-01T23:00:00.000Z', '2027-03-02T23:00:00.000Z'],
    ]);
  });
});
