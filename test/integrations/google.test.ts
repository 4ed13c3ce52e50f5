import { expect, it } from 'vitest';
import { googleEventIdOf } from '../../src/integrations/google/rooms.js';
import { type FakeGoogle, type GoogleEvent, startFakeGoogle } from '../fakes/google.js';
import { describeRoomProvider } from './room-conformance.js';

/**
 * Google Meet through the room-provider conformance suite (room-conformance.ts), against the
 * stand-in in test/fakes/google.ts: offline access, PKCE and `iss` on the callback; a refresh
 * token Google never rotates, revoked on disconnect; an event of the host's calendar per
 * booking under an id made from the request id, with a Meet conference pending at first; a
 * deleted event kept as cancelled.
 */
const instantOf = (time: GoogleEvent['start']) => Date.parse('dateTime' in time ? time.dateTime : time.date);
const EVENTS = '/calendar/v3/calendars/primary/events';

describeRoomProvider<FakeGoogle, GoogleEvent>({
  provider: 'google',
  label: 'Google',
  product: 'Google Meet',
  place: 'google-meet',
  accountEmail: 'olga@acme-workspace.example',
  startStandIn: startFakeGoogle,
  settings: (google) => ({ clientId: google.clientId }),
  authorize: (google) => ({
    endpoint: google.env.GOOGLE_AUTHORIZE_URL!,
    params: { scope: 'openid email https://www.googleapis.com/auth/calendar.events', access_type: 'offline', prompt: 'consent' },
  }),
  // Google sends its issuer back with the code (RFC 9207): termin accepts it.
  callbackParams: { iss: 'https://accounts.google.com' },
  accountRead: 'GET /oauth2/v3/userinfo',
  link: /meet\.google\.com/,
  mailed: ['url'],
  rooms: (google) =>
    [...google.events.values()].map((event) => ({
      id: event.id,
      title: event.summary,
      start: instantOf(event.start),
      end: instantOf(event.end),
      location: { url: event.conference && `https://meet.google.com/${event.conference.meetCode}`, conferenceId: event.conference?.meetCode ?? null, password: null },
      cancelled: event.status === 'cancelled',
      raw: event,
    })),
  roomPath: (id) => `${EVENTS}/${id}`,
  moveMethod: 'PATCH',
  createdTitle: (call) => (call.method === 'POST' && call.path.startsWith(`${EVENTS}?`) ? (call.body as { summary: string }).summary : undefined),
  // Read under the id it recorded before the lost insert.
  lookup: (room) => (call) => call.method === 'GET' && call.path === `${EVENTS}/${room.id}`,
  checkRoom(event, { meetingUuid, participant }) {
    expect(event.id).toMatch(/^termin[0-9a-v]+$/);
    expect(event.attendees).toEqual([{ email: `guest${participant}@example.com`, displayName: `Guest ${participant}` }]);
    expect(event.extendedProperties?.private?.termin).toBe(meetingUuid);
  },
  // The host deletes it in Google Calendar: Google keeps it, cancelled, and answers a DELETE with 410.
  removeAtProvider: (google, id) => {
    google.events.get(id)!.status = 'cancelled';
  },
  idempotentCreate: true,
  keepsDeletedRooms: true,
  revokes: true,
  grantRefused: /Google refused.*Token has been expired or revoked/,
  // Granular consent: the host may untick Calendar and still allow the rest.
  requiredScope: { scope: 'https://www.googleapis.com/auth/calendar.events', named: /View and edit events on all your calendars/ },
  reset: (google) => google.setPendingReads(1),
  specific: {
    rooms: (f) => {
      it('asks Google for a Meet conference and to send no invitation of its own: termin’s is the participant’s one', () => {
        const inserts = f.fake.apiCalls.filter((call) => call.method === 'POST' && call.path.startsWith(`${EVENTS}?`));
        expect(inserts.length).toBeGreaterThan(1);
        expect(inserts.every((call) => call.path.includes('conferenceDataVersion=1') && call.path.includes('sendUpdates=none'))).toBe(true);
      });
    },
    port: (f) => {
      it('names each event after its request id, in the base32hex Google takes, so a repeated insert is refused as a duplicate', () => {
        expect(googleEventIdOf('0190f3a2-7c1e-7b3d-9a4f-1c2d3e4f5a6b')).toBe('termin0190f3a27c1e7b3d9a4f1c2d3e4f5a6b');
      });

      it('waits for a Meet conference still pending, and tries again later rather than sending no link', async () => {
        const { h, fake: google, bookings } = f;
        google.setPendingReads(20);
        const uuid = await bookings.book();
        const n = bookings.participant;
        await h.runJobs();
        expect((await bookings.meeting(uuid)).location.url).toBeNull();
        expect(f.mailsOf(n)).toHaveLength(0);
        google.setPendingReads(0);
        for (const event of f.titled(n)) event.raw.conference!.pendingReads = 0;
        for (let i = 0; i < 6 && (await bookings.meeting(uuid)).location.url === null; i += 1) {
          h.clock.advance(60_000);
          await h.runJobs();
        }
        expect((await bookings.meeting(uuid)).location.url).toMatch(/^https:\/\/meet\.google\.com\//);
        expect(f.titled(n)).toHaveLength(1);
        expect(f.mailsOf(n)).toHaveLength(1);
      }, 30_000);
    },
  },
});
