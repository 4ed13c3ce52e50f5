import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { AddressLimiter } from '../../domain/address-limiter.js';
import { RateLimitedError } from '../../domain/errors.js';
import type { UseCaseContext } from '../../scheduling/context.js';
import { manageUrl } from '../../scheduling/meetings/manage-token.js';
import { bookPublicly, cancelByToken, getManagedBooking, quotePublicly, rescheduleByToken, scheduleForToken } from '../../scheduling/booking/public-booking.js';
import { paymentRecord, meetingToJson, toIso } from '../../domain/representations.js';
import { problemResponses } from '../schemas/common.js';
import {
  ManagedBookingSchema,
  PublicBookingSchema,
  ParticipantMeetingSchema,
  PublicQuoteBodySchema,
  PublicQuoteSchema,
  PublicScheduleBodySchema,
  TokenCancelBodySchema,
  TokenParams,
  TokenRescheduleBodySchema,
  TokenScheduleBodySchema,
} from '../schemas/public-booking.js';
import { ScheduleHeadersSchema, ScheduleSchema } from '../schemas/schedule.js';

const PUBLIC_ERRORS = [400, 406, 413, 415, 429] as const;

/**
 * The public booking page's API and the participant's self-service (the manage link), no
 * key: the topic's uuid, or the token's HMAC, is the capability.
 */
