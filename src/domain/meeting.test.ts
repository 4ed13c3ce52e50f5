import { describe, expect, it } from 'vitest';
import { approvalDeadline, statusAt } from './meeting.js';

const at = (iso: string) => Date.parse(iso);

describe('approvalDeadline', () => {
  it.each([
    // booked, start, hours → deadline
    ['2027-01-04T08:00:00Z', '2027-01-08T10:00:00Z', 24, '2027-01-05T08:00:00Z'],
    ['2027-01-04T08:00:00Z', '2027-01-04T15:00:00Z', 24, '2027-01-04T15:00:00Z'],
    ['2027-01-04T08:00:00Z', '2027-01-04T09:00:00Z', 1, '2027-01-04T09:00:00Z'],
    ['2027-01-04T08:00:00Z', '2027-03-01T09:00:00Z', 720, '2027-02-03T08:00:00Z'],
    // Hours are elapsed time: across the spring DST change in Warsaw still 24 real hours.
    ['2027-03-27T12:00:00Z', '2027-04-02T09:00:00Z', 24, '2027-03-28T12:00:00Z'],
  ])('booked %s for %s with %i hours: %s', (booked, start, hours, deadline) => {
    expect(approvalDeadline(at(booked), at(start), hours)).toBe(at(deadline));
  });
});

describe('statusAt', () => {
  const deadline = at('2027-01-05T08:00:00Z');
  it.each([
    ['pending_approval', -1, 'pending_approval'],
    ['pending_approval', 0, 'declined'],
    ['pending_payment', -1, 'pending_payment'],
    ['pending_payment', 0, 'expired'],
    ['declined', 1, 'declined'],
    ['confirmed', 1, 'confirmed'],
  ] as const)('%s, %i ms from its hold’s end, reads %s', (status, offset, expected) => {
    expect(statusAt({ status, holdExpiresAt: deadline }, deadline + offset)).toBe(expected);
  });
});
