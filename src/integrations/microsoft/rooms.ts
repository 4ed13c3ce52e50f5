import { optionalString, type ProviderClient, requireString } from '../http.js';
import type { ConferenceRoom, ConferenceRooms, RoomRequest } from '../ports.js';
import { ProviderError } from '../ports.js';
import { GRAPH_IN_UTC, graphTime, REQUEST_ID_PROPERTY, TERMIN_TRANSACTION_PREFIX } from './client.js';

/**
 * Microsoft Teams rooms through Microsoft Graph (learn.microsoft.com/graph): each termin
 * meeting is an event in the host's Outlook calendar made with `isOnlineMeeting` and
 * `onlineMeetingProvider: teamsForBusiness` (`POST /v1.0/me/events`), whose
 * `onlineMeeting.joinUrl` is the room; the same event is the host's calendar copy. Moved with
 * `PATCH /v1.0/me/events/{id}`, removed with `DELETE`.
 *
 * Idempotency: Graph takes the request id (prefixed `termin-`) as the event's `transactionId`,
 * "to avoid redundant POST operations in case of client retries to create the same event": a
 * retry of the same POST answers the event already made. Graph names no window for it and
 * no way to look an event up by it, so termin does not lean on it to find a lost answer: the
 * request id is also stored as a single-value extended property, which Graph can filter on,
 * and an attempt whose answer was lost finds its event that way. Every read names what it
 * needs in `$select`, `isOnlineMeeting` included: Graph answers only what is named, and an
 * event made without Teams is known by `isOnlineMeeting: false`.
 */

/** What a read of an event asks Graph for: its id, its Teams meeting, and whether it has one at all. */
const ROOM_SELECT = '$select=id,onlineMeeting,isOnlineMeeting';

/** How often, and how far apart, a new event is read again while Teams has not given it a join link yet. */
const JOIN_URL_READS = 2;
const JOIN_URL_PAUSE_MS = 1_000;

export function createMicrosoftRooms(api: ProviderClient): ConferenceRooms {
  const label = api.label;
  // Graph answers times in UTC instead of the mailbox's zone (termin sends UTC too).
  const headers = GRAPH_IN_UTC;
  const times = (request: RoomRequest) => ({
    start: { dateTime: graphTime(request.start), timeZone: 'UTC' },
    end: { dateTime: graphTime(request.end), timeZone: 'UTC' },
  });
  const body = (request: RoomRequest) => ({
    subject: request.title.slice(0, 255),
    body: { contentType: 'text', content: `Booked with termin for ${request.attendee.name}. (termin ${request.requestId})` },
    ...times(request),
    attendees: [{ type: 'required', emailAddress: { address: request.attendee.email, name: request.attendee.name } }],
    isOnlineMeeting: true,
    onlineMeetingProvider: 'teamsForBusiness',
    allowNewTimeProposals: false,
    transactionId: `${TERMIN_TRANSACTION_PREFIX}${request.requestId}`,
    singleValueExtendedProperties: [{ id: REQUEST_ID_PROPERTY, value: request.requestId }],
  });
  const eventPath = (id: string) => `/v1.0/me/events/${encodeURIComponent(id)}`;
  /** The event's room, or null while Teams has not given it a join link yet. */
  const roomOf = (event: unknown, operation: string): ConferenceRoom | null => {
    const roomId = requireString(label, operation, event, 'id');
    // Graph makes a plain event when the mailbox cannot have Teams meetings (a personal account, no Teams licence): no link will ever come.
    if (typeof event === 'object' && event !== null && (event as { isOnlineMeeting?: unknown }).isOnlineMeeting === false) {
      throw new ProviderError(`Microsoft ${operation}: the event has no Teams meeting; the host's account cannot make them (it needs a work or school account with Teams)`, false);
    }
    const meeting = typeof event === 'object' && event !== null ? (event as { onlineMeeting?: unknown }).onlineMeeting : undefined;
    const joinUrl = optionalString(meeting, 'joinUrl');
    if (joinUrl === null) return null;
    if (!joinUrl.startsWith('https://') && !joinUrl.startsWith('http://')) throw new ProviderError(`Microsoft ${operation}: the joinUrl is not a link`, false);
    return { roomId, joinUrl, conferenceId: optionalString(meeting, 'conferenceId'), password: null };
  };
  /** Reads the event until Teams has attached the meeting; a retryable error when it has not yet (a later attempt finds the event). */
  const awaitJoinUrl = async (accessToken: string, roomId: string): Promise<ConferenceRoom> => {
    for (let read = 0; read < JOIN_URL_READS; read += 1) {
      await new Promise((resolve) => setTimeout(resolve, JOIN_URL_PAUSE_MS));
      const answer = await api.call('read an event', { method: 'GET', path: `${eventPath(roomId)}?${ROOM_SELECT}`, accessToken, headers }, [200]);
      const room = roomOf(answer.body, 'read an event');
      if (room) return room;
    }
    throw new ProviderError('Microsoft made the event, but Teams has not given it a join link yet', true);
  };
  return {
    async createRoom(accessToken, request) {
      const answer = await api.call('create an event', { method: 'POST', path: '/v1.0/me/events', accessToken, json: body(request), headers }, [201]);
      return roomOf(answer.body, 'create an event') ?? awaitJoinUrl(accessToken, requireString(label, 'create an event', answer.body, 'id'));
    },
    async findRoom(accessToken, request) {
      const filter = `singleValueExtendedProperties/any(ep: ep/id eq '${REQUEST_ID_PROPERTY}' and ep/value eq '${request.requestId.replaceAll("'", "''")}')`;
      const answer = await api.call('find an event', { method: 'GET', path: `/v1.0/me/events?$filter=${encodeURIComponent(filter)}&${ROOM_SELECT}`, accessToken, headers }, [200]);
      const events = (answer.body as { value?: unknown[] } | undefined)?.value;
      if (!Array.isArray(events) || events.length === 0) return null;
      const room = roomOf(events[0], 'find an event');
      if (room === null) throw new ProviderError('Microsoft has the event, but Teams has not given it a join link yet', true);
      return room;
    },
    async moveRoom(accessToken, roomId, request) {
      await api.call('move an event', { method: 'PATCH', path: eventPath(roomId), accessToken, json: times(request), headers }, [200]);
    },
    async deleteRoom(accessToken, roomId) {
      await api.call('delete an event', { method: 'DELETE', path: eventPath(roomId), accessToken }, [204, 404]);
    },
  };
}