export const publicBookingRoutes: FastifyPluginAsyncTypebox<{ ctx: UseCaseContext; limiter: AddressLimiter | null }> = async (app, { ctx, limiter }) => {
  const publicUrl = ctx.publicUrl;
  // Every attempt counts, refused ones included (see the onRequest hook below).
  const limitBookings = async (request: FastifyRequest, reply: { header(name: string, value: string): unknown }) => {
    if (!limiter) return;
    const now = ctx.now();
    const wait = limiter.blockedFor(request.ip, now);
    if (wait > 0) {
      reply.header('Retry-After', String(wait));
      throw new RateLimitedError(`Too many bookings from this address: at most ${limiter.perMinute} a minute; retry in ${wait} s`, wait);
    }
    limiter.record(request.ip, now);
  };

  app.post(
    '/public/schedule',
    {
      schema: {
        tags: ['Booking page'],
        summary: 'Book a public topic (no key)',
        description:
          'What the booking page calls: the body of POST /schedule without `metadata`, the same rules and transaction, no key. ' +
          'Only topics with `public: true` (404 for any other, as for one that does not exist). The booking has no key ' +
          '(`bookedByKeyUuid` null): its host and their team admins manage it, and the participant through the manage link. ' +
          '`website` is a honeypot: leave empty; bots fill it (400, nothing stored). Limited per client address to ' +
          'PUBLIC_BOOKING_RATE_PER_MINUTE requests a minute (default 20; 429 with Retry-After). With `Idempotency-Key`, as for ' +
          'POST /schedule: a repeat with the same body within 24 hours returns the first response (header `Idempotent-Replayed: true`) ' +
          'and books nothing, so a page retrying after a timeout gets its booking rather than 409 SLOT_UNAVAILABLE; a different ' +
          'body is 409 IDEMPOTENCY_KEY_REUSED. A page makes one key per booking attempt (a random UUID).',
        security: [{}],
        headers: ScheduleHeadersSchema,
        body: PublicScheduleBodySchema,
        response: { 201: PublicBookingSchema, ...problemResponses(...PUBLIC_ERRORS, 404, 409, 422) },
      },
      // Before the body is parsed or validated: junk from a bot counts too.
      onRequest: limitBookings,
    },
    async (request, reply) => {
      const booking = await bookPublicly(ctx, request.body, request.headers['idempotency-key']);
      if (booking.replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(201).send({
        meetings: booking.meetings.map(meetingToJson),
        payment: booking.payment === null ? null : paymentRecord(booking.payment, publicUrl),
        manageUrls: booking.meetings.map((meeting) => manageUrl(publicUrl, ctx.secretKey, meeting.uuid)),
      });
    },
  );

  app.post(
    '/public/quote',
    {
      schema: {
        tags: ['Booking page'],
        summary: 'What a booking would cost, with a discount code (no key)',
        description:
          "The booking page's price before booking: a public topic's price for the chosen variant and number of dates, and, with " +
          '`discount`, the total after that code. The same checks as the booking: an unknown, expired or used-up code, or one ' +
          'in another currency, is 422 DISCOUNT_INVALID saying which; nothing is reserved and the code is not used up. ' +
          'Counts toward the same per-address limit as POST /public/schedule (PUBLIC_BOOKING_RATE_PER_MINUTE), so codes cannot ' +
          'be guessed faster than bookings are made.',
        security: [{}],
        body: PublicQuoteBodySchema,
        response: { 200: PublicQuoteSchema, ...problemResponses(...PUBLIC_ERRORS, 404, 422) },
      },
      onRequest: limitBookings,
    },
    async (request) => quotePublicly(ctx, request.body),
  );

  const tokenDescription =
    'The token is the one in the manage link `{PUBLIC_URL}/booking/{token}` of the confirmation e-mail; it works until the ' +
    'meeting ends. A token this service did not issue, or whose meeting has ended, is 404.';

  app.get(
    '/public/bookings/:token',
    {
      schema: {
        tags: ['Booking page'],
        summary: 'A booking, by its manage link',
        description: `For the manage page. ${tokenDescription} \`canChange\`: the participant may still cancel or move it here, which they may until \`changeDeadline\` (the start less the topic's \`cancellationNoticeMinutes\`), while it is confirmed or pending payment.`,
        security: [{}],
        params: TokenParams,
        response: { 200: ManagedBookingSchema, ...problemResponses(400, 404, 406, 429) },
      },
    },
    async (request) => {
      const managed = await getManagedBooking(ctx, request.params.token);
      return { ...managed, meeting: meetingToJson(managed.meeting), changeDeadline: toIso(managed.changeDeadline) };
    },
  );

  app.post(
    '/public/bookings/:token/cancel',
    {
      schema: {
        tags: ['Booking page'],
        summary: 'Cancel, as the participant',
        description: `${tokenDescription} Until the change deadline (403 FORBIDDEN after, saying until when it was possible). The host and the participant are told by e-mail as for any cancellation; cancelling again changes nothing.`,
        security: [{}],
        params: TokenParams,
        body: TokenCancelBodySchema,
        response: { 200: ParticipantMeetingSchema, ...problemResponses(...PUBLIC_ERRORS, 403, 404) },
      },
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request) => meetingToJson(await cancelByToken(ctx, request.params.token, request.body.reason)),
  );

  app.post(
    '/public/bookings/:token/reschedule',
    {
      schema: {
        tags: ['Booking page'],
        summary: 'Move, as the participant',
        description: `${tokenDescription} As POST /meetings/{uuid}/reschedule: \`start\` must be a slot of POST /public/bookings/{token}/calculate-schedule (409 SLOT_UNAVAILABLE otherwise). Until the change deadline of the meeting as it is (403 after). Both sides get the updated invitation.`,
        security: [{}],
        params: TokenParams,
        body: TokenRescheduleBodySchema,
        response: { 200: ParticipantMeetingSchema, ...problemResponses(...PUBLIC_ERRORS, 403, 404, 409) },
      },
    },
    async (request) => meetingToJson(await rescheduleByToken(ctx, request.params.token, request.body)),
  );

  app.post(
    '/public/bookings/:token/calculate-schedule',
    {
      schema: {
        tags: ['Booking page'],
        summary: 'Free slots to move to',
        description: `${tokenDescription} The topic's schedule as POST /calculate-schedule gives it, with this meeting not blocking: its host's for an individual topic, the team view (each slot naming a host) for a team topic.`,
        security: [{}],
        params: TokenParams,
        body: TokenScheduleBodySchema,
        response: { 200: ScheduleSchema, ...problemResponses(...PUBLIC_ERRORS, 404) },
      },
    },
    async (request) => scheduleForToken(ctx, request.params.token, request.body),
  );
};
