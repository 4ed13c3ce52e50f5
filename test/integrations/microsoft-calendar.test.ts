import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meetingEventUid } from '../../src/calendars/meeting-event.js';
import { busyOfGraphEvents, COPY_UID_PROPERTY } from '../../src/integrations/microsoft/calendar.js';
import { REQUEST_ID_PROPERTY } from '../../src/integrations/microsoft/client.js';
import { type FakeGoogle, startFakeGoogle } from '../fakes/google.js';
import { type FakeMicrosoft, type GraphEvent, startFakeMicrosoft } from '../fakes/microsoft.js';
import { DIALECTS, createClock, createTestAccount, expectProblem } from '../helpers.js';
import { createRoomBookings, freeSlots, type Harness, type RoomBookings, startHarness } from './harness.js';

/**
 * A host's Outlook calendar on their Microsoft connection, against the stand-in in
 * test/fakes/microsoft.ts: its busy events (over two pages of `calendarView/delta`) block their
 * slots; free, working-elsewhere, cancelled and termin's own events do not; an all-day event
 * blocks the host's day; a calendar other than the default is read at its own path; meetings
 * are written there (one event per meeting, moved and removed with it) except a Teams meeting,
 * whose room's event already is the copy; and a refused connection shows on the calendar.
 */
const HOUR = 3_600_000;

