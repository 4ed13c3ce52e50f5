import { optionalString, type ProviderClient, requireString } from '../http.js';
import type { ConferenceRoom, ConferenceRooms, RoomRequest } from '../ports.js';
import { ProviderError } from '../ports.js';

/**
 * Zoom rooms through its REST API v2 (developers.zoom.us/docs/api): a scheduled meeting per
 * termin meeting (`POST /v2/users/me/meetings`, type 2), moved with `PATCH /v2/meetings/{id}`
 * and removed with `DELETE /v2/meetings/{id}`. Zoom takes no idempotency key, so the request
 * id goes into the meeting's agenda, and an attempt whose answer was lost is found among the
 * host's upcoming meetings by it.
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
      const answer = await api.call('list meetings', { method: 'GET', path: '/v2/users/me/meetings?type=upcoming&page_size=300', accessToken }, [200]);
      const meetings = (answer.body as { meetings?: unknown[] } | undefined)?.meetings;
      const found = Array.isArray(meetings) ? meetings.find((meeting) => optionalString(meeting, 'agenda')?.includes(request.requestId)) : undefined;
      const id = found === undefined ? null : optionalString(found, 'id');
      if (id === null) return null;
      // The list leaves out the passcode: the meeting itself has it.
      const meeting = await api.call('read a meeting', { method: 'GET', path: `/v2/meetings/${encodeURIComponent(id)}`, accessToken }, [200]);
      return roomOf(meeting.body);
    },
    async moveRoom(accessToken, roomId, request) {
      const { topic: _topic, type: _type, agenda: _agenda, ...times } = body(request);
      await api.call('move a meeting', { method: 'PATCH', path: `/v2/meetings/${encodeURIComponent(roomId)}`, accessToken, json: times }, [204]);
    },
    async deleteRoom(accessToken, roomId) {
      await api.call('delete a meeting', { method: 'DELETE', path: `/v2/meetings/${encodeURIComponent(roomId)}`, accessToken }, [204, 404]);
    },
  };
}

/** `2027-03-29T07:00:00Z`: Zoom's UTC form (no milliseconds). */
function zoomTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

function agendaOf(request: RoomRequest): string {
  return `Booked with termin for ${request.attendee.name}. (termin ${request.requestId})`;
}
