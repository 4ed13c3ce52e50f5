import { isMeetingEvent, isPaymentEvent, isReminderEvent, type DomainEvent } from '../domain/events.js';
import type { Meeting } from '../domain/meeting.js';
import type { Payment } from '../domain/payment.js';
import { meetingWithPaymentToJson, memberToJson, toIso, connectionToJson } from '../domain/representations.js';

/**
 * The JSON body of a delivery: `{ type, timestamp, data }`, `data` being the record the API
 * returns for the event's subject as it was when the event happened: a meeting as
 * `GET /meetings/{uuid}` shows it (with its booking's `payment` summary, passed in), a
 * payment as `GET /payments/{uuid}`'s `payment`, a member as `GET /teams/{teamUuid}/users`
 * lists them; `meeting.rescheduled` adds `previous: { start, end, host }` (host: the username
 * the record's `username` named before the move). Made once per event; every attempt of a delivery sends these very bytes.
 *
 * @example
 * webhookBody({ type: 'meeting.cancelled', occurredAt: 1_799_056_800_000, data: { meeting }, … }, undefined)
 * // '{"type":"meeting.cancelled","timestamp":"2027-01-04T08:00:00.000Z","data":{"uuid":"…","status":"cancelled",…,"payment":null}}'
 */
export function webhookBody(event: DomainEvent, payment: Payment | undefined): string {
  return JSON.stringify({ type: event.type, timestamp: toIso(event.occurredAt), data: webhookData(event, payment) });
}

/** The meeting an event is about, if it is a `meeting.*` event. */
export function meetingOfEvent(event: DomainEvent): Meeting | undefined {
  return isMeetingEvent(event) && event.data.meeting ? event.data.meeting : undefined;
}

function webhookData(event: DomainEvent, payment: Payment | undefined): unknown {
  if (isMeetingEvent(event) && event.data.meeting) {
    const record = meetingWithPaymentToJson(event.data.meeting, payment);
    // Which reminder went out, so a receiver can tell the day-before e-mail from the hour-before SMS.
    if (isReminderEvent(event)) {
      const { minutesBefore, channel, to } = event.data.reminder;
      return { ...record, reminder: { minutesBefore, channel, to } };
    }
    const previous = event.type === 'meeting.rescheduled' ? event.data.previous : undefined;
    // Where it was before, so a receiver can move its own copy (or tell the participant) without having kept it.
    return previous ? { ...record, previous: { start: toIso(previous.start), end: toIso(previous.end), host: previous.username } } : record;
  }
  // Payment events record the payment already as the API shows it (paymentRecord in src/domain/representations.ts).
  if (isPaymentEvent(event) && event.data.payment) return event.data.payment;
  if ((event.type === 'member.created' || event.type === 'member.deleted') && event.data.member) return memberToJson(event.data.member);
  if (event.type === 'connection.error' && event.data.connection) return connectionToJson(event.data.connection);
  return event.data;
}
