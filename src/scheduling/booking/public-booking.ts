import { createHash } from 'node:crypto';
import { getBranding, type BrandingView } from '../account/branding.js';
import { ForbiddenError, LinkGoneError, NotFoundError, ValidationError } from '../../domain/errors.js';
import { findSingleUseTopic } from '../topics/single-use-links.js';
import { topicForDuration, type MeetingTopic } from '../../domain/meeting-topic.js';
import type { PaymentStatus } from '../../domain/payment.js';
import { PLACE_LABELS } from '../../i18n/place-labels.js';
import { statusAt, type Meeting } from '../../domain/meeting.js';
import { findTopic, findTopicIncludingDeleted } from '../../db/repositories/meeting-topics.js';
import { findMeetingByUuid } from '../../db/repositories/meetings.js';
import { findPaymentsOfBookings } from '../../db/repositories/payments.js';
import { findUser } from '../../db/repositories/users.js';
import type { Schedule } from './calculate.js';
import type { UseCaseContext } from '../context.js';
import { renderMeetingEvent } from '../../calendars/meeting-event.js';
import { manageUrl, readManageToken } from '../meetings/manage-token.js';
import { cancelMeeting, type ParticipantActor } from '../meetings/meetings.js';
import { rescheduleMeeting, scheduleForMeetingMove, type MoveScheduleInput, type RescheduleInput } from './reschedule.js';
import { findUsableDiscount, scheduleMeetings, type Booking, type ScheduleInput } from './schedule-meetings.js';
import { findPublicTopicPage } from './public-topics.js';
import type { Money } from '../../domain/meeting-topic.js';
import { priceBooking, priceVariantForLength } from '../../domain/pricing.js';

/** POST /public/schedule: the body of POST /schedule less `metadata`, plus the honeypot. */
export interface PublicScheduleInput extends Omit<ScheduleInput, 'metadata'> {
  /** Leave empty; bots fill it. */
  website?: string | undefined;
  /** A single-use link's token: books its topic (public or not) once. */
  singleUseToken?: string | undefined;
}

/**
 * A booking from the public booking page, no key: only a public topic (404 for any other,
 * as for one that does not exist), the same rules and transaction as POST /schedule, and
 * `bookedByKeyUuid: null`. A filled honeypot field is refused before anything is read.
 * `idempotencyKey` as for POST /schedule: a retry after a lost answer gets the same booking.
 */
export async function bookPublicly(
  ctx: Pick<UseCaseContext, 'publicUrl' | 'now' | 'db' | 'secretKey' | 'gateways' | 'outboxPace'>,
  input: PublicScheduleInput,
  idempotencyKey?: string | undefined,
): Promise<Booking> {
  const { website, singleUseToken, ...booking } = input;
  if (website !== undefined && website.trim() !== '') throw new ValidationError([{ path: '/website', message: 'must be empty' }]);
  const replayKey = idempotencyKey === undefined ? undefined : publicIdempotencyKey(idempotencyKey);
  if (singleUseToken !== undefined) {
    // The link's topic, public or not; it is used up inside the booking's transaction (scheduleMeetings).
    const { topic, tokenHash } = await findSingleUseTopic(ctx, singleUseToken);
    if (topic.uuid !== booking.meetingTopic.toLowerCase()) throw new LinkGoneError();
    return scheduleMeetings(ctx, { accountUuid: topic.accountUuid, publicPage: true, singleUseLink: { tokenHash, topicUuid: topic.uuid } }, booking, replayKey);
  }
  const topic = await findTopic(ctx.db, null, booking.meetingTopic);
  if (!topic?.public) throw new NotFoundError('meeting topic');
  return scheduleMeetings(ctx, { accountUuid: topic.accountUuid, publicPage: true }, booking, idempotencyKey === undefined ? undefined : publicIdempotencyKey(idempotencyKey));
}

/** POST /public/quote: what a booking of a public topic would cost, with a discount code tried. */
export interface QuoteInput {
  meetingTopic: string;
  priceVariant?: string | undefined;
  discount?: string | undefined;
  /** How many dates the booking would hold (the price is per date). */
  dates?: number | undefined;
  /** The chosen length (one of the topic's `durations`): a variant for it is its price. */
  duration?: number | undefined;
}

export interface Quote {
  /** The price before any discount; null for a free topic. */
  price: Money | null;
  /** What would be paid: the price less the code's discount. */
  total: Money | null;
  discount: { code: string; percentOff: number | null; amountOff: Money | null } | null;
}

/**
 * The booking page's "what will I pay?" before booking: the same pricing and the same
 * discount checks as the booking itself (an unknown, expired or used-up code is the same
 * 422 DISCOUNT_INVALID the booking would answer). Nothing is reserved or used up.
 */
