import { describe, expect, it } from 'vitest';
import { payloadProblem, type JobKind, type NewJob } from './job-kinds.js';

/**
 * Each kind's schema accepts what its writers queue (and what they queued before: fields the
 * readers never looked at, fields since added) and refuses only what its hand-written reader
 * used to refuse, with the same reason.
 */
describe('payloadProblem', () => {
  const reminder = { accountUuid: 'a', meetingUuid: 'm', start: 1_799_056_800_000, minutesBefore: 1440, channel: 'email', to: 'participant' };
  const accepted: [JobKind, unknown][] = [
    ['event', { eventUuid: 'e' }],
    ['email', { notice: true, to: { name: 'Ada', email: 'ada@example.com' }, subject: 'Hello', text: 'Hi' }],
    // A booking message queued before `location` existed: the sender renders it with its default.
    ['email', { event: 'confirmed', recipient: 'participant', to: { name: 'Ada', email: 'ada@example.com' }, lang: 'en', timezone: 'UTC' }],
    ['calendar-write', { calendarUuid: 'c', accountUuid: 'a', meetingUuid: 'm' }],
    ['payment-refund', { refundUuid: 'r' }],
    ['payment-email', { event: 'pending', to: { name: 'Ada', email: 'ada@example.com' }, lang: 'pl' }],
    ['webhook', { deliveryUuid: 'd' }],
    ['webhook', { deliveryUuid: 'd', manual: true }],
    ['conference-room', { meetingUuid: 'm', accountUuid: 'a' }],
    ['conference-room', { meetingUuid: 'm', accountUuid: 'a', deadline: true }],
    ['reminder', reminder],
    ['reminder', { ...reminder, channel: 'sms', to: 'host' }],
    // A field no reader knows (left by another version) is let through.
    ['event', { eventUuid: 'e', queuedBy: 'an older version' }],
  ];
  it.each(accepted)('accepts a %s job carrying %j', (kind, payload) => {
    expect(payloadProblem(kind, payload)).toBeNull();
  });

  const refused: [JobKind, unknown, string][] = [
    ['event', {}, 'an event job without an event'],
    ['event', null, 'an event job without an event'],
    ['email', { to: { name: 'Ada' } }, 'an e-mail job without a recipient'],
    ['email', 'ada@example.com', 'an e-mail job without a recipient'],
    ['calendar-write', { calendarUuid: 'c', meetingUuid: 'm' }, 'a calendar-write job without its calendar or meeting'],
    ['payment-refund', { refundUuid: 7 }, 'a refund job without a refund'],
    ['payment-email', {}, 'a payment e-mail job without a recipient'],
    ['webhook', { manual: true }, 'a webhook job without a delivery'],
    ['conference-room', { meetingUuid: 'm' }, 'a conference-room job without its meeting'],
    ['reminder', { ...reminder, start: '2027-01-04T08:00:00.000Z' }, 'a reminder job without its meeting or reminder'],
    ['reminder', { ...reminder, channel: 'pigeon' }, 'a reminder job without its meeting or reminder'],
    ['reminder', { ...reminder, to: 'everyone' }, 'a reminder job without its meeting or reminder'],
  ];
  it.each(refused)('refuses a %s job carrying %j', (kind, payload, reason) => {
    expect(payloadProblem(kind, payload)).toBe(reason);
  });

  it('takes the payload of a kind it has no schema for as it is (the outbox runs any kind)', () => {
    expect(payloadProblem('test-kind', { anything: 1 })).toBeNull();
  });

  it('types a job by its kind: a payload of another kind does not compile', () => {
    const jobs: NewJob[] = [
      { uuid: 'j1', kind: 'webhook', payload: { deliveryUuid: 'd' } },
      // @ts-expect-error a webhook job carries a delivery, not an event
      { uuid: 'j2', kind: 'webhook', payload: { eventUuid: 'e' } },
    ];
    expect(jobs).toHaveLength(2);
  });
});
