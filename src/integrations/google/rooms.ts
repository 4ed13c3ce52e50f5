import { objectOf, optionalString, type ProviderClient } from '../http.js';
import type { ConferenceRoom, ConferenceRooms, RoomRequest } from '../ports.js';
import { ProviderError } from '../ports.js';

/**
 * Google Meet rooms through the Google Calendar API v3 (developers.google.com/calendar/api): a
 * meeting's room is an event in the host's primary calendar with a Meet conference
 * (`events.insert` with `conferenceDataVersion=1` and `conferenceData.createRequest`), which
 * is also the host's calendar copy; moved with `events.patch`, removed with `events.delete`,
 * always with `sendUpdates=none` (termin sends its own invitation).
 *
 * No lost answer makes a second room: the event's `id` is chosen by termin from the room's
 * request id (recorded before the call), so a retry's insert is refused as a duplicate (409)
 * and the event made the first time is read instead; the conference's `requestId` is that id
 * too. Google keeps a deleted event's id taken (the event reads `status: cancelled`, "only
 * guaranteed to have the id field populated"): when the host deleted that event in Google
 * Calendar before termin heard of it, the room is made under the request's next id
 * (`googleEventIdsOf`), never adopted from a cancelled event, nor undeleted (an update that
 * restores it would bring back an event the host removed, and Google ignores a conference
 * `requestId` it has seen: no new Meet link would come). Google may answer the insert before the conference exists (`createRequest.status`
 * `pending`, no `hangoutLink`): the event is read again a few times, then the job is retried.
 */
export function createGoogleRooms(api: ProviderClient, options: { pendingPollMs?: readonly number[] } = {}): ConferenceRooms {
  const events = '/calendar/v3/calendars/primary/events';
  const eventPath = (id: string, query = '') => `${events}/${encodeURIComponent(id)}${query}`;
  // Google answers a pending conference within seconds: read the event again this often before the outbox retries.
  const pendingPollMs = options.pendingPollMs ?? [250, 750, 1_500, 2_500];
  const times = (request: RoomRequest) => ({
    start: { dateTime: new Date(request.start).toISOString(), timeZone: request.timezone },
    end: { dateTime: new Date(request.end).toISOString(), timeZone: request.timezone },
  });

  const readEvent = async (accessToken: string, id: string): Promise<unknown> => {
    const answer = await api.call('read an event', { method: 'GET', path: eventPath(id), accessToken }, [200, 404, 410]);
    return answer.status === 200 ? answer.body : null;
  };
  /** What is under an id: nothing yet (`free`: it may be made), a live event, or a deleted one (`deleted`: the id stays taken). */
  const eventUnder = async (accessToken: string, id: string): Promise<'free' | 'deleted' | { event: unknown }> => {
    const answer = await api.call('read an event', { method: 'GET', path: eventPath(id), accessToken }, [200, 404, 410]);
    if (answer.status === 404) return 'free';
    if (answer.status === 410 || optionalString(answer.body, 'status') === 'cancelled') return 'deleted';
    return { event: answer.body };
  };
  /** The event's room, reading the event again while Google is still making its conference. */
  const roomOfEvent = async (accessToken: string, id: string, event: unknown): Promise<ConferenceRoom> => {
    let current = event;
    for (const wait of [0, ...pendingPollMs]) {
      if (wait > 0) {
        await new Promise((resolve) => setTimeout(resolve, wait));
        current = await readEvent(accessToken, id);
        if (current === null) throw new ProviderError('Google read an event: the event disappeared while its Meet conference was being made', true);
      }
      const room = meetRoomOf(id, current);
      if (room !== null) return room;
    }
    throw new ProviderError('Google create a Meet conference: still pending; trying again later', true);
  };

  return {
    async createRoom(accessToken, request) {
      for (const id of googleEventIdsOf(request.requestId)) {
        const made = await insertUnder(accessToken, id, request);
        if (made !== 'deleted') return made;
      }
      throw new ProviderError(`Google create an event: the host deleted this meeting's event ${MAX_EVENT_IDS} times before termin heard of it`, false);
    },
    async findRoom(accessToken, request) {
      for (const id of googleEventIdsOf(request.requestId)) {
        const found = await eventUnder(accessToken, id);
        if (found === 'free') return null;
        if (found !== 'deleted') return roomOfEvent(accessToken, id, found.event);
      }
      return null;
    },
    async moveRoom(accessToken, roomId, request) {
      await api.call('move an event', { method: 'PATCH', path: eventPath(roomId, '?sendUpdates=none'), accessToken, json: times(request) }, [200]);
    },
    async deleteRoom(accessToken, roomId) {
      // 410 "deleted": already gone, as 404.
      await api.call('delete an event', { method: 'DELETE', path: eventPath(roomId, '?sendUpdates=none'), accessToken }, [200, 204, 404, 410]);
    },
  };

  /** The room made under `id`, or the one an earlier attempt made there (409); `deleted` when that one was deleted since. */
  async function insertUnder(accessToken: string, id: string, request: RoomRequest): Promise<ConferenceRoom | 'deleted'> {
    const answer = await api.call(
      'create an event',
      {
        method: 'POST',
        path: `${events}?conferenceDataVersion=1&sendUpdates=none`,
        accessToken,
        json: {
          id,
          summary: request.title.slice(0, 500),
          description: `Booked with termin for ${request.attendee.name}.`,
          ...times(request),
          attendees: [{ email: request.attendee.email, displayName: request.attendee.name }],
          conferenceData: { createRequest: { requestId: id, conferenceSolutionKey: { type: 'hangoutsMeet' } } },
          // Marks termin's own events, so reading the host's busy time can tell them apart.
          extendedProperties: { private: { termin: request.meetingUuid } },
          reminders: { useDefault: true },
        },
      },
      [200, 409],
    );
    if (answer.status !== 409) return roomOfEvent(accessToken, id, answer.body);
    // 409 "duplicate": an earlier attempt made this event and its answer was lost; that one is the room, unless it was deleted since.
    const found = await eventUnder(accessToken, id);
    if (found === 'free') throw new ProviderError('Google create an event: refused as a duplicate, yet the event cannot be read', true);
    return found === 'deleted' ? 'deleted' : roomOfEvent(accessToken, id, found.event);
  }
}

