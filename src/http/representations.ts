import type { Member } from '../domain/user.js';
import type { Team } from '../domain/team.js';
import type { AccountView } from '../scheduling/account.js';
import type { ApiKeyRecord } from '../db/repositories/api-keys.js';
import type { Payment } from '../db/repositories/payments.js';
import { paymentRecord } from '../scheduling/payments/record.js';
import type { Meeting } from '../domain/meeting.js';
import { locationWithoutDetails } from '../domain/place-details.js';

/** Domain objects as the API shows them: epoch milliseconds become ISO 8601 UTC strings. */
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
    createdAt: toIso(member.createdAt),
  };
}

export function accountToJson(account: AccountView) {
  return {
    uuid: account.uuid,
    name: account.name,
    timezone: account.timezone,
    maxUsers: account.maxUsers,
    activeUsers: account.activeUsers,
    places: account.places,
    gateways: account.gateways.map((gateway) => ({ code: gateway.code, configured: gateway.configured, settings: gateway.settings })),
    createdAt: toIso(account.createdAt),
  };
}

export function apiKeyToJson(key: ApiKeyRecord) {
  return { uuid: key.uuid, name: key.name, createdAt: toIso(key.createdAt), lastUsedAt: key.lastUsedAt === null ? null : toIso(key.lastUsedAt) };
}

export function meetingToJson(meeting: Meeting) {
  return {
    uuid: meeting.uuid,
    meetingTopic: meeting.topicUuid,
    team: meeting.teamUuid,
    username: meeting.hostUsername,
    start: toIso(meeting.start),
    end: toIso(meeting.end),
    status: meeting.status,
    place: meeting.place,
    // Events and idempotent replays recorded before locations existed carry none.
    location: meeting.location ?? locationWithoutDetails(meeting.place, meeting.participant.phone),
    participant: meeting.participant,
    note: meeting.note,
    priceVariant: meeting.priceVariantUuid,
    form: meeting.form,
    metadata: meeting.metadata,
    invoice: meeting.invoice,
    createdAt: toIso(meeting.createdAt),
    cancelledAt: meeting.cancelledAt === null ? null : toIso(meeting.cancelledAt),
    cancelReason: meeting.cancelReason,
  };
}

/** `redirectUrl` leads to the service's payment page for the booking, which hands over to the gateway. */
export function paymentToJson(payment: Payment, publicUrl: string) {
  return paymentRecord(payment, publicUrl);
}

/** A meeting with its booking's payment summary (null for a free meeting): GET /meetings and GET /meetings/{uuid}. */
export function meetingWithPaymentToJson(meeting: Meeting, payment: Payment | undefined) {
  return {
    ...meetingToJson(meeting),
    payment:
      payment === undefined
        ? null
        : { uuid: payment.uuid, status: payment.status, amount: payment.amount, currency: payment.currency, gateway: payment.gateway, paidAt: payment.paidAt === null || payment.paidAt === undefined ? null : toIso(payment.paidAt), refundedAmount: payment.refundedAmount ?? 0 },
  };
}
