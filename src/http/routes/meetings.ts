import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { UseCaseContext } from '../../scheduling/context.js';
import { cancelMeeting, getMeeting, listMeetings } from '../../scheduling/meetings/meetings.js';
import { scheduleMeetings } from '../../scheduling/booking/schedule-meetings.js';
import { rescheduleMeeting } from '../../scheduling/booking/reschedule.js';
import { setNoShow } from '../../scheduling/meetings/no-show.js';
import { approveMeeting, declineMeeting } from '../../scheduling/meetings/approval.js';
import { listMeetingReminders } from '../../scheduling/meetings/reminders.js';
import { MeetingRemindersSchema } from '../schemas/meeting-topics.js';
import { toIso } from '../../domain/representations.js';
import {
  RescheduleBodySchema,
  BookingSchema,
  CancelBodySchema,
  MeetingListQuerySchema,
  DeclineBodySchema,
  MeetingListSchema,
  NoShowBodySchema,
  ScheduleBodySchema,
  ScheduleHeadersSchema,
} from '../schemas/schedule.js';
import { paymentsOfMeetings } from '../../scheduling/payments/view.js';
import { paymentRecord, meetingToJson, meetingWithPaymentToJson } from '../../domain/representations.js';
import { principalOf } from '../request-guards.js';
import { acceptCommaLists } from '../query-lists.js';
import { API_KEY_SECURITY, AUTHENTICATED_ERRORS, UuidParams, problemResponses } from '../schemas/common.js';

