import { optionalString, type ProviderClient, requireString } from '../http.js';
import type { ConferenceRoom, ConferenceRooms, RoomRequest } from '../ports.js';
import { ProviderError } from '../ports.js';

/**
 * Zoom rooms through its REST API v2 (developers.zoom.us/docs/api): a scheduled meeting per
 * termin meeting (`POST /v2/users/me/meetings`, type 2), moved with `PATCH /v2/meetings/{id}`
 * and removed with `DELETE /v2/meetings/{id}`. Zoom takes no idempotency key, so the request
 * id goes into the meeting's agenda, first (List meetings shows only an agenda's first 250
 * characters), and an attempt whose answer was lost is found by it among the host's meetings
 * on the dates around the request (`type=scheduled` with `from`/`to`), page by page
 * (`page_size` 300 at most, then `next_page_token`).
 */
export function createZoomRooms(api: ProviderClient): ConferenceRooms {
  const label = api.label;
  const body = (request: RoomRequest) => ({
    topic: request.title.slice(0, 200),
    type: 2,
    start_time: zoomTime(request.start),
    duration: Math.max(1, Math.round((request.end - request.start) / 60_000)),
    timezone: request.timezone,
    agenda: agendaOf(request),
  });
  const roomOf = (answer: unknown): ConferenceRoom => {
    const joinUrl = requireString(label, 'create a meeting', answer, 'join_url');
    if (!joinUrl.startsWith('https://') && !joinUrl.startsWith('http://')) throw new ProviderError('Zoom create a meeting: the join_url is not a link', false);
    return { roomId: requireString(label, 'create a meeting', answer, 'id'), joinUrl, conferenceId: optionalString(answer, 'id'), password: optionalString(answer, 'password') };
  };
  return {
    async createRoom(accessToken, request) {
      const answer = await api.call('create a meeting', { method: 'POST', path: '/v2/users/me/meetings', accessToken, json: body(request) }, [201]);
      return roomOf(answer.body);
    },
    async findRoom(accessToken, request) {
      // The lost attempt made the meeting on the request's dates (a day either side: a move meanwhile, and any zone's date).
      const query = new URLSearchParams({ type: 'scheduled', from: zoomDate(request.start - DAY_MS), to: zoomDate(request.end + DAY_MS), timezone: 'UTC', page_size: '300' });
      const tag = agendaTagOf(request);
      let pageToken = '';
      for (let page = 0; page < MAX_LIST_PAGES; page += 1) {
        if (pageToken !== '') query.set('next_page_token', pageToken);
        const answer = await api.call('list meetings', { method: 'GET', path: `/v2/users/me/meetings?${query}`, accessToken }, [200]);
        const meetings = (answer.body as { meetings?: unknown[] } | undefined)?.meetings;
        const found = Array.isArray(meetings) ? meetings.find((meeting) => optionalString(meeting, 'agenda')?.startsWith(tag)) : undefined;
        const id = found === undefined ? null : optionalString(found, 'id');
        if (id !== null) {
          // The list leaves out the passcode: the meeting itself has it.
          const meeting = await api.call('read a meeting', { method: 'GET', path: `/v2/meetings/${encodeURIComponent(id)}`, accessToken }, [200]);
          return roomOf(meeting.body);
        }
        pageToken = optionalString(answer.body, 'next_page_token') ?? '';
        if (pageToken === '') return null;
      }
      throw new ProviderError(`Zoom list meetings: more than ${MAX_LIST_PAGES} pages of meetings around the request's dates`, false);
    },
    async moveRoom(accessToken, roomId, request) {
      const { topic: _topic, type: _type, agenda: _agenda, ...times } = body(request);
      await api.call('move a meeting', { method: 'PATCH', path: `/v2/meetings/${encodeURIComponent(roomId)}`, accessToken, json: times }, [204]);
    },
    async deleteRoom(accessToken, roomId) {
      // `schedule_for_reminder` defaults to true: Zoom would e-mail the host about every cancel, which termin tells them itself.
      const path = `/v2/meetings/${encodeURIComponent(roomId)}?schedule_for_reminder=false`;
      await api.call('delete a meeting', { method: 'DELETE', path, accessToken }, [204, 404]);
    },
  };
}

const DAY_MS = 24 * 60 * 60_000;
/** 3 000 meetings on three days: far past any host's, so a lookup that gets this far has lost its way. */
const MAX_LIST_PAGES = 10;

/** `2027-03-29`: the date Zoom's `from` and `to` take (read in the `timezone` sent beside them). */
function zoomDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** `2027-03-29T07:00:00Z`: Zoom's UTC form (no milliseconds). */
function zoomTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

/** What the agenda starts with: `termin 0190f3a2-7c1e-7b3d-9a4f-1c2d3e4f5a6b: `, 44 characters, well within the 250 a listing shows. */
function agendaTagOf(request: RoomRequest): string {
  return `termin ${request.requestId}: `;
}

function agendaOf(request: RoomRequest): string {
  return `${agendaTagOf(request)}booked for ${request.attendee.name}.`;
}
