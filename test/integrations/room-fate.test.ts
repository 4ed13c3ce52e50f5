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
 * What becomes of a meeting's room job when the provider will not make the room now, or ever,
 * against the Zoom stand-in (test/fakes/zoom.ts), on both databases: a final refusal (a 400 to
 * the create) is shown on the meeting and told once; a 429 with `Retry-After` is waited out;
 * an attempt that stalled before asking Zoom cannot overwrite the room another instance made
 * meanwhile; waiting out another attempt's lease is no failed attempt; and a host whose
 * connection broke gets one "no link yet" e-mail, then a digest, however many bookings come.
 */

const HOUR = 3_600_000;

for (const dialect of DIALECTS) {
  describe(`the room job's fate [${dialect}]`, { shuffle: false }, () => {
    let h: Harness;
    let zoom: FakeZoom;
    let bookings: RoomBookings;
    const title = (n: number) => `Intro call: Guest ${n}`;
    const owner = () => h.acme.owner;
    const mailsOf = (n: number) => bookings.mailsTo(`guest${n}@example.com`);
    const hostMails = (subject: RegExp) => h.sent.filter((mail) => mail.to.email === owner().email && subject.test(mail.subject));
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

    it('takes a 400 to the create as final: the location failed with its reason, the host told once, meeting.location_failed, the participant confirmed saying the host sends the link, no retry', async () => {
      // Zoom's "Create a meeting" answers 400 (code 300) for a request it will never accept: a retry sends the same.
      zoom.failNextApiCalls(1, 400);
      const { uuid, n } = await book();
      await h.runJobs();

      const meeting = await bookings.meeting(uuid);
      expect(meeting.status).toBe('confirmed');
      expect(meeting.location).toMatchObject({ place: 'zoom', url: null, status: 'failed', reason: expect.stringMatching(/Zoom .*HTTP 400/) });
      const failed = h.webhookEvents('meeting.location_failed');
      expect(failed.map((event) => (event.data as { uuid: string }).uuid)).toEqual([uuid]);
      expect((failed[0]!.data as { location: unknown }).location).toMatchObject({ status: 'failed', reason: meeting.location.reason });
      expect(hostMails(/^No Zoom room for a meeting/)).toHaveLength(1);
      expect(hostMails(/^No Zoom room for a meeting/)[0]!.text).toContain(`/app/meetings/${uuid}`);
      // The participant is not kept waiting 10 minutes for a link that will not come.
      expect(mailsOf(n)).toHaveLength(1);
      expect(mailsOf(n)[0]!.text).toMatch(/will send you the link to join/);
      expect(mailsOf(n)[0]!.text).not.toMatch(/link .*follow/i);

      // A second refusal within the hour: its own webhook, but no second e-mail to the host yet.
      zoom.failNextApiCalls(1, 400);
      const second = await book();
      await h.runJobs();
      expect((await bookings.meeting(second.uuid)).location).toMatchObject({ status: 'failed' });
      expect(h.webhookEvents('meeting.location_failed')).toHaveLength(2);
      expect(mailsOf(second.n)[0]!.text).toMatch(/will send you the link to join/);
      expect(hostMails(/^No Zoom room/)).toHaveLength(1);

      // No retries: hours later Zoom was asked once per meeting, and nobody heard anything more.
      h.clock.advance(2 * HOUR);
      await h.runJobs();
      expect(creates(n)).toHaveLength(1);
      expect(creates(second.n)).toHaveLength(1);
      expect(roomsOf(n)).toHaveLength(0);
      expect(mailsOf(n)).toHaveLength(1);
      expect(h.webhookEvents('meeting.location_failed')).toHaveLength(2);
      for (const job of [...(await roomJobs(uuid)), ...(await roomJobs(second.uuid))]) expect(job).toMatchObject({ status: 'done', attempts: 1 });
      // The hour over, one digest names the meetings that still have no link.
      const digests = hostMails(/^No Zoom room for \d+ meetings/);
      expect(digests).toHaveLength(1);
      expect(digests[0]!.text).toContain(`Guest ${second.n}`);
      expect(hostMails(/^No Zoom room/)).toHaveLength(2);
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

    it('takes a 400 to the room’s move as final too: the room and its link kept, the location failed with its reason, until a move Zoom takes', async () => {
      const { uuid } = await book();
      await h.runJobs();
      const link = (await bookings.meeting(uuid)).location.url;
      expect(link).toMatch(/zoom\.us/);
      const patches = () => zoom.apiCalls.filter((call) => call.method === 'PATCH').length;
      const before = patches();

      zoom.failNextApiCalls(1, 400);
      expect((await h.api('POST', `/api/v1/meetings/${uuid}/reschedule`, { start: bookings.nextSlot() })).statusCode).toBe(200);
      await h.runJobs();
      expect((await bookings.meeting(uuid)).location).toMatchObject({ url: link, status: 'failed', reason: expect.stringMatching(/Zoom move a meeting: HTTP 400/) });
      expect(h.webhookEvents('meeting.location_failed').filter((event) => (event.data as { uuid: string }).uuid === uuid)).toHaveLength(1);
      h.clock.advance(HOUR);
      await h.runJobs();
      expect(patches()).toBe(before + 1);

      // The next move is asked of Zoom again, and once it is made the location is whole again.
      expect((await h.api('POST', `/api/v1/meetings/${uuid}/reschedule`, { start: bookings.nextSlot() })).statusCode).toBe(200);
      await h.runJobs();
      expect(patches()).toBe(before + 2);
      const location = (await bookings.meeting(uuid)).location;
      expect(location.url).toBe(link);
      expect(location).not.toHaveProperty('status');
      expect(location).not.toHaveProperty('reason');
    });

    it('tells a host whose connection broke once, then in one digest, however many meetings are booked meanwhile; each participant is confirmed', async () => {
      zoom.revokeAllGrants();
      zoom.expireAccessTokens();
      await book();
      await h.runJobs();
      expect((await bookings.connectionOf()).status).toBe('error');
      const noLinkYet = /^A meeting at zoom has no link yet: connect zoom/;
      const digest = /^\d+ meetings at zoom have no link yet: connect zoom/;

      const booked: { uuid: string; n: number }[] = [];
      for (let i = 0; i < 20; i += 1) booked.push(await book());
      await h.runJobs();
      expect(hostMails(noLinkYet)).toHaveLength(1);
      expect(hostMails(digest)).toHaveLength(0);
      for (const { n } of booked) {
        expect(mailsOf(n), `guest ${n}`).toHaveLength(1);
        expect(mailsOf(n)[0]!.text).toMatch(/link .*follow/i);
      }

      h.clock.advance(HOUR + 1_000);
      await h.runJobs();
      expect(hostMails(noLinkYet)).toHaveLength(1);
      expect(hostMails(digest)).toHaveLength(1);
      const [sent] = hostMails(digest);
      expect(sent!.subject).toMatch(/^2\d meetings/);
      for (const { n } of booked) expect(sent!.text).toContain(`Guest ${n}`);
      h.clock.advance(HOUR + 1_000);
      await h.runJobs();
      expect(hostMails(digest)).toHaveLength(1);
    });
  });
}