for (const dialect of DIALECTS) {
  // Not shuffled, by design, as zoom.test.ts: the tests are the life of one host's connection
  // in order (app configured, connected, used, broken, reconnected, disconnected), each step
  // on the connection, the stand-in's state and the counts the step before left.
  describe(`Microsoft calendars [${dialect}]`, { shuffle: false }, () => {
    let h: Harness;
    let ms: FakeMicrosoft;
    let google: FakeGoogle;
    let topicUuid: string;
    let connectionUuid: string;
    let googleConnectionUuid: string;
    let calendarUuid: string;
    /** Free slots before any Outlook event, by UTC day. */
    let days: string[][];
    let bookings: RoomBookings;

    const slotsNow = async () => new Set(await freeSlots(h.app, h.acme.owner.username, topicUuid, 150));
    const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
    const calendarsPath = () => `/api/v1/users/${h.acme.owner.uuid}/calendars`;
    const copiesOf = (uuid: string) =>
      [...ms.events.values()].filter((event) => event.singleValueExtendedProperties.some((p) => p.id === COPY_UID_PROPERTY && p.value === meetingEventUid(uuid)));
    const startOf = (event: GraphEvent) => Date.parse(`${event.start.dateTime.slice(0, 19)}Z`);

    beforeAll(async () => {
      const clock = createClock('2027-01-04T06:00:00.000Z');
      ms = await startFakeMicrosoft({ now: clock.now, accountEmail: 'adele@contoso.onmicrosoft.com' });
      google = await startFakeGoogle({ now: clock.now, accountEmail: 'adele@acme-workspace.example' });
      h = await startHarness(dialect, clock, { ...ms.env, ...google.env }, ['teamsForBusiness', 'offline']);
      const topic = await h.api('POST', '/api/v1/meeting-topics', { name: 'Intro call', durationMinutes: 30, places: ['teamsForBusiness', 'offline'], bookingWindowDays: 365 });
      topicUuid = (topic.json() as { uuid: string }).uuid;
      bookings = createRoomBookings(h, 'offline', topicUuid);
      const byDay = new Map<string, string[]>();
      for (const slot of await freeSlots(h.app, h.acme.owner.username, topicUuid, 150)) byDay.set(slot.slice(0, 10), [...(byDay.get(slot.slice(0, 10)) ?? []), slot]);
      days = [...byDay.values()].filter((slots) => slots.length >= 6);
      await h.api('PATCH', '/api/v1/account', {
        integrations: { microsoft: { clientId: ms.clientId, clientSecret: ms.clientSecret }, google: { clientId: google.clientId, clientSecret: google.clientSecret } },
      });
      const connected = await h.connect(h.acme.owner.uuid, 'microsoft', ms);
      expect(connected.callback.statusCode, connected.callback.body).toBe(200);
      connectionUuid = String(connected.started.uuid);
      const viaGoogle = await h.connect(h.acme.owner.uuid, 'google', google);
      expect(viaGoogle.callback.statusCode, viaGoogle.callback.body).toBe(200);
      googleConnectionUuid = String(viaGoogle.started.uuid);
    }, 60_000);

    afterAll(async () => {
      await h?.close();
      await ms?.close();
      await google?.close();
    });

    it('refuses a Microsoft calendar without the host’s own Microsoft connection, at /connection, storing nothing', async () => {
      const missing = await h.api('POST', calendarsPath(), { type: 'microsoft', calendarId: 'primary' });
      expect(expectProblem(missing, 400, 'VALIDATION_FAILED').errors?.map((e) => e.path)).toEqual(['/connection']);
      const otherProvider = await h.api('POST', calendarsPath(), { type: 'microsoft', connection: googleConnectionUuid });
      expect(expectProblem(otherProvider, 400, 'VALIDATION_FAILED').errors?.map((e) => e.path)).toEqual(['/connection']);
      const stranger = await createTestAccount(h.ctx);
      const foreign = await h.api('POST', `/api/v1/users/${stranger.owner.uuid}/calendars`, { type: 'microsoft', connection: connectionUuid }, stranger.apiKey);
      expect(expectProblem(foreign, 400, 'VALIDATION_FAILED').errors?.map((e) => e.path)).toEqual(['/connection']);
      const withPassword = await h.api('POST', calendarsPath(), { type: 'microsoft', connection: connectionUuid, password: 'secret' });
      expect(expectProblem(withPassword, 400, 'VALIDATION_FAILED').errors?.map((e) => e.path)).toEqual(['/password']);
      const badId = await h.api('POST', calendarsPath(), { type: 'microsoft', connection: connectionUuid, calendarId: '../../users/ceo' });
      expect(expectProblem(badId, 400, 'VALIDATION_FAILED').errors?.map((e) => e.path)).toEqual(['/calendarId']);
      expect(((await h.api('GET', calendarsPath())).json() as { calendars: unknown[] }).calendars).toHaveLength(0);
    });

    it('blocks the slots of the host’s busy Outlook events, read over two pages, and not those of free, working-elsewhere, cancelled or termin’s own', async () => {
      const [day, allDay] = [days[1]!, days[2]!];
      // 510 free events first: the busy ones come on the second page of calendarView.
      for (let i = 0; i < 510; i += 1) {
        ms.addEvent({ id: `filler${i}`, subject: 'Focus', start: plus(day[0]!, -2 * HOUR), end: plus(day[0]!, -HOUR), showAs: 'free' });
      }
      ms.addEvent({ id: 'dentist1', subject: 'Dentist', start: day[0]!, end: plus(day[0]!, 30 * 60_000), showAs: 'busy' });
      ms.addEvent({ id: 'tentative1', subject: 'Maybe', start: day[5]!, end: plus(day[5]!, 30 * 60_000), showAs: 'tentative' });
      ms.addEvent({ id: 'focus1', subject: 'Focus', start: day[1]!, end: plus(day[1]!, 30 * 60_000), showAs: 'free' });
      ms.addEvent({ id: 'elsewhere1', subject: 'Home office', start: day[2]!, end: plus(day[2]!, 30 * 60_000), showAs: 'workingElsewhere' });
      ms.addEvent({ id: 'cancelled1', subject: 'Canceled: Board', start: day[3]!, end: plus(day[3]!, 30 * 60_000), isCancelled: true });
      ms.addEvent({
        id: 'termin1',
        subject: 'Intro call: someone',
        start: day[4]!,
        end: plus(day[4]!, 30 * 60_000),
        // As termin makes a Teams room's event; a delta read shows only the transactionId.
        singleValueExtendedProperties: [{ id: REQUEST_ID_PROPERTY, value: 'x' }],
        transactionId: 'termin-x',
      });
      ms.addEvent({ id: 'offsite1', subject: 'Offsite', start: allDay[0]!.slice(0, 10), end: plus(allDay[0]!, 24 * HOUR).slice(0, 10), isAllDay: true });

      const added = await h.api('POST', calendarsPath(), { type: 'microsoft', connection: connectionUuid, calendarId: 'primary', checkConflicts: true, writeMeetings: true });
      expect(added.statusCode, added.body).toBe(201);
      const calendar = added.json() as { uuid: string };
      expect(calendar).toMatchObject({ type: 'microsoft', url: 'microsoft:primary', status: 'ok', lastError: null, writeMeetings: true });
      calendarUuid = calendar.uuid;
      const views = ms.apiCalls.filter((c) => c.method === 'GET' && c.path.startsWith('/v1.0/me/calendarView/delta?'));
      expect(views).toHaveLength(2);
      expect(new URL(views[0]!.path, 'http://x').searchParams.get('startDateTime')).not.toBeNull();
      expect(new URL(views[1]!.path, 'http://x').searchParams.get('$skiptoken')).not.toBeNull();

      const free = await slotsNow();
      expect(free.has(day[0]!)).toBe(false);
      expect(free.has(day[5]!)).toBe(false);
      for (const slot of [day[1]!, day[2]!, day[3]!, day[4]!]) expect(free.has(slot), slot).toBe(true);
      for (const slot of allDay) expect(free.has(slot), slot).toBe(false);
      expect(free.has(days[3]![0]!)).toBe(true);
    });

    it('reads a calendar other than the default at its own path, and says when there is no such calendar', async () => {
      ms.addCalendar('AAMkAGVmMDEz-team_2=');
      ms.addEvent({ id: 'team1', calendarId: 'AAMkAGVmMDEz-team_2=', subject: 'Team day', start: days[5]![0]!, end: plus(days[5]![0]!, HOUR) });
      const team = await h.api('POST', calendarsPath(), { type: 'microsoft', connection: connectionUuid, calendarId: 'AAMkAGVmMDEz-team_2=' });
      expect(team.statusCode, team.body).toBe(201);
      expect(team.json()).toMatchObject({ status: 'ok', url: 'microsoft:AAMkAGVmMDEz-team_2=' });
      expect(ms.apiCalls.some((c) => c.path.startsWith(`/v1.0/me/calendars/${encodeURIComponent('AAMkAGVmMDEz-team_2=')}/calendarView/delta?`))).toBe(true);
      expect((await slotsNow()).has(days[5]![0]!)).toBe(false);
      const unknown = await h.api('POST', calendarsPath(), { type: 'microsoft', connection: connectionUuid, calendarId: 'AAMkNoSuchCalendar=' });
      expect(unknown.statusCode, unknown.body).toBe(201);
      expect(unknown.json()).toMatchObject({ status: 'error', lastError: expect.stringMatching(/no such calendar/) });
      for (const created of [team, unknown]) {
        expect((await h.api('DELETE', `${calendarsPath()}/${(created.json() as { uuid: string }).uuid}`)).statusCode).toBe(204);
      }
      expect((await slotsNow()).has(days[5]![0]!)).toBe(true);
    });

    it('writes a booked meeting into the Outlook calendar once, moves and removes it, and never counts it as busy', async () => {
      const [start, moved] = [days[3]![1]!, days[3]![4]!];
      const uuid = await bookings.book({ start, place: 'offline' });
      await h.runJobs();
      const [copy, ...more] = copiesOf(uuid);
      expect(more).toHaveLength(0);
      expect(copy).toMatchObject({ subject: 'Intro call: Guest 1', calendarId: 'primary', attendees: [], isOnlineMeeting: false, showAs: 'busy' });
      expect(startOf(copy!)).toBe(Date.parse(start));
      expect((await h.api('POST', `/api/v1/meetings/${uuid}/reschedule`, { start: moved })).statusCode).toBe(200);
      await h.runJobs();
      const again = copiesOf(uuid);
      expect(again.map((event) => event.id)).toEqual([copy!.id]);
      expect(startOf(again[0]!)).toBe(Date.parse(moved));

      // Cancelled in termin, its copy not yet removed from Outlook: the sync reads the copy and does not count it.
      expect((await h.api('POST', `/api/v1/meetings/${uuid}/cancel`, {})).statusCode).toBe(200);
      expect((await h.api('POST', `${calendarsPath()}/${calendarUuid}/sync`)).json()).toMatchObject({ status: 'ok' });
      expect((await slotsNow()).has(moved)).toBe(true);
      await h.runJobs();
      expect(copiesOf(uuid)).toHaveLength(0);
      expect(ms.events.has(copy!.id)).toBe(false);
    });

    it('finds the copy Graph made when its answer was lost, instead of writing a second one', async () => {
      ms.dropNextApiAnswers(1, 'POST');
      const uuid = await bookings.book({ start: days[5]![3]!, place: 'offline' });
      await h.runJobs();
      expect(copiesOf(uuid)).toHaveLength(1);
      const calendarOf = async () => (await h.api('GET', `${calendarsPath()}/${calendarUuid}`)).json() as { lastWriteError: string | null };
      expect((await calendarOf()).lastWriteError).not.toBeNull();
      for (let i = 0; i < 6 && (await calendarOf()).lastWriteError !== null; i += 1) {
        h.clock.advance(60_000);
        await h.runJobs();
      }
      expect((await calendarOf()).lastWriteError).toBeNull();
      expect(copiesOf(uuid)).toHaveLength(1);
      expect(startOf(copiesOf(uuid)[0]!)).toBe(Date.parse(days[5]![3]!));
    });

    it('says when Graph is unavailable, keeps the busy time, and recovers on the next sync', async () => {
      ms.failNextApiCalls(1, 503);
      const failed = (await h.api('POST', `${calendarsPath()}/${calendarUuid}/sync`)).json() as { status: string; lastError: string };
      expect(failed).toMatchObject({ status: 'error', lastError: expect.stringMatching(/Microsoft read the calendar: HTTP 503/) });
      expect((await slotsNow()).has(days[1]![0]!)).toBe(false);
      expect((await h.api('POST', `${calendarsPath()}/${calendarUuid}/sync`)).json()).toMatchObject({ status: 'ok', lastError: null });
    });

    it('keeps a Teams meeting to its one event: the room’s event is the calendar copy', async () => {
      const uuid = await bookings.book({ start: days[4]![0]!, place: 'teamsForBusiness' });
      await h.runJobs();
      const location = ((await h.api('GET', `/api/v1/meetings/${uuid}`)).json() as { location: { url: string | null } }).location;
      expect(location.url).toMatch(/^https:\/\/teams\.microsoft\.com\//);
      const events = [...ms.events.values()].filter((event) => event.subject === `Intro call: Guest ${bookings.participant}`);
      expect(events).toHaveLength(1);
      expect(events[0]!.isOnlineMeeting).toBe(true);
      expect(copiesOf(uuid)).toHaveLength(0);
      // Cancelled in termin, its room's event not yet deleted at Microsoft: that event blocks nothing.
      expect((await h.api('POST', `/api/v1/meetings/${uuid}/cancel`, {})).statusCode).toBe(200);
      expect((await h.api('POST', `${calendarsPath()}/${calendarUuid}/sync`)).json()).toMatchObject({ status: 'ok' });
      expect((await slotsNow()).has(days[4]![0]!)).toBe(true);
      await h.runJobs();
      expect(ms.events.has(events[0]!.id)).toBe(false);
    });

    const syncNow = async () => {
      const synced = await h.api('POST', `${calendarsPath()}/${calendarUuid}/sync`);
      expect(synced.json(), synced.body).toMatchObject({ status: 'ok', lastError: null });
    };
    const deltaCalls = (since: number) =>
      ms.apiCalls
        .slice(since)
        .filter((c) => c.method === 'GET' && c.path.startsWith('/v1.0/me/calendarView/delta?'))
        .map((c) => new URL(c.path, 'http://x').searchParams);

    it('follows the delta link on the next sync and gets only the changes: a new busy event blocks, a deleted or cancelled one frees its time', async () => {
      const day = days[6]!;
      ms.addEvent({ id: 'gone1', subject: 'Lunch', start: day[1]!, end: plus(day[1]!, 30 * 60_000) });
      ms.addEvent({ id: 'cancel1', subject: 'Review', start: day[2]!, end: plus(day[2]!, 30 * 60_000) });
      await syncNow();
      let free = await slotsNow();
      expect(free.has(day[1]!)).toBe(false);
      expect(free.has(day[2]!)).toBe(false);

      const calls = ms.apiCalls.length;
      const answers = ms.deltaAnswers.length;
      ms.addEvent({ id: 'new1', subject: 'Dentist', start: day[0]!, end: plus(day[0]!, 30 * 60_000) });
      ms.events.delete('gone1');
      ms.events.get('cancel1')!.isCancelled = true;
      await syncNow();
      const [query, ...more] = deltaCalls(calls);
      expect(more).toHaveLength(0);
      expect(query!.get('$deltatoken')).toBeTruthy();
      expect(ms.deltaAnswers.slice(answers)).toEqual([{ incremental: true, ids: expect.arrayContaining(['new1', 'gone1', 'cancel1']) }]);
      expect(ms.deltaAnswers.at(-1)!.ids).toHaveLength(3);
      free = await slotsNow();
      expect(free.has(day[0]!)).toBe(false);
      expect(free.has(day[1]!)).toBe(true);
      expect(free.has(day[2]!)).toBe(true);
      expect(free.has(days[1]![0]!)).toBe(false);
    });

    it('starts a new delta round when Graph no longer knows the delta token (410 syncStateNotFound), and the busy time is still right', async () => {
      const day = days[6]!;
      ms.expireDeltaTokens();
      ms.addEvent({ id: 'after410', subject: 'Call', start: day[3]!, end: plus(day[3]!, 30 * 60_000) });
      ms.events.delete('new1');
      const calls = ms.apiCalls.length;
      await syncNow();
      const [incremental, ...full] = deltaCalls(calls);
      expect(incremental!.get('$deltatoken')).toBeTruthy();
      expect(full.length).toBeGreaterThan(0);
      expect(full[0]!.get('startDateTime')).toBeTruthy();
      const free = await slotsNow();
      expect(free.has(day[3]!)).toBe(false);
      for (const slot of [day[0]!, day[1]!, day[2]!]) expect(free.has(slot), slot).toBe(true);
      expect(free.has(days[1]![0]!)).toBe(false);
      for (const slot of days[2]!) expect(free.has(slot), slot).toBe(false);
      const answers = ms.deltaAnswers.length;
      await syncNow();
      expect(ms.deltaAnswers.slice(answers)).toEqual([{ incremental: true, ids: [] }]);
    });

    it('shows a refused Microsoft connection on the calendar, keeping the busy time it had', async () => {
      ms.revokeAllGrants();
      ms.expireAccessTokens();
      const synced = await h.api('POST', `${calendarsPath()}/${calendarUuid}/sync`);
      expect(synced.statusCode, synced.body).toBe(200);
      const calendar = synced.json() as { status: string; lastError: string };
      expect(calendar.status).toBe('error');
      expect(calendar.lastError).toMatch(/connection does not work.*Connect it again/);
      expect((await h.api('GET', `${calendarsPath()}/${calendarUuid}`)).json()).toMatchObject({ status: 'error', lastError: calendar.lastError });
      expect((await slotsNow()).has(days[1]![0]!)).toBe(false);
    });

    it('removes the Microsoft calendars of a connection the host deletes, and their busy time with them', async () => {
      expect((await slotsNow()).has(days[1]![0]!)).toBe(false);
      const removed = await h.api('DELETE', `/api/v1/users/${h.acme.owner.uuid}/connections/${connectionUuid}`);
      expect(removed.statusCode, removed.body).toBe(204);
      const left = ((await h.api('GET', calendarsPath())).json() as { calendars: { type: string }[] }).calendars;
      expect(left.filter((calendar) => calendar.type === 'microsoft')).toHaveLength(0);
      const free = await slotsNow();
      expect(free.has(days[1]![0]!)).toBe(true);
      expect(free.has(days[6]![3]!)).toBe(true);
    });

    it('never shows or logs a token', () => {
      const logs = h.logs.join('\n');
      for (const token of ms.issuedTokens) {
        expect(logs.includes(token)).toBe(false);
        expect(h.answers.some((body) => body.includes(token))).toBe(false);
      }
    });
  });
}

describe('busy time of Graph events', () => {
  const range = { from: Date.parse('2027-03-01T00:00:00Z'), to: Date.parse('2027-03-31T00:00:00Z') };
  const at = (day: string) => ({ start: { dateTime: `2027-03-${day}T09:00:00.0000000`, timeZone: 'UTC' }, end: { dateTime: `2027-03-${day}T10:00:00.0000000`, timeZone: 'UTC' } });
  it('reads UTC times and all-day dates in the host’s zone, and skips free, working-elsewhere, cancelled, declined and termin’s events', () => {
    const busy = busyOfGraphEvents(
      [
        { showAs: 'busy', ...at('01') },
        { showAs: 'busy', isAllDay: true, start: { dateTime: '2027-03-02T00:00:00.0000000', timeZone: 'UTC' }, end: { dateTime: '2027-03-03T00:00:00.0000000', timeZone: 'UTC' } },
        { showAs: 'free', ...at('04') },
        { showAs: 'workingElsewhere', ...at('05') },
        { showAs: 'busy', isCancelled: true, ...at('06') },
        { showAs: 'busy', responseStatus: { response: 'declined' }, ...at('07') },
        { showAs: 'busy', singleValueExtendedProperties: [{ id: COPY_UID_PROPERTY, value: 'a@termin' }], ...at('08') },
        { showAs: 'oof', start: { dateTime: '2027-03-09T09:00:00', timeZone: 'Europe/Warsaw' }, end: { dateTime: '2027-03-09T10:00:00', timeZone: 'Europe/Warsaw' } },
        { showAs: 'busy', start: { dateTime: 'not a time', timeZone: 'UTC' }, end: at('10').end },
        { showAs: 'busy', ...at('10'), start: { dateTime: '2027-04-10T09:00:00.0000000', timeZone: 'UTC' }, end: { dateTime: '2027-04-10T10:00:00.0000000', timeZone: 'UTC' } },
      ],
      range,
      'Europe/Warsaw',
    );
    expect(busy.map((b) => [new Date(b.start).toISOString(), new Date(b.end).toISOString()])).toEqual([
      ['2027-03-01T09:00:00.000Z', '2027-03-01T10:00:00.000Z'],
      ['2027-03-01T23:00:00.000Z', '2027-03-02T23:00:00.000Z'],
      ['2027-03-09T08:00:00.000Z', '2027-03-09T09:00:00.000Z'],
    ]);
  });
});
