import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { pageOf } from '../../domain/paging.js';
import { PAGING, PageQuery } from '../schemas/paging.js';
import { Type } from 'typebox';
import { addCalendar, getCalendar, getFeedUrl, listCalendars, removeCalendar, rotateFeed, syncCalendarNow } from '../../scheduling/calendars/calendars.js';
import type { UseCaseContext } from '../../scheduling/context.js';
import { principalOf } from '../request-guards.js';
import { CalendarBodySchema, CalendarListSchema, CalendarSchema, FeedSchema, UserCalendarParams, UserParams, calendarToJson } from '../schemas/calendars.js';
import { API_KEY_SECURITY, AUTHENTICATED_ERRORS, problemResponses } from '../schemas/common.js';

const WHO = 'By the user, or an admin of one of their teams.';

/** A user's external calendars and their private meetings feed. */
export const calendarRoutes: FastifyPluginAsyncTypebox<{ ctx: UseCaseContext }> = async (app, { ctx }) => {
  app.post(
    '/users/:userUuid/calendars',
    {
      schema: {
        tags: ['Calendars'],
        summary: 'Connect a calendar',
        description:
          `${WHO} Connects a CalDAV calendar (\`username\`, \`password\` required) or an iCalendar URL. With \`checkConflicts\` ` +
          '(default), its busy events (not those marked free/transparent or cancelled; recurring ones expanded with their exceptions; ' +
          "all-day ones as the user's local days; each in its own time zone) block the user's slots exactly like a meeting, " +
          'for the longest booking window of the topics they host (at least 60 days). The calendar is read once at once (the answer ' +
          'shows `status` and `lastError`), then every CALENDAR_SYNC_INTERVAL_SECONDS (default 300) in the background: slots never ' +
          "wait on the remote server, and a failed sync keeps the last good busy time. With `writeMeetings` (CalDAV only), the user's " +
          "confirmed meetings are written into it (UID `{meetingUuid}@termin`, the invitation's), moved on reschedule and removed on " +
          'cancellation or expiry; a failing server is retried in the background and never fails a booking. Meetings booked before ' +
          'the calendar was connected are not copied. The password (and the whole ICS URL) is stored encrypted and never shown again. ' +
          'A URL on a private or loopback address is a 400 (path `/url`) unless the operator allows it.',
        security: API_KEY_SECURITY,
        params: UserParams,
        body: CalendarBodySchema,
        response: { 201: CalendarSchema, ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
    },
    async (request, reply) => {
      const calendar = await addCalendar(ctx, principalOf(request), request.params.userUuid, request.body);
      return reply.code(201).send(calendarToJson(calendar));
    },
  );

  app.get(
    '/users/:userUuid/calendars',
    {
      schema: {
        tags: ['Calendars'],
        summary: "A user's connected calendars",
        description: `${WHO} Oldest first, each with its sync state. ${PAGING}`,
        security: API_KEY_SECURITY,
        params: UserParams,
        querystring: PageQuery('Calendars'),
        response: { 200: CalendarListSchema, ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
    },
    async (request) => {
      const page = pageOf(await listCalendars(ctx, principalOf(request), request.params.userUuid), (calendar) => [calendar.createdAt, calendar.uuid], request.query);
      return { calendars: page.items.map(calendarToJson), nextCursor: page.nextCursor };
    },
  );

  app.get(
    '/users/:userUuid/calendars/:uuid',
    {
      schema: {
        tags: ['Calendars'],
        summary: 'One connected calendar',
        description: `${WHO} With its sync state: \`status\`, \`lastSyncAt\`, \`lastSuccessAt\`, \`lastError\`, \`lastWriteError\`.`,
        security: API_KEY_SECURITY,
        params: UserCalendarParams,
        response: { 200: CalendarSchema, ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
    },
    async (request) => calendarToJson(await getCalendar(ctx, principalOf(request), request.params.userUuid, request.params.uuid)),
  );

  app.delete(
    '/users/:userUuid/calendars/:uuid',
    {
      schema: {
        tags: ['Calendars'],
        summary: 'Disconnect a calendar',
        description: `${WHO} Its busy time stops blocking slots at once and no more meetings are written into it; events already written there stay.`,
        security: API_KEY_SECURITY,
        params: UserCalendarParams,
        response: { 204: Type.Null({ description: 'Disconnected.' }), ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
    },
    async (request, reply) => {
      await removeCalendar(ctx, principalOf(request), request.params.userUuid, request.params.uuid);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/users/:userUuid/calendars/:uuid/sync',
    {
      schema: {
        tags: ['Calendars'],
        summary: 'Sync a calendar now',
        description:
          `${WHO} Reads the calendar now (up to about 10 s) and answers it as the sync left it: \`status: ok\` with a new ` +
          '`lastSuccessAt`, or `status: error` with `lastError` (the busy time of the last good sync still applies). ' +
          'If another sync of it is running at that moment, the answer shows the calendar as it stands.',
        security: API_KEY_SECURITY,
        params: UserCalendarParams,
        response: { 200: CalendarSchema, ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
    },
    async (request) => calendarToJson(await syncCalendarNow(ctx, principalOf(request), request.params.userUuid, request.params.uuid)),
  );

  app.get(
    '/users/:userUuid/feed',
    {
      schema: {
        tags: ['Calendars'],
        summary: "The user's private meetings feed",
        description:
          `${WHO} An iCalendar address (\`text/calendar\`) that Google Calendar, Outlook or Apple Calendar can subscribe to: every ` +
          "confirmed meeting of the user that ended within the last year or is still to come, under the invitation's UID. Meetings " +
          'waiting for payment are left out (their hold lapses faster than apps refresh). The address is made on the first request ' +
          'and stays the same until rotated; its token (256 bits) is the only key to it. 409 `SECRET_UNREADABLE` when the address was ' +
          'stored under a secret key the server no longer has: it cannot be shown (calendar apps subscribed to it keep reading it); rotate it for a new one.',
        security: API_KEY_SECURITY,
        params: UserParams,
        response: { 200: FeedSchema, ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404, 409) },
      },
    },
    async (request) => ({ url: await getFeedUrl(ctx, principalOf(request), request.params.userUuid) }),
  );

  app.post(
    '/users/:userUuid/feed/rotate',
    {
      schema: {
        tags: ['Calendars'],
        summary: "Give the user's feed a new address",
        description: `${WHO} The old address answers 404 from now on; subscribers must subscribe to the new one.`,
        security: API_KEY_SECURITY,
        params: UserParams,
        response: { 200: FeedSchema, ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
    },
    async (request) => ({ url: await rotateFeed(ctx, principalOf(request), request.params.userUuid) }),
  );
};