/** `POST /schedule` and the meetings it creates. */
export const meetingRoutes: FastifyPluginAsyncTypebox<{ ctx: UseCaseContext }> = async (app, { ctx }) => {
  app.post(
    '/schedule',
    {
      schema: {
        tags: ['Scheduling'],
        summary: 'Schedule a meeting',
        description:
          'Books every entry of `dates` in one transaction, or none: a date is bookable exactly when POST /calculate-schedule ' +
          'would offer it now (409 SLOT_UNAVAILABLE names the entry otherwise); entries overlapping for one host are a 400. ' +
          'No host is ever booked twice, under any concurrency. A paid topic gives `pending_payment` meetings that hold their ' +
          'slots until `payment.expiresAt`. With `Idempotency-Key`, a repeat with the same body within 24 hours returns the ' +
          'first response (header `Idempotent-Replayed: true`) and creates nothing; a different body is 409 IDEMPOTENCY_KEY_REUSED. ' +
          'Participant and host get an e-mail with an iCalendar invitation.',
        security: API_KEY_SECURITY,
        headers: ScheduleHeadersSchema,
        body: ScheduleBodySchema,
        response: { 201: BookingSchema, ...problemResponses(...AUTHENTICATED_ERRORS, 404, 409, 422) },
      },
      // Location: the first booked meeting (all of a booking's meetings are in the body).
      config: { location: '/api/v1/meetings/{meetings.0.uuid}' },
    },
    async (request, reply) => {
      const booking = await scheduleMeetings(ctx, principalOf(request), request.body, request.headers['idempotency-key']);
      if (booking.replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(201).send({
        meetings: booking.meetings.map((meeting) => meetingWithPaymentToJson(meeting, booking.payment ?? undefined)),
        payment: booking.payment === null ? null : paymentRecord(booking.payment, ctx.publicUrl),
      });
    },
  );

  app.get(
    '/meetings',
    {
      schema: {
        tags: ['Meetings'],
        summary: "The account's meetings",
        description:
          'Ordered by start time (then uuid), oldest first. `from`/`to` select meetings whose start lies in [from, to). ' +
          'Pages of `limit` (default 50, at most 200); pass `nextCursor` as `cursor` for the next page.',
        security: API_KEY_SECURITY,
        querystring: MeetingListQuerySchema,
        response: { 200: MeetingListSchema, ...problemResponses(...AUTHENTICATED_ERRORS) },
      },
      preValidation: acceptCommaLists('status'),
    },
    async (request) => {
      const page = await listMeetings(ctx, principalOf(request), request.query);
      const payments = await paymentsOfMeetings(ctx, page.meetings);
      return { meetings: page.meetings.map((meeting) => meetingWithPaymentToJson(meeting, payments.get(meeting.bookingUuid))), nextCursor: page.nextCursor };
    },
  );

  app.get(
    '/meetings/:uuid',
    {
      schema: {
        tags: ['Meetings'],
        summary: 'One meeting',
        description: 'With its payment, when the booking was paid; 404 for a meeting of another account.',
        security: API_KEY_SECURITY,
        params: UuidParams,
        response: { 200: Type.Ref('Meeting'), ...problemResponses(...AUTHENTICATED_ERRORS, 404) },
      },
    },
    async (request) => {
      const meeting = await getMeeting(ctx, principalOf(request), request.params.uuid);
      return meetingWithPaymentToJson(meeting, (await paymentsOfMeetings(ctx, [meeting])).get(meeting.bookingUuid));
    },
  );

  app.get(
    '/meetings/:uuid/reminders',
    {
      schema: {
        tags: ['Meetings'],
        summary: "What became of a meeting's reminders",
        description:
          "The topic's `reminders` of this meeting that came due so far, oldest first: `sent` (an e-mail queued, an SMS taken by the provider: `detail` " +
          "is its message id), `skipped` (found due only from the meeting's start on, after an outage, and so not sent late; or an SMS with no phone " +
          "number to go to, to a number outside the server's SMS_ALLOWED_COUNTRIES, or to a number already sent SMS_MAX_PER_NUMBER_PER_DAY SMS " +
          'in the last 24 hours: `detail` says which), `failed` (the SMS provider refused it, or kept failing until the last retry: `detail` says why). A moved meeting lists ' +
          'the reminders of each start it had (`dueAt`). 404 for a meeting of another account.',
        security: API_KEY_SECURITY,
        params: UuidParams,
        response: { 200: MeetingRemindersSchema, ...problemResponses(...AUTHENTICATED_ERRORS, 404) },
      },
    },
    async (request) => {
      const records = await listMeetingReminders(ctx, principalOf(request), request.params.uuid);
      return {
        reminders: records.map((record) => ({
          minutesBefore: record.minutesBefore,
          channel: record.channel,
          to: record.recipient,
          dueAt: toIso(record.dueAt),
          status: record.status,
          detail: record.detail,
          recordedAt: toIso(record.recordedAt),
        })),
      };
    },
  );

  app.post(
    '/meetings/:uuid/cancel',
    {
      schema: {
        tags: ['Meetings'],
        summary: 'Cancel a meeting',
        description:
          'Frees the slot; participant and host get a cancellation (iCalendar METHOD:CANCEL). Cancelling again changes nothing. ' +
          "A paid, confirmed meeting's share of the payment (the amount split evenly over the booking's meetings) is refunded through the " +
          'gateway in the background unless the body says `"refund": false`; the payment shows `refundedAmount`, and `status: "refunded"` once all of it is back.',
        security: API_KEY_SECURITY,
        params: UuidParams,
        body: CancelBodySchema,
        response: { 200: Type.Ref('Meeting'), ...problemResponses(...AUTHENTICATED_ERRORS, 404) },
      },
      // The body is optional: a bare POST cancels without a reason (and the document says so).
      config: { bodyOptional: true },
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request) => {
      const meeting = await cancelMeeting(ctx, principalOf(request), request.params.uuid, request.body.reason, { refund: request.body.refund });
      return meetingWithPaymentToJson(meeting, (await paymentsOfMeetings(ctx, [meeting])).get(meeting.bookingUuid));
    },
  );

  app.post(
    '/meetings/:uuid/reschedule',
    {
      schema: {
        tags: ['Meetings'],
        summary: 'Move a meeting',
        description:
          'Moves the meeting to `start` (and, for a topic with several hosts, to `username`; default the same host), keeping its uuid, ' +
          'status and details. `start` must be a slot POST /calculate-schedule would offer if this meeting did not exist (it does not ' +
          'block itself, so moving it within its own span is fine); 409 SLOT_UNAVAILABLE otherwise. Atomic and race-free like a booking: ' +
          'of two moves into one slot one wins. Only confirmed meetings and meetings pending payment move (400 otherwise). Who may: ' +
          'as for cancel. Participant and host get an updated invitation (same iCalendar UID, SEQUENCE + 1; a host it moved away from ' +
          "gets a cancellation), and the meeting's history records `meeting.rescheduled` with the previous start, end and host.",
        security: API_KEY_SECURITY,
        params: UuidParams,
        body: RescheduleBodySchema,
        response: { 200: Type.Ref('Meeting'), ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404, 409) },
      },
    },
    async (request) => meetingToJson(await rescheduleMeeting(ctx, principalOf(request), request.params.uuid, request.body)),
  );

  app.post(
    '/meetings/:uuid/no-show',
    {
      schema: {
        tags: ['Meetings'],
        summary: 'Record a no-show',
        description:
          "Records who did not come (`noShow` on the meeting), from the meeting's start on: 409 MEETING_STATE_CONFLICT before it, or for a " +
          'meeting that is not confirmed. Marking the other party replaces the mark; marking the same again changes nothing. Each change sends ' +
          'the webhook event `meeting.no_show`. Who may: as for cancel (not the participant).',
        security: API_KEY_SECURITY,
        params: UuidParams,
        body: NoShowBodySchema,
        response: { 200: Type.Ref('Meeting'), ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404, 409) },
      },
    },
    async (request) => {
      const meeting = await setNoShow(ctx, principalOf(request), request.params.uuid, request.body.who);
      return meetingWithPaymentToJson(meeting, (await paymentsOfMeetings(ctx, [meeting])).get(meeting.bookingUuid));
    },
  );

  app.delete(
    '/meetings/:uuid/no-show',
    {
      schema: {
        tags: ['Meetings'],
        summary: 'Clear a no-show',
        description: 'Sets `noShow` back to null (a mark made by mistake), sending `meeting.no_show` when there was one; clearing again changes nothing.',
        security: API_KEY_SECURITY,
        params: UuidParams,
        response: { 200: Type.Ref('Meeting'), ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404) },
      },
    },
    async (request) => {
      const meeting = await setNoShow(ctx, principalOf(request), request.params.uuid, null);
      return meetingWithPaymentToJson(meeting, (await paymentsOfMeetings(ctx, [meeting])).get(meeting.bookingUuid));
    },
  );

  app.post(
    '/meetings/:uuid/approve',
    {
      schema: {
        tags: ['Meetings'],
        summary: 'Approve a request',
        description:
          'A `pending_approval` meeting (a topic with `requiresApproval`) becomes `confirmed`: participant and host get the confirmation and ' +
          'invitation then. For a paid topic it becomes `pending_payment` instead, and only now is the participant sent the pay link (the ' +
          'slot held 30 minutes from now). Webhook events `meeting.approved` (and `meeting.confirmed` when nothing is to pay). Approving again ' +
          'returns it unchanged; a cancelled or declined meeting (or one whose deadline passed) is 409 MEETING_STATE_CONFLICT. Of an ' +
          "approval, a decline and the deadline at once exactly one takes effect. Who may: the host (or a co-host), an admin of the topic's team, or the account's owner; any other key, the one that booked it " +
          'included, gets 403 FORBIDDEN.',
        security: API_KEY_SECURITY,
        params: UuidParams,
        response: { 200: Type.Ref('Meeting'), ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404, 409) },
      },
    },
    async (request) => {
      const meeting = await approveMeeting(ctx, principalOf(request), request.params.uuid);
      return meetingWithPaymentToJson(meeting, (await paymentsOfMeetings(ctx, [meeting])).get(meeting.bookingUuid));
    },
  );

  app.post(
    '/meetings/:uuid/decline',
    {
      schema: {
        tags: ['Meetings'],
        summary: 'Decline a request',
        description:
          'A `pending_approval` meeting becomes `declined` with `declineReason`: its slot is free again and the participant is told (with the ' +
          'reason). Webhook event `meeting.declined`, also sent when a request is left undecided until its deadline (the earlier of ' +
          '`approvalDeadlineHours` after booking and the start), with the reason "not approved in time". Declining again returns it ' +
          'unchanged; an approved or cancelled meeting is 409 MEETING_STATE_CONFLICT. Who may: as for approve.',
        security: API_KEY_SECURITY,
        params: UuidParams,
        body: DeclineBodySchema,
        response: { 200: Type.Ref('Meeting'), ...problemResponses(...AUTHENTICATED_ERRORS, 403, 404, 409) },
      },
      // The body is optional: a bare POST declines without a reason.
      config: { bodyOptional: true },
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request) => {
      const meeting = await declineMeeting(ctx, principalOf(request), request.params.uuid, request.body.reason);
      return meetingWithPaymentToJson(meeting, (await paymentsOfMeetings(ctx, [meeting])).get(meeting.bookingUuid));
    },
  );
};
