import { expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import { withAccessToken } from '../../src/scheduling/integrations/provider-access.js';
import { type FakeWebex, startFakeWebex, type WebexMeeting } from '../fakes/webex.js';
import { describeRoomProvider } from './room-conformance.js';

const MINUTE = 60_000;

/**
 * Webex through the room-provider conformance suite (room-conformance.ts), against the stand-in
 * in test/fakes/webex.ts: the Integration's credentials in the form body, PKCE, a refresh
 * token sent again with every refresh, errors in Webex's own shape, no revocation endpoint; a
 * meeting per booking whose link, number and password reach the e-mails, moved with one PATCH
 * of its times, its request id its integration tag, by which a lost answer's meeting is found
 * among the host's scheduled meetings (Webex takes no idempotency key), gone (410) once deleted.
 */
describeRoomProvider<FakeWebex, WebexMeeting>({
  provider: 'webex',
  label: 'Webex',
  product: 'Webex',
  place: 'webex',
  accountEmail: 'olga@acme.webex.example',
  // Access tokens of an hour, not Webex's 14 days, so that the suite's clock outruns one.
  startStandIn: (options) => startFakeWebex({ ...options, accessTokenSeconds: 3600 }),
  settings: (webex) => ({ clientId: webex.clientId }),
  authorize: (webex) => ({ endpoint: webex.env.WEBEX_AUTHORIZE_URL!, params: { scope: 'spark:people_read meeting:schedules_read meeting:schedules_write' } }),
  accountRead: 'GET /v1/people/me',
  link: /webex\.com/,
  mailed: ['url', 'conferenceId', 'password'],
  rooms: (webex) =>
    [...webex.meetings.values()].map((meeting) => ({
      id: meeting.id,
      title: meeting.title,
      start: Date.parse(meeting.start),
      end: Date.parse(meeting.end),
      location: { url: meeting.webLink, conferenceId: meeting.meetingNumber, password: meeting.password },
      cancelled: false,
      raw: meeting,
    })),
  roomPath: (id) => `/v1/meetings/${id}`,
  moveMethod: 'PATCH',
  createdTitle: (call) => (call.method === 'POST' && call.path === '/v1/meetings' ? (call.body as { title: string }).title : undefined),
  // Found by its integration tag, as the List Meetings reference offers ("to query meetings by a key in its own domain").
  lookup: (room) => (call) =>
    call.method === 'GET' && call.path.startsWith('/v1/meetings?') && new URL(call.path, 'http://x').searchParams.get('integrationTag') === room.raw.integrationTags[0],
  checkRoom(meeting) {
    expect(meeting.enabledAutoRecordMeeting).toBe(false);
    // The room's request id, recorded before the call: Webex's integration tag.
    expect(meeting.integrationTags).toEqual([expect.stringMatching(/^[0-9a-f-]{36}$/)]);
  },
  removeAtProvider: (webex, id) => webex.deleteMeeting(id),
  idempotentCreate: false,
  keepsDeletedRooms: false,
  revokes: false,
  // Webex's token endpoint says it inside a message of its own shape.
  grantRefused: /Webex refused.*invalid_grant/,
  specific: {
    rooms: (f) => {
      it('asks Webex for its shortest meeting, 10 minutes, for a 5-minute topic, and keeps the meeting’s own 5 minutes everywhere else', async () => {
        const { h, fake: webex } = f;
        const topic = (await h.api('POST', '/api/v1/meeting-topics', { name: 'Quick check', durationMinutes: 5, places: ['webex'], bookingWindowDays: 365 })).json() as {
          uuid: string;
        };
        // Far past the slots the story books, so that none of them is taken.
        const schedule = await h.api('POST', '/api/v1/calculate-schedule', { username: h.acme.owner.username, meetingTopic: topic.uuid, timezone: 'UTC', offset: 119 }, null);
        const start = (schedule.json() as { days: { slots: { start: string }[] }[] }).days.flatMap((day) => day.slots)[0]!.start;
        const booked = await h.api('POST', '/api/v1/schedule', {
          dates: [{ start, username: h.acme.owner.username }],
          email: 'quick@example.com',
          lang: 'en',
          name: 'Quick Guest',
          place: 'webex',
          meetingTopic: topic.uuid,
          timezone: 'UTC',
        });
        expect(booked.statusCode, booked.body).toBe(201);
        const uuid = (booked.json() as { meetings: { uuid: string }[] }).meetings[0]!.uuid;
        await h.runJobs();
        const made = [...webex.meetings.values()].filter((meeting) => meeting.title === 'Quick check: Quick Guest');
        expect(made).toHaveLength(1);
        expect(Date.parse(made[0]!.start)).toBe(Date.parse(start));
        expect(Date.parse(made[0]!.end) - Date.parse(made[0]!.start)).toBe(10 * MINUTE);
        const meeting = (await h.api('GET', `/api/v1/meetings/${uuid}`)).json() as { end: string; location: { url: string | null } };
        expect(meeting.location.url).toBe(made[0]!.webLink);
        expect(Date.parse(meeting.end)).toBe(Date.parse(start) + 5 * MINUTE);
        const [mail] = h.sent.filter((message) => message.to.email === 'quick@example.com');
        const dtend = /DTEND(?:;[^:]*)?:(\d{8}T\d{6}Z)/.exec(mail!.ics.content)?.[1];
        expect(dtend).toBe(new Date(Date.parse(start) + 5 * MINUTE).toISOString().replace(/[-:]|\.\d{3}/g, ''));
      });

      it('asks Webex to start a meeting already under way from now, as Webex refuses a start in the past', async () => {
        const { h, bookings } = f;
        const connectionUuid = String((await bookings.connectionOf()).uuid);
        const now = h.clock.now();
        const attendee = { name: 'Late Guest', email: 'late@example.com' };
        const request = { meetingUuid: newId(), requestId: newId(), title: 'Intro call: Late Guest', start: now - 5 * MINUTE, end: now + 25 * MINUTE, timezone: 'UTC', attendee };
        const room = await withAccessToken(h.ctx, connectionUuid, (token) => h.ctx.integrations.rooms.webex.createRoom(token, request));
        const made = f.fake.meetings.get(room.roomId)!;
        expect(Date.parse(made.start)).toBeGreaterThanOrEqual(now);
        expect(Date.parse(made.start)).toBeLessThanOrEqual(now + 2 * MINUTE);
        expect(Date.parse(made.end)).toBe(request.end);
        await withAccessToken(h.ctx, connectionUuid, (token) => h.ctx.integrations.rooms.webex.deleteRoom(token, room.roomId));
      });
    },
    move: (f) => {
      it('moves the meeting with one PATCH of its times, keeping its password, its tag and every setting the host changed in Webex', async () => {
        const { h, fake: webex, bookings } = f;
        const uuid = await bookings.book();
        await h.runJobs();
        const room = (await bookings.meeting(uuid)).location;
        const [made] = f.titled(bookings.participant);
        const tags = made!.raw.integrationTags;
        // Settings the host changed in Webex meanwhile: a PUT (marked for deprecation) without them, or with termin's own, would reset them.
        made!.raw.enabledJoinBeforeHost = true;
        made!.raw.enabledAutoRecordMeeting = true;
        const newStart = bookings.nextSlot();
        const moved = await h.api('POST', `/api/v1/meetings/${uuid}/reschedule`, { start: newStart });
        expect(moved.statusCode, moved.body).toBe(200);
        await h.runJobs();
        const calls = webex.apiCalls.filter((c) => c.path === `/v1/meetings/${made!.id}` && c.method !== 'GET');
        expect(calls.map((c) => c.method)).toEqual(['PATCH']);
        expect(Object.keys(calls[0]!.body as object).sort()).toEqual(['end', 'start', 'timezone']);
        expect(webex.meetings.get(made!.id)).toMatchObject({
          start: newStart,
          password: room.password,
          enabledJoinBeforeHost: true,
          enabledAutoRecordMeeting: true,
          integrationTags: tags,
          title: `Intro call: Guest ${bookings.participant}`,
        });
        expect((await bookings.meeting(uuid)).location).toMatchObject({ url: room.url, password: room.password });
      });
    },
  },
});