/** How many ids one request's room may take, each after the host deleted the event under the one before. */
const MAX_EVENT_IDS = 5;

/**
 * The ids a request's room's event may have, in order: the request's own id, then the same
 * with `v1`, `v2`, … (`v` is base32hex but never hex, so these meet no other request's id):
 * `googleEventIdsOf('0190f3a2-…')` → `termin0190f3a2…`, `termin0190f3a2…v1`, … `…v4`.
 */
export function googleEventIdsOf(requestId: string): string[] {
  const first = googleEventIdOf(requestId);
  return Array.from({ length: MAX_EVENT_IDS }, (_, n) => (n === 0 ? first : `${first.slice(0, 1020)}v${n}`));
}
/**
 * The event id termin gives a room's event: Google takes 5–1024 characters of base32hex
 * (`0-9`, `a-v`), and a request id (a UUID, lowercase hex) is already that without its dashes:
 * `googleEventIdOf('0190f3a2-7c1e-7b3d-9a4f-1c2d3e4f5a6b')` → `termin0190f3a27c1e7b3d9a4f1c2d3e4f5a6b`.
 */
export function googleEventIdOf(requestId: string): string {
  const id = `termin${requestId.toLowerCase().replace(/[^0-9a-v]/g, '')}`;
  if (id.length < 5 + 'termin'.length) throw new ProviderError('Google create an event: the request id gives no event id', false);
  return id.slice(0, 1024);
}

/** The Meet room of an event, or null while its conference is still pending; a ProviderError when Google could not make one. */
function meetRoomOf(eventId: string, event: unknown): ConferenceRoom | null {
  const conference = objectOf(objectOf(event)?.conferenceData);
  const status = optionalString(objectOf(objectOf(conference?.createRequest)?.status), 'statusCode');
  if (status === 'failure') throw new ProviderError('Google create a Meet conference: Google could not make it (is Meet enabled for this account?)', false);
  const entryPoints = Array.isArray(conference?.entryPoints) ? conference.entryPoints : [];
  const video = entryPoints.find((entry) => optionalString(entry, 'entryPointType') === 'video');
  const joinUrl = optionalString(event, 'hangoutLink') ?? optionalString(video, 'uri');
  if (joinUrl === null) {
    if (status === 'pending' || conference?.createRequest !== undefined) return null;
    throw new ProviderError('Google create an event: the event has no Meet conference', false);
  }
  if (!joinUrl.startsWith('https://')) throw new ProviderError('Google create an event: the Meet link is not an https link', false);
  return { roomId: eventId, joinUrl, conferenceId: optionalString(conference, 'conferenceId'), password: optionalString(video, 'password') ?? optionalString(video, 'passcode') };
}
