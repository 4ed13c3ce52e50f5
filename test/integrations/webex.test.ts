import { expect, it } from 'vitest';
import { type FakeWebex, startFakeWebex, type WebexMeeting } from '../fakes/webex.js';
import { describeRoomProvider } from './room-conformance.js';

/**
 * Webex through the room-provider conformance suite (room-conformance.ts), against the stand-in
 * in test/fakes/webex.ts: the Integration's credentials in the form body, PKCE, a refresh
 * token sent again with every refresh, errors in Webex's own shape, no revocation endpoint; a
 * meeting per booking whose link, number and password reach the e-mails, moved with one full
 * PUT, its request id in the agenda, where a lost answer's meeting is found among the host's
 * scheduled meetings (Webex takes no idempotency key).
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
  moveMethod: 'PUT',
  createdTitle: (call) => (call.method === 'POST' && call.path === '/v1/meetings' ? (call.body as { title: string }).title : undefined),
  lookup: () => (call) => call.method === 'GET' && call.path.startsWith('/v1/meetings?') && call.path.includes('meetingType=scheduledMeeting'),
  checkRoom(meeting) {
    expect(meeting.enabledAutoRecordMeeting).toBe(false);
    expect(meeting.agenda).toMatch(/\(termin \S+\)$/);
  },
  removeAtProvider: (webex, id) => webex.meetings.delete(id),
  idempotentCreate: false,
  keepsDeletedRooms: false,
  revokes: false,
  // Webex's token endpoint says it inside a message of its own shape.
  grantRefused: /Webex refused.*invalid_grant/,
  specific: {
    move: (f) => {
      it('moves the meeting with one full PUT that keeps its password and a setting the host changed in Webex', async () => {
        const { h, fake: webex, bookings } = f;
        const uuid = await bookings.book();
        await h.runJobs();
        const room = (await bookings.meeting(uuid)).location;
        const [made] = f.titled(bookings.participant);
        // A setting the host changed in Webex meanwhile: a PUT without it would reset it.
        made!.raw.enabledJoinBeforeHost = true;
        const newStart = bookings.nextSlot();
        const moved = await h.api('POST', `/api/v1/meetings/${uuid}/reschedule`, { start: newStart });
        expect(moved.statusCode, moved.body).toBe(200);
        await h.runJobs();
        expect(webex.apiCalls.filter((c) => c.method === 'PUT' && c.path === `/v1/meetings/${made!.id}`)).toHaveLength(1);
        expect(webex.meetings.get(made!.id)).toMatchObject({
          start: newStart,
          password: room.password,
          enabledJoinBeforeHost: true,
          title: `Intro call: Guest ${bookings.participant}`,
        });
        expect((await bookings.meeting(uuid)).location).toMatchObject({ url: room.url, password: room.password });
      });
    },
  },
});
