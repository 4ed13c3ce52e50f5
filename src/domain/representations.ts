import type { Meeting } from './meeting.js';
import { type Payment, type PaymentStatus, paymentStatusAt } from './payment.js';
import { locationWithoutDetails, type MeetingLocation } from './place-details.js';
import type { Connection } from './integrations.js';
import type { Team } from './team.js';
import type { Member, User } from './user.js';

/**
 * Domain objects as every reader outside the service sees them: the API's responses, the
 * webhooks' bodies and the data events record share these shapes, so they cannot drift
 * apart. Epoch milliseconds become ISO 8601 UTC strings.
 */

export function toIso(ms: number): string {
  return new Date(ms).toISOString();
}

export function teamToJson(team: Team) {
  return { uuid: team.uuid, name: team.name };
}

export function memberToJson(member: Member) {
  return {
    uuid: member.uuid,
    firstName: member.firstName,
    lastName: member.lastName,
    email: member.email,
    username: member.username,
    admin: member.admin,
    timezone: member.timezone,
    language: member.language,
    createdAt: toIso(member.createdAt),
  };
}

export function userToJson(user: User) {
  return {
    uuid: user.uuid,
    firstName: user.firstName,
    lastName: user.lastName,
    email: user.email,
    username: user.username,
    timezone: user.timezone,
    language: user.language,
    createdAt: toIso(user.createdAt),
  };
}

export function meetingToJson(meeting: Meeting) {
  return {
    uuid: meeting.uuid,
    meetingTopic: meeting.topicUuid,
    team: meeting.teamUuid,
    username: meeting.hostUsername,
    // Everyone the meeting holds: the host alone, or every host of a collective topic.
    hosts: [meeting.hostUsername, ...(meeting.coHosts ?? []).map((host) => host.username)],
    start: toIso(meeting.start),
    end: toIso(meeting.end),
    // The length chosen when booked (one of the topic's durations).
    durationMinutes: Math.round((meeting.end - meeting.start) / 60_000),
    status: meeting.status,
    place: meeting.place,
    // Events and idempotent replays recorded before locations existed carry none.
    location: locationToJson(meeting.location ?? locationWithoutDetails(meeting.place, meeting.participant.phone)),
    // Named field by field: the record the API documents, whatever else the domain keeps (the locale stays internal).
    participant: {
      name: meeting.participant.name,
      // An erased participant's e-mail is gone (kept as '' in the row, see erasedMeeting).
      email: meeting.participant.email === '' ? null : meeting.participant.email,
      phone: meeting.participant.phone,
      timezone: meeting.participant.timezone,
      lang: meeting.participant.lang,
    },
    note: meeting.note,
    // Events recorded before guests existed carry none.
    guests: meeting.guests ?? [],
    priceVariant: meeting.priceVariantUuid,
    form: meeting.form,
    metadata: meeting.metadata,
    invoice: meeting.invoice,
    createdAt: toIso(meeting.createdAt),
    updatedAt: toIso(meeting.updatedAt),
    cancelledAt: meeting.cancelledAt === null ? null : toIso(meeting.cancelledAt),
    cancelReason: meeting.cancelReason,
    // Events recorded before no-shows existed carry none.
    noShow: meeting.noShow ?? null,
    declineReason: meeting.declineReason ?? null,
  };
}

/** A meeting's location with every field present (locations stored before rooms had no conferenceId or password). */
export function locationToJson(location: MeetingLocation) {
  return { ...location, conferenceId: location.conferenceId ?? null, password: location.password ?? null };
}

/** A host's connection as the API shows it (and `connection.error` carries it): never a token. */
export function connectionToJson(connection: Connection) {
  return {
    uuid: connection.uuid,
    provider: connection.provider,
    user: connection.userUuid,
    status: connection.status,
    accountEmail: connection.accountEmail,
    lastError: connection.lastError,
    createdAt: toIso(connection.createdAt),
    connectedAt: connection.connectedAt === null ? null : toIso(connection.connectedAt),
  };
}

/** A meeting with its booking's payment summary (null for a free meeting): GET /meetings and GET /meetings/{uuid}. */
export function meetingWithPaymentToJson(meeting: Meeting, payment: Payment | undefined) {
  return {
    ...meetingToJson(meeting),
    payment:
      payment === undefined
        ? null
        : {
            uuid: payment.uuid,
            status: payment.status,
            amount: payment.amount,
            currency: payment.currency,
            gateway: payment.gateway,
            paidAt: payment.paidAt === null || payment.paidAt === undefined ? null : toIso(payment.paidAt),
            refundedAmount: payment.refundedAmount ?? 0,
          },
  };
}

/**
 * A payment as the API shows it (and as webhooks carry it):
 * `{ uuid, gateway, status, amount, currency, redirectUrl, expiresAt, paidAt, refundedAmount }`
 * plus the discount code applied.
 */
export interface PaymentRecord {
  uuid: string;
  gateway: Payment['gateway'];
  status: PaymentStatus;
  amount: number;
  currency: string;
  redirectUrl: string;
  expiresAt: string;
  paidAt: string | null;
  refundedAmount: number;
  discountCode: string | null;
}

/** The service's payment page for the booking, which hands over to the gateway. */
export function payUrl(publicUrl: string, paymentUuid: string): string {
  return `${publicUrl}/pay/${paymentUuid}`;
}

/** With `now`, a pending payment whose hold ran out reads `expired` (see paymentStatusAt). */
export function paymentRecord(payment: Payment, publicUrl: string, now?: number): PaymentRecord {
  return {
    uuid: payment.uuid,
    gateway: payment.gateway,
    status: now === undefined ? payment.status : paymentStatusAt(payment, now),
    amount: payment.amount,
    currency: payment.currency,
    redirectUrl: payUrl(publicUrl, payment.uuid),
    expiresAt: toIso(payment.expiresAt),
    // `?? `: a booking replayed from an idempotency record stored before payments had these.
    paidAt: payment.paidAt === null || payment.paidAt === undefined ? null : toIso(payment.paidAt),
    refundedAmount: payment.refundedAmount ?? 0,
    discountCode: payment.discountCode,
  };
}