export async function quotePublicly(ctx: Pick<UseCaseContext, 'now' | 'db'>, input: QuoteInput): Promise<Quote> {
  const topic = await findTopic(ctx.db, null, input.meetingTopic);
  if (!topic?.public) throw new NotFoundError('meeting topic');
  if (input.priceVariant !== undefined && !topic.priceVariants.some((candidate) => candidate.uuid === input.priceVariant)) {
    throw new ValidationError([{ path: '/priceVariant', message: 'is not a price variant of this topic' }]);
  }
  // The chosen length picks its own variant's price, as the booking does.
  const variant = priceVariantForLength(topicForDuration(topic, input.duration), input.priceVariant);
  const price = priceBooking(topic, variant, input.dates ?? 1, null);
  if (input.discount === undefined || input.discount.trim() === '') return { price, total: price, discount: null };
  const code = await findUsableDiscount(ctx.db, topic.accountUuid, input.discount, ctx.now(), price);
  return {
    price,
    total: priceBooking(topic, variant, input.dates ?? 1, code),
    discount: { code: code.code, percentOff: code.percentOff, amountOff: code.amountOff },
  };
}

/**
 * Keys are stored per account: a booking page's keys are kept apart from the account's API
 * clients' (an anonymous caller can neither replay nor block theirs) under a prefix, hashed
 * so that any 255-character key still fits the column.
 */
function publicIdempotencyKey(key: string): string {
  return `public:${createHash('sha256').update(key).digest('hex')}`;
}

/** What the manage page shows. */
export interface ManagedBooking {
  meeting: Meeting;
  topic: Pick<MeetingTopic, 'uuid' | 'name' | 'description' | 'durationMinutes' | 'cancellationNoticeMinutes' | 'confirmationMessage' | 'translations' | 'form'>;
  hostName: string;
  /** The business's look on the page. */
  branding: BrandingView;
  /** The participant may still cancel or move it here. */
  canChange: boolean;
  /** The last instant they may: the start less the topic's cancellation notice. */
  changeDeadline: number;
  /** What the booking costs and whether it is paid; null for a free one. */
  payment: { amount: number; currency: string; status: PaymentStatus } | null;
  /**
   * After a cancel, a decline or an unpaid booking's expiry: the topic's booking page
   * (`/book/anna/{topic}` or `/book/teams/{team}/{topic}`) to choose another time, while
   * that page still exists (the topic public and live, the host still hosting it); else null.
   */
  bookAgainPath: string | null;
}

/** The booking page a meeting no longer held was booked through, if it still takes bookings. */
async function bookAgainPathOf(ctx: Pick<UseCaseContext, 'db'>, meeting: Meeting, topic: MeetingTopic): Promise<string | null> {
  if (meeting.status !== 'cancelled' && meeting.status !== 'declined' && meeting.status !== 'expired') return null;
  const team = topic.teamUuid;
  const where = team !== null ? { teamUuid: team, topicUuid: topic.uuid } : { username: meeting.hostUsername, topicUuid: topic.uuid };
  const page = await findPublicTopicPage(ctx, where).catch((error: unknown) => {
    if (error instanceof NotFoundError) return null;
    throw error;
  });
  if (page === null) return null;
  return team !== null
    ? `/book/teams/${encodeURIComponent(team)}/${encodeURIComponent(topic.uuid)}`
    : `/book/${encodeURIComponent(meeting.hostUsername)}/${encodeURIComponent(topic.uuid)}`;
}

/**
 * The meeting a manage link is for. A token this service did not issue, or one whose
 * meeting has ended, is a 404 like a meeting that does not exist: nothing tells a guesser
 * which it was.
 */
async function findByToken(ctx: Pick<UseCaseContext, 'now' | 'db' | 'secretKey'>, token: string): Promise<{ meeting: Meeting; topic: MeetingTopic; now: number }> {
  const meetingUuid = readManageToken(ctx.secretKey, token);
  const meeting = meetingUuid === null ? undefined : await findMeetingByUuid(ctx.db, meetingUuid);
  const now = ctx.now();
  if (!meeting || meeting.end <= now) throw new NotFoundError('booking');
  const topic = await findTopicIncludingDeleted(ctx.db, meeting.topicUuid);
  if (!topic) throw new NotFoundError('booking');
  return { meeting: { ...meeting, status: statusAt(meeting, now) }, topic, now };
}

export function changeDeadlineOf(meeting: Pick<Meeting, 'start'>, topic: Pick<MeetingTopic, 'cancellationNoticeMinutes'>): number {
  return meeting.start - topic.cancellationNoticeMinutes * 60_000;
}

