import { expect, it } from 'vitest';
import { type FakeZoom, startFakeZoom, type ZoomMeeting } from '../fakes/zoom.js';
import { describeRoomProvider } from './room-conformance.js';

/**
 * Zoom through the room-provider conformance suite (room-conformance.ts), against the stand-in
 * in test/fakes/zoom.ts: the app authenticated with HTTP Basic (raw id and secret), a refresh token rotated on
 * every refresh, revoked on disconnect; a scheduled meeting per booking, moved with PATCH, its
 * request id first in the agenda, by which a lost answer's meeting is looked up among the
 * host's meetings around its time, page by page.
 */
const MINUTE = 60_000;

describeRoomProvider<FakeZoom, ZoomMeeting>({
  provider: 'zoom',
  label: 'Zoom',
  product: 'Zoom',
  place: 'zoom',
  accountEmail: 'olga@zoom.example',
  startStandIn: startFakeZoom,
  settings: (zoom) => ({ clientId: zoom.clientId }),
  authorize: (zoom) => ({ endpoint: zoom.env.ZOOM_AUTHORIZE_URL!, params: {} }),
  accountRead: 'GET /v2/users/me',
  link: /zoom\.us/,
  mailed: ['url', 'password'],
  rooms: (zoom) =>
    [...zoom.meetings.values()].map((meeting) => ({
      id: String(meeting.id),
      title: meeting.topic,
      start: Date.parse(meeting.start_time),
      end: Date.parse(meeting.start_time) + meeting.duration * 60_000,
      location: { url: meeting.join_url, conferenceId: String(meeting.id), password: meeting.password },
      cancelled: false,
      raw: meeting,
    })),
  roomPath: (id) => `/v2/meetings/${id}`,
  moveMethod: 'PATCH',
  createdTitle: (call) => (call.method === 'POST' && call.path === '/v2/users/me/meetings' ? (call.body as { topic: string }).topic : undefined),
  lookup: () => (call) => call.method === 'GET' && call.path.startsWith('/v2/users/me/meetings?'),
  checkRoom(meeting) {
    expect(meeting.type).toBe(2);
    // Zoom's UTC form, without milliseconds.
    expect(meeting.start_time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // Zoom takes no idempotency key: the request id in the agenda is what a lost answer's meeting
    // is found by, first, as a listing shows only the agenda's first 250 characters.
    expect(meeting.agenda).toMatch(/^termin [0-9a-f-]{36}: /);
  },
  removeAtProvider: (zoom, id) => zoom.meetings.delete(Number(id)),
  idempotentCreate: false,
  keepsDeletedRooms: false,
  revokes: true,
  grantRefused: /Zoom refused/,
  specific: {
    move: (f) => {
      it('deletes the room without Zoom e-mailing the host about the cancellation: termin tells the host itself', async () => {
        const { h, fake: zoom, bookings } = f;
        const uuid = await bookings.book();
        await h.runJobs();
        const [made] = f.titled(bookings.participant);
        expect((await h.api('POST', `/api/v1/meetings/${uuid}/cancel`, {})).statusCode).toBe(200);
        await h.runJobs();
        const deletes = zoom.apiCalls.filter((call) => call.method === 'DELETE' && call.path.startsWith(`/v2/meetings/${made!.raw.id}`));
        expect(deletes.map((call) => new URL(call.path, 'http://x').searchParams.get('schedule_for_reminder'))).toEqual(['false']);
        expect(zoom.hostEmails.filter((mail) => mail.meetingId === made!.raw.id)).toEqual([]);
        expect(zoom.meetings.has(made!.raw.id)).toBe(false);
        expect(h.sent.filter((mail) => mail.to.email === h.acme.owner.email && /cancel/i.test(mail.subject) && mail.text.includes(`Guest ${bookings.participant}`))).toHaveLength(
          1,
        );
      });
    },
    lost: (f) => {
      it('adopts a lost answer’s meeting among more than 300 of the host’s around it, for a participant whose long name fills the agenda', async () => {
        const { h, fake: zoom, bookings } = f;
        // 200 characters, the most a participant's name may have: Zoom lists the agenda's first 250 only.
        const name = `Maximilian ${'Kowalski-Wiśniewski '.repeat(10)}`.slice(0, 200).trim();
        const callsBefore = zoom.apiCalls.length;
        zoom.dropNextApiAnswers(1);
        const uuid = await bookings.book({ name });
        await h.runJobs();
        const made = [...zoom.meetings.values()].filter((meeting) => meeting.topic === `Intro call: ${name}`.slice(0, 200));
        expect(made).toHaveLength(1);
        expect((await bookings.meeting(uuid)).location.url).toBeNull();
        // The host's other meetings, 350 of them, in the hours before it: more than Zoom's largest page.
        const start = Date.parse(made[0]!.start_time);
        const others = Array.from({ length: 350 }, (_, i) => ({
          ...made[0]!,
          id: 90_000_000_000 + i,
          uuid: `other-${i}`,
          topic: `Other meeting ${i}`,
          agenda: 'Weekly sync',
          start_time: `${new Date(start - (i + 1) * 30_000).toISOString().slice(0, 19)}Z`,
        }));
        for (const other of others) zoom.meetings.set(other.id, other);
        try {
          for (let i = 0; i < 6 && (await bookings.meeting(uuid)).location.url === null; i += 1) {
            h.clock.advance(MINUTE);
            await h.runJobs();
          }
          expect((await bookings.meeting(uuid)).location).toMatchObject({ url: made[0]!.join_url, password: made[0]!.password });
          const creates = zoom.apiCalls.slice(callsBefore).filter((call) => call.method === 'POST' && call.path === '/v2/users/me/meetings');
          expect(creates).toHaveLength(1);
          // A window of dates around the meeting, followed page by page.
          const lists = zoom.apiCalls
            .slice(callsBefore)
            .filter((call) => call.method === 'GET' && call.path.startsWith('/v2/users/me/meetings?'))
            .map((call) => new URL(call.path, 'http://x').searchParams);
          expect(lists.length).toBeGreaterThan(1);
          expect(lists[0]!.get('from')).toMatch(/^\d{4}-\d\d-\d\d$/);
          expect(lists[1]!.get('next_page_token')).toBeTruthy();
        } finally {
          for (const other of others) zoom.meetings.delete(other.id);
        }
      });
    },
    connect: (f) => {
      it('authenticates at the token endpoint with HTTP Basic over the raw client id and secret, their `_` and `-` as they are', () => {
        // Form-urlencoded first (RFC 6749 §2.3.1) they would read `%5F` and `%2D`, which Zoom refuses; the stand-in takes only the raw ones.
        for (const value of [f.fake.clientId, f.fake.clientSecret]) expect(value).toMatch(/^(?=.*_)(?=.*-)/);
        expect(f.fake.tokenCalls).toEqual([{ grantType: 'authorization_code', ok: true }]);
      });
    },
  },
});
