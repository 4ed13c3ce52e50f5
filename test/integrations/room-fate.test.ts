import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createContext } from '../../src/context.js';
import { newId } from '../../src/ids.js';
import { createEventDispatcher } from '../../src/scheduling/dispatch-event.js';
import { createConferenceRoomHandler } from '../../src/scheduling/integrations/rooms.js';
import { runDueJobs } from '../../src/outbox/worker.js';
import { type FakeZoom, startFakeZoom } from '../fakes/zoom.js';
import { startResponseGate } from '../fakes/response-gate.js';
import { DIALECTS, createClock } from '../helpers.js';
import { createRoomBookings, freeSlots, type Harness, type RoomBookings, startHarness } from './harness.js';

/**
 * What becomes of a meeting's room job when the provider will not make the room now, against
 * the Zoom stand-in (test/fakes/zoom.ts), on both databases: a 429 with `Retry-After` is
 * waited out; an attempt that stalled before asking Zoom cannot overwrite the room another
 * instance made meanwhile; waiting out another attempt's lease is no failed attempt.
 */

for (const dialect of DIALECTS) {
  describe(`the room job's fate [${dialect}]`, { shuffle: false }, () => {
    let h: Harness;
    let zoom: FakeZoom;
    let bookings: RoomBookings;
    const title = (n: number) => `Intro call: Guest ${n}`;
    const owner = () => h.acme.owner;
    const mailsOf = (n: number) => bookings.mailsTo(`guest${n}@example.com`);
    const creates = (n?: number) =>
      zoom.apiCalls.filter((call) => call.method === 'POST' && call.path === '/v2/users/me/meetings' && (n === undefined || (call.body as { topic: string }).topic === title(n)));
    const roomsOf = (n: number) => [...zoom.meetings.values()].filter((meeting) => meeting.topic === title(n));
    const book = async () => ({ uuid: await bookings.book(), n: bookings.participant });
    /** The meeting's `conference-room` jobs (not its confirmations' deadline) as the outbox holds them. */
    const roomJobs = (uuid: string) =>
      h.ctx.db
        .selectFrom('outbox')
        .select(['status', 'attempts', 'next_attempt_at'])
        .where('kind', '=', 'conference-room')
        .where('payload', 'like', `%${uuid}%`)
        .where('payload', 'not like', '%deadline%')
        .execute();

    beforeAll(async () => {
      const clock = createClock('2027-01-04T06:00:00.000Z');
      zoom = await startFakeZoom({ now: clock.now, accountEmail: 'olga@zoom.example' });
      h = await startHarness(dialect, clock, zoom.env, ['zoom', 'offline']);
      const saved = await h.api('PATCH', '/api/v1/account', { integrations: { zoom: { clientId: zoom.clientId, clientSecret: zoom.clientSecret } } });
      if (saved.statusCode !== 200) throw new Error(saved.body);
      const { callback } = await h.connect(owner().uuid, 'zoom', zoom);
      if (callback.statusCode !== 200) throw new Error(callback.body);
      const topic = await h.api('POST', '/api/v1/meeting-topics', { name: 'Intro call', durationMinutes: 30, places: ['zoom', 'offline'], bookingWindowDays: 365 });
      const topicUuid = (topic.json() as { uuid: string }).uuid;
      // Days ahead: the clock moves by hours here, and every booking must stay in the future.
      const slots = await freeSlots(h.app, owner().username, topicUuid, 80);
      bookings = createRoomBookings(h, 'zoom', topicUuid, slots.slice(40));
    }, 60_000);

    afterAll(async () => {
      await h?.close();
      await zoom?.close();
    });

    afterEach(() => {
      zoom.failNextApiCalls(0, 500);
    });

    it('waits out a 429’s Retry-After before asking Zoom again, instead of spending the retries inside the limit window', async () => {
      // Zoom's daily limit on meeting create/update calls per user; Retry-After in seconds (RFC 9110 §10.2.3).
      zoom.failNextApiCalls(1, 429, { 'retry-after': '3600' });
      const { uuid, n } = await book();
      await h.runJobs();
      expect(creates(n)).toHaveLength(1);
      const calls = zoom.apiCalls.length;

      h.clock.advance(30 * 60_000);
      await h.runJobs();
      expect(zoom.apiCalls.length).toBe(calls);
      expect((await bookings.meeting(uuid)).location.url).toBeNull();

      h.clock.advance(31 * 60_000);
      await h.runJobs();
      expect(creates(n)).toHaveLength(2);
      expect(roomsOf(n)).toHaveLength(1);
      expect((await bookings.meeting(uuid)).location.url).toBe(roomsOf(n)[0]!.join_url);
      // The 429 was one attempt; the wait inside its window none.
      expect(await roomJobs(uuid)).toEqual([expect.objectContaining({ status: 'done', attempts: 2 })]);
    });

    it('does not count waiting out another attempt’s room lease as a failed attempt', async () => {
      const { uuid, n } = await book();
      // Another instance has just recorded that it is making this meeting's room.
      const since = h.clock.now();
      await h.ctx.db
        .insertInto('meeting_rooms')
        .values({
          meeting_id: uuid,
          connection_id: String((await bookings.connectionOf()).uuid),
          provider: 'zoom',
          status: 'creating',
          request_id: newId(since),
          room_id: null,
          join_url: null,
          conference_id: null,
          password: null,
          room_start: null,
          room_end: null,
          created_at: since,
          updated_at: since,
        })
        .execute();
      for (let wait = 0; wait < 4; wait += 1) {
        await h.runJobs();
        expect(await roomJobs(uuid), `wait ${wait}`).toEqual([expect.objectContaining({ status: 'pending', attempts: 0 })]);
        expect(creates(n)).toHaveLength(0);
        h.clock.advance(15_000);
      }
      // Its lease over, the record is taken over (its room looked for by its request, none found) and the room made.
      h.clock.advance(1_000);
      await h.runJobs();
      expect(roomsOf(n)).toHaveLength(1);
      expect((await bookings.meeting(uuid)).location.url).toBe(roomsOf(n)[0]!.join_url);
      expect(await roomJobs(uuid)).toEqual([expect.objectContaining({ status: 'done', attempts: 1 })]);
    });

    it('keeps the room another instance made while this one stalled before asking Zoom: its own late room deleted, one link to the participant', async () => {
      const gate = await startResponseGate(zoom.baseUrl);
      const config = h.database.config;
      const stalled = await createContext(
        { ...config, integrations: { ...config.integrations, zoom: { ...config.integrations.zoom, api: gate.baseUrl.replace(/\/$/, '') } } },
        { now: h.clock.now, log: pino({ level: 'silent' }) },
      );
      try {
        const { uuid, n } = await book();
        gate.holdRequests();
        // The stalled instance fans the booking out, records "creating", and is frozen before Zoom hears of it.
        const late = runDueJobs({ db: stalled.db, handlers: [createEventDispatcher(stalled), createConferenceRoomHandler(stalled)], log: stalled.log, now: h.clock.now });
        await expect.poll(() => gate.held, { timeout: 10_000 }).toBe(1);

        // A minute on, the other instance takes the job over (its lease and the record's ended) and makes room A.
        h.clock.advance(61_000);
        await h.runJobs();
        const [roomA] = roomsOf(n);
        expect(roomA).toBeDefined();
        expect((await bookings.meeting(uuid)).location.url).toBe(roomA!.join_url);
        expect(mailsOf(n)).toHaveLength(1);

        // The stalled instance wakes: Zoom makes room B for it, which it must not store over A.
        gate.pass();
        gate.release();
        await late;
        await h.runJobs();

        expect(creates(n)).toHaveLength(2);
        expect(roomsOf(n).map((room) => room.id)).toEqual([roomA!.id]);
        const deleted = zoom.apiCalls.filter((call) => call.method === 'DELETE' && call.path.startsWith('/v2/meetings/'));
        expect(deleted).toHaveLength(1);
        expect(deleted[0]!.path).not.toContain(String(roomA!.id));
        expect((await bookings.meeting(uuid)).location.url).toBe(roomA!.join_url);
        expect(mailsOf(n)).toHaveLength(1);
        expect(mailsOf(n)[0]!.text).toContain(roomA!.join_url);
      } finally {
        await gate.close();
        await stalled.close();
      }
    });
  });
}
