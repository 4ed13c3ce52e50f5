import { expect, it } from 'vitest';
import { type FakeZoom, startFakeZoom, type ZoomMeeting } from '../fakes/zoom.js';
import { describeRoomProvider } from './room-conformance.js';

/**
 * Zoom through the room-provider conformance suite (room-conformance.ts), against the stand-in
 * in test/fakes/zoom.ts: the app authenticated with HTTP Basic (raw id and secret), a refresh token rotated on
 * every refresh, revoked on disconnect; a scheduled meeting per booking, moved with PATCH, its
 * request id in the agenda, where a lost answer's meeting is looked up among the host's.
 */
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
    // Zoom takes no idempotency key: the request id in the agenda is what a lost answer's meeting is found by.
    expect(meeting.agenda).toMatch(/\(termin \S+\)$/);
  },
  removeAtProvider: (zoom, id) => zoom.meetings.delete(Number(id)),
  idempotentCreate: false,
  keepsDeletedRooms: false,
  revokes: true,
  grantRefused: /Zoom refused/,
  specific: {
    connect: (f) => {
      it('authenticates at the token endpoint with HTTP Basic over the raw client id and secret, their `_` and `-` as they are', () => {
        // Form-urlencoded first (RFC 6749 §2.3.1) they would read `%5F` and `%2D`, which Zoom refuses; the stand-in takes only the raw ones.
        for (const value of [f.fake.clientId, f.fake.clientSecret]) expect(value).toMatch(/^(?=.*_)(?=.*-)/);
        expect(f.fake.tokenCalls).toEqual([{ grantType: 'authorization_code', ok: true }]);
      });
    },
  },
});
