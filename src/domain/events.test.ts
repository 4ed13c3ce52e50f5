import { describe, expect, it } from 'vitest';
import { isMeetingEvent, isPaymentEvent, isReminderEvent, type DomainEvent } from './events.js';
import type { Meeting } from './meeting.js';
import type { PaymentRecord } from './representations.js';

const meeting = { uuid: 'm', status: 'confirmed' } as Meeting;
const payment = { uuid: 'p', status: 'paid' } as PaymentRecord;
const common = { uuid: 'e', accountUuid: 'a', subjectUuid: 's', occurredAt: 0 };

describe('DomainEvent', () => {
  it.each<[string, DomainEvent, boolean, boolean, boolean]>([
    ['meeting.cancelled', { ...common, type: 'meeting.cancelled', data: { meeting, previousStatus: 'confirmed' } }, true, false, false],
    [
      'meeting.reminder_sent',
      {
        ...common,
        type: 'meeting.reminder_sent',
        data: { meeting, reminder: { minutesBefore: 60, channel: 'sms', to: 'participant', status: 'sent', detail: null } },
      },
      true,
      true,
      false,
    ],
    ['payment.paid', { ...common, type: 'payment.paid', data: { payment, meetings: ['m'], late: false } }, false, false, true],
    ['connection.error', { ...common, type: 'connection.error', data: { connection: {} as never } }, false, false, false],
  ])('%s: a meeting event %s, a reminder event %s, a payment event %s', (_type, event, meetingEvent, reminderEvent, paymentEvent) => {
    expect(isMeetingEvent(event)).toBe(meetingEvent);
    expect(isReminderEvent(event)).toBe(reminderEvent);
    expect(isPaymentEvent(event)).toBe(paymentEvent);
  });

  it("gives `data` its type's shape: another type's data does not compile", () => {
    const events: DomainEvent[] = [
      { ...common, type: 'meeting.rescheduled', data: { meeting, previous: { start: 0, end: 1, hostUuid: 'h', username: 'olga' } } },
      // @ts-expect-error a move records where the meeting was before
      { ...common, type: 'meeting.rescheduled', data: { meeting } },
      // @ts-expect-error a payment event carries the payment, not a meeting
      { ...common, type: 'payment.pending', data: { meeting } },
    ];
    const event = events[0]!;
    // Narrowed by its type, no cast: `previous` is there.
    expect(event.type === 'meeting.rescheduled' ? event.data.previous.username : null).toBe('olga');
  });
});
