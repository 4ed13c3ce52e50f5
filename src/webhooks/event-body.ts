import type { Connection } from '../domain/integrations.js';
import { isReminderEvent, type DomainEvent, type ReminderEventData, type RescheduledEventData } from '../domain/events.js';
import type { Meeting } from '../domain/meeting.js';
import type { Member } from '../domain/user.js';
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
  const data = event.data as { meeting?: Meeting };
  return event.type.startsWith('meeting.') && data.meeting ? data.meeting : undefined;
}

function webhookData(event: DomainEvent, payment: Payment | undefined): unknown {
  const data = event.data as Record<string, unknown>;
  const meeting = meetingOfEvent(event);
  if (meeting) {
    const record = meetingWithPaymentToJson(meeting, payment);
    const previous = event.type === 'meeting.rescheduled' ? (data as Partial<RescheduledEventData>).previous : undefined;
    // Which reminder went out, so a receiver can tell the day-before e-mail from the hour-before SMS.
    if (isReminderEvent(event.type)) {
      const { minutesBefore, channel, to } = (data as unknown as ReminderEventData).reminder;
      return { ...record, reminder: { minutesBefore, channel, to } };
    }
    // Where it was before, so a receiver can move its own copy (or tell the participant) without having kept it.
    return previous ? { ...record, previous: { start: toIso(previous.start), end: toIso(previous.end), host: previous.username } } : record;
  }
  // Payment events record the payment already as the API shows it (paymentRecord in src/domain/representations.ts).
  if (event.type.startsWith('payment.') && data.payment) return data.payment;
  if (event.type.startsWith('member.') && data.member) return memberToJson(data.member as Member);
  if (event.type.startsWith('connection.') && data.connection) return connectionToJson(data.connection as Connection);
  return data;
}