/** Refuses a change after the notice window (403 with the deadline in the detail). */
function requireChangeable(meeting: Meeting, topic: Pick<MeetingTopic, 'cancellationNoticeMinutes'>, now: number): void {
  const deadline = changeDeadlineOf(meeting, topic);
  if (now >= deadline) {
    throw new ForbiddenError(
      `This booking can no longer be changed online: changes are possible until ${new Date(deadline).toISOString()}` +
        (topic.cancellationNoticeMinutes > 0 ? ` (${topic.cancellationNoticeMinutes} minutes before the start)` : '') +
        '. Please contact the host.',
    );
  }
  if (meeting.status !== 'confirmed' && meeting.status !== 'pending_payment') throw new ForbiddenError(`This booking is ${meeting.status} and can no longer be changed`);
}

function participantOf(meeting: Meeting): ParticipantActor {
  return { accountUuid: meeting.accountUuid, participantOf: meeting.uuid };
}

export async function getManagedBooking(ctx: Pick<UseCaseContext, 'now' | 'db' | 'secretKey' | 'publicUrl'>, token: string): Promise<ManagedBooking> {
  const { meeting, topic, now } = await findByToken(ctx, token);
  const host = await findUser(ctx.db, meeting.accountUuid, meeting.hostUuid);
  const changeDeadline = changeDeadlineOf(meeting, topic);
  const payment = (await findPaymentsOfBookings(ctx.db, [meeting.bookingUuid])).get(meeting.bookingUuid);
  const bookAgainPath = await bookAgainPathOf(ctx, meeting, topic);
  const branding = await getBranding(ctx, meeting.accountUuid);
  return {
    meeting,
    branding,
    topic: {
      uuid: topic.uuid,
      name: topic.name,
      description: topic.description,
      durationMinutes: topic.durationMinutes,
      cancellationNoticeMinutes: topic.cancellationNoticeMinutes,
      confirmationMessage: topic.confirmationMessage,
      translations: topic.translations,
      form: topic.form,
    },
    hostName: host ? `${host.firstName} ${host.lastName}` : meeting.hostUsername,
    canChange: now < changeDeadline && (meeting.status === 'confirmed' || meeting.status === 'pending_payment'),
    changeDeadline,
    payment: payment ? { amount: payment.amount, currency: payment.currency, status: payment.status } : null,
    bookAgainPath,
  };
}

/**
 * The meeting as an iCalendar file for the participant's own calendar ("add to calendar" on
 * the confirmation and manage pages): the same UID as the e-mailed invitation, so importing
 * both leaves one event, and the manage link as its URL.
 */
export async function invitationForToken(ctx: Pick<UseCaseContext, 'publicUrl' | 'now' | 'db' | 'secretKey'>, token: string): Promise<string> {
  const managed = await getManagedBooking(ctx, token);
  const { meeting } = managed;
  const { location } = meeting;
  const link = manageUrl(ctx.publicUrl, ctx.secretKey, meeting.uuid);
  return renderMeetingEvent({
    uuid: meeting.uuid,
    start: meeting.start,
    end: meeting.end,
    summary: `${managed.topic.name}: ${managed.hostName}`,
    description: [meeting.location.url, link].filter((line) => line).join('\n'),
    location: location.url ?? location.address ?? location.phone ?? location.text ?? PLACE_LABELS[meeting.participant.lang][meeting.place],
    url: link,
    sequence: meeting.sequence,
    status: meeting.status === 'cancelled' || meeting.status === 'expired' ? 'cancelled' : meeting.status === 'pending_payment' ? 'tentative' : 'confirmed',
  });
}

/** The participant cancels (within the notice window); participant and host are told as for any cancellation. */
export async function cancelByToken(ctx: Pick<UseCaseContext, 'now' | 'db' | 'secretKey'>, token: string, reason: string | undefined): Promise<Meeting> {
  const { meeting, topic, now } = await findByToken(ctx, token);
  requireChangeable(meeting, topic, now);
  return cancelMeeting(ctx, participantOf(meeting), meeting.uuid, reason);
}

/** The participant moves the meeting (within the notice window, checked again under the host locks). */
export async function rescheduleByToken(ctx: Pick<UseCaseContext, 'now' | 'db' | 'secretKey'>, token: string, input: RescheduleInput): Promise<Meeting> {
  const { meeting } = await findByToken(ctx, token);
  return rescheduleMeeting(ctx, participantOf(meeting), meeting.uuid, input, requireChangeable);
}

/** The calendar to move to, for the participant holding the manage link: see scheduleForMeetingMove. */
export async function scheduleForToken(
  ctx: Pick<UseCaseContext, 'now' | 'db' | 'reads' | 'scheduleCache' | 'secretKey'>,
  token: string,
  input: MoveScheduleInput,
): Promise<Schedule> {
  const { meeting, now } = await findByToken(ctx, token);
  return scheduleForMeetingMove(ctx, meeting, input, now);
}
