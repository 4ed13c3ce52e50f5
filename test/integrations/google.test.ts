import { expect, it } from 'vitest';
import { googleEventIdOf, googleEventIdsOf } from '../../src/integrations/google/rooms.js';
import { ConnectionRefusedError, ProviderError } from '../../src/integrations/ports.js';
import { withAccessToken } from '../../src/scheduling/integrations/provider-access.js';
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
        // Then the ids it takes after the host deleted the event under the one before (Google keeps a deleted event's id taken).
        expect(googleEventIdsOf('0190f3a2-7c1e-7b3d-9a4f-1c2d3e4f5a6b').slice(1, 3)).toEqual([
          'termin0190f3a27c1e7b3d9a4f1c2d3e4f5a6bv1',
          'termin0190f3a27c1e7b3d9a4f1c2d3e4f5a6bv2',
        ]);
      });

      it('takes a Meet conference Google could not make, and a 403 that names no scope, as final for the room alone, not the connection', async () => {
        const { h, fake: google, bookings } = f;
        const connectionUuid = String((await bookings.connectionOf()).uuid);
        const token = await withAccessToken(h.ctx, connectionUuid, async (accessToken) => accessToken);
        const start = Date.parse(bookings.nextSlot());
        const request = (title: string) => ({
          meetingUuid: 'not-a-meeting',
          requestId: crypto.randomUUID(),
          title,
          start,
          end: start + 30 * 60_000,
          timezone: 'UTC',
          attendee: { name: 'Rita', email: 'rita@example.com' },
        });
        const failureOf = (call: Promise<unknown>) =>
          call.then(
            () => null,
            (error: unknown) => error,
          );
        google.failNextConferences(1);
        const failed = await failureOf(h.ctx.integrations.rooms.google.createRoom(token, request('No Meet here')));
        expect(failed).toBeInstanceOf(ProviderError);
        expect(failed).not.toBeInstanceOf(ConnectionRefusedError);
        expect(failed).toMatchObject({ retryable: false, message: expect.stringMatching(/could not make it/) });
        for (const event of google.events.values()) if (event.summary === 'No Meet here') event.status = 'cancelled';
        google.refuseNextApiCalls(1, 'forbiddenForNonOrganizer');
        const forbidden = await failureOf(h.ctx.integrations.rooms.google.createRoom(token, request('Not allowed')));
        expect(forbidden).toBeInstanceOf(ProviderError);
        expect(forbidden).not.toBeInstanceOf(ConnectionRefusedError);
        expect(forbidden).toMatchObject({ retryable: false, status: 403, message: expect.stringMatching(/HTTP 403 forbiddenForNonOrganizer/) });
        expect((await bookings.connectionOf()).status).toBe('connected');
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
    lost: (f) => {
      it('makes a new event when the host deleted the lost answer’s event in Google Calendar, rather than adopt a cancelled one', async () => {
        const { h, fake: google, bookings } = f;
        google.dropNextApiAnswers(1);
        const uuid = await bookings.book();
        const n = bookings.participant;
        await h.runJobs();
        const [lost] = f.titled(n);
        expect((await bookings.meeting(uuid)).location.url).toBeNull();
        // Deleted in Google Calendar before termin heard of it: Google keeps it, cancelled, its id taken.
        lost!.raw.status = 'cancelled';
        for (let i = 0; i < 6 && (await bookings.meeting(uuid)).location.url === null; i += 1) {
          h.clock.advance(60_000);
          await h.runJobs();
        }
        const live = f.titled(n);
        expect(live).toHaveLength(1);
        expect(live[0]!.id).not.toBe(lost!.id);
        expect(live[0]!.id).toMatch(/^termin[0-9a-v]+$/);
        expect((await bookings.meeting(uuid)).location).toMatchObject({ url: live[0]!.location.url });
        expect(f.mailsOf(n)).toHaveLength(1);
        expect(f.mailsOf(n)[0]!.text).toContain(String(live[0]!.location.url));
        // And that event is the room from now on: found again by its request, deleted with the meeting.
        expect((await h.api('POST', `/api/v1/meetings/${uuid}/cancel`, {})).statusCode).toBe(200);
        await h.runJobs();
        expect(f.titled(n)).toHaveLength(0);
      }, 30_000);
    },
  },
});
