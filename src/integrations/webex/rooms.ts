import { optionalString, type ProviderClient, requireString } from '../http.js';
import type { ConferenceRoom, ConferenceRooms, RoomRequest } from '../ports.js';
import { ProviderError } from '../ports.js';

/**
 * Webex rooms through its Meetings REST API (developer.webex.com, "Meetings"): a scheduled
 * meeting per termin meeting (`POST /v1/meetings`), moved with "Patch a Meeting" (`PATCH
 * /v1/meetings/{meetingId}` with the new times only: "Update a Meeting", PUT, is marked for
 * deprecation and puts every setting it is not sent back to its default, the host's own
 * included) and removed with `DELETE /v1/meetings/{meetingId}` (one already deleted answers
 * 410 Gone: gone, as 404). Webex takes no idempotency key: the request id is the meeting's
 * integration tag (`integrationTags`, "external keys created by an integration application"),
 * and an attempt whose answer was lost finds the meeting by it (`integrationTag` in List
 * Meetings), among the host's meetings around its time.
 */
export function createWebexRooms(api: ProviderClient, options: { now?: () => number } = {}): ConferenceRooms {
  const label = api.label;
  const now = options.now ?? Date.now;
  const body = (request: RoomRequest) => ({
    // Webex's limits: a title of 128 characters, an agenda of 1300.
    title: request.title.slice(0, 128),
    agenda: agendaOf(request).slice(-1300),
    ...webexTimesOf(request, now()),
    timezone: request.timezone,
    // At most 3 tags of 64 characters each: a request id (a UUID) is one.
    integrationTags: [request.requestId],
    enabledAutoRecordMeeting: false,
    allowAnyUserToBeCoHost: false,
    // termin sends the invitation itself; Webex's own e-mail to the host would be a second one.
    sendEmail: false,
  });
  const roomOf = (operation: string, answer: unknown): ConferenceRoom => {
    const joinUrl = requireString(label, operation, answer, 'webLink');
    if (!joinUrl.startsWith('https://') && !joinUrl.startsWith('http://')) throw new ProviderError(`Webex ${operation}: the webLink is not a link`, false);
    return {
      roomId: requireString(label, operation, answer, 'id'),
      joinUrl,
      conferenceId: optionalString(answer, 'meetingNumber'),
      password: optionalString(answer, 'password'),
    };
  };
  const readMeeting = async (accessToken: string, id: string) =>
    (await api.call('read a meeting', { method: 'GET', path: `/v1/meetings/${encodeURIComponent(id)}`, accessToken }, [200])).body;
  return {
    async createRoom(accessToken, request) {
      const answer = await api.call('create a meeting', { method: 'POST', path: '/v1/meetings', accessToken, json: body(request) }, [200, 201]);
      return roomOf('create a meeting', answer.body);
    },
    async findRoom(accessToken, request) {
      // The lost attempt made the meeting at the request's time (a day either side covers a move
      // meanwhile on the same day): Webex lists a week from now when it is given no window.
      const query = new URLSearchParams({
        integrationTag: request.requestId,
        meetingType: 'scheduledMeeting',
        from: webexTime(request.start - DAY_MS),
        to: webexTime(request.end + DAY_MS),
        max: '10',
      });
      const answer = await api.call('list meetings', { method: 'GET', path: `/v1/meetings?${query}`, accessToken }, [200]);
      const items = (answer.body as { items?: unknown[] } | undefined)?.items;
      for (const item of Array.isArray(items) ? items : []) {
        // A scheduled meeting is an occurrence of its series: the series is what termin moves and deletes, and what holds the tag.
        const id = optionalString(item, 'meetingSeriesId') ?? optionalString(item, 'id');
        if (id === null) continue;
        const series = await readMeeting(accessToken, id);
        // Checked on the series itself, not trusted to the filter.
        const tags = (series as { integrationTags?: unknown } | undefined)?.integrationTags;
        if (Array.isArray(tags) && tags.includes(request.requestId)) return roomOf('read a meeting', series);
      }
      return null;
    },
    async moveRoom(accessToken, roomId, request) {
      // Only the times: the title, password, tag and the host's own settings stay as Webex has them.
      const { start, end, timezone } = body(request);
      await api.call('move a meeting', { method: 'PATCH', path: `/v1/meetings/${encodeURIComponent(roomId)}`, accessToken, json: { start, end, timezone } }, [200]);
    },
    async deleteRoom(accessToken, roomId) {
      // 410: deleted already (by the host in Webex, or by an earlier attempt whose answer was lost).
      await api.call('delete a meeting', { method: 'DELETE', path: `/v1/meetings/${encodeURIComponent(roomId)}?sendEmail=false`, accessToken }, [204, 404, 410]);
    },
  };
}

const DAY_MS = 24 * 60 * 60_000;
/** The Meetings reference on `start`: the duration "cannot be shorter than 10 minutes or longer than 23 hours 59 minutes". */
const WEBEX_SHORTEST_MS = 10 * 60_000;
const WEBEX_LONGEST_MS = (23 * 60 + 59) * 60_000;
/** A start this close to now is asked for this much later, so that Webex's clock, a little ahead of ours, does not find it past. */
const START_MARGIN_MS = 60_000;

/**
 * The times termin asks Webex for: the meeting's own, within what Webex takes. Its `start`
 * "cannot be before current date and time" (a meeting already under way, or about to start,
 * gets its room from a minute from now), and it lasts 10 minutes to 23 hours 59 minutes (a
 * 5-minute meeting gets a 10-minute room). Only the room's times change: the meeting keeps its
 * own end in termin, its invitation and calendars. A Webex room is open past its scheduled end anyway.
 * `webexTimesOf({ start: 09:00, end: 09:05 }, 08:00)` → `{ start: '…T09:00:00Z', end: '…T09:10:00Z' }`.
 */
export function webexTimesOf(request: Pick<RoomRequest, 'start' | 'end'>, now: number): { start: string; end: string } {
  const start = Math.max(request.start, Math.ceil((now + START_MARGIN_MS) / 1000) * 1000);
  const end = Math.min(Math.max(request.end, start + WEBEX_SHORTEST_MS), start + WEBEX_LONGEST_MS);
  return { start: webexTime(start), end: webexTime(end) };
}

/** `2027-03-29T07:00:00Z`: ISO 8601 as Webex's examples write it (no milliseconds). */
function webexTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

function agendaOf(request: RoomRequest): string {
  return `Booked with termin for ${request.attendee.name}.`;
}
