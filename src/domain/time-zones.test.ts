import { describe, expect, it } from 'vitest';
import { formatLocalDate, isValidTimeZone, localEpochDay, localToInstant, parseLocalDate, zoneOffset } from './time-zones.js';

describe('isValidTimeZone', () => {
  it.each(['Europe/Warsaw', 'America/New_York', 'Asia/Kolkata', 'Pacific/Kiritimati', 'UTC', 'Etc/UTC', 'Australia/Lord_Howe'])('accepts %s', (zone) => {
    expect(isValidTimeZone(zone)).toBe(true);
  });
  it.each(['', 'Mars/Base', '+02:00', 'UTC+2', 'GMT-5', 'europe/nowhere', 'Warsaw'])('rejects %j', (zone) => {
    expect(isValidTimeZone(zone)).toBe(false);
  });
});

describe('localToInstant', () => {
  const day = (date: string) => parseLocalDate(date);
  it.each([
    ['Europe/Warsaw', '2027-01-15', 9 * 60, '2027-01-15T08:00:00.000Z'],
    ['Europe/Warsaw', '2027-07-15', 9 * 60, '2027-07-15T07:00:00.000Z'],
    // Spring forward: 02:30 does not exist; it becomes the jump (02:00 winter = 03:00 summer time).
    ['Europe/Warsaw', '2027-03-28', 150, '2027-03-28T01:00:00.000Z'],
    ['Europe/Warsaw', '2027-03-28', 120, '2027-03-28T01:00:00.000Z'],
    ['Europe/Warsaw', '2027-03-28', 180, '2027-03-28T01:00:00.000Z'],
    // Fall back: 02:30 happens twice; the first occurrence (summer time) is taken.
    ['Europe/Warsaw', '2027-10-31', 150, '2027-10-31T00:30:00.000Z'],
    ['America/New_York', '2027-03-14', 150, '2027-03-14T07:00:00.000Z'],
    // Lord Howe moves by half an hour.
    ['Australia/Lord_Howe', '2027-10-03', 135, '2027-10-02T15:30:00.000Z'],
    ['America/New_York', '2027-11-07', 90, '2027-11-07T05:30:00.000Z'],
    ['Asia/Kolkata', '2027-01-15', 0, '2027-01-14T18:30:00.000Z'],
    ['Pacific/Kiritimati', '2027-01-15', 0, '2027-01-14T10:00:00.000Z'],
    ['Europe/Warsaw', '2027-01-15', 1440, '2027-01-15T23:00:00.000Z'],
  ])('%s %s at minute %i is %s', (zone, date, minutes, expected) => {
    expect(new Date(localToInstant(zone, day(date), minutes)).toISOString()).toBe(expected);
  });
});

describe('calendar helpers', () => {
  it('knows offsets and local dates of instants', () => {
    expect(zoneOffset('Asia/Kathmandu', Date.parse('2027-01-01T00:00:00Z'))).toBe(345);
    expect(formatLocalDate(localEpochDay('Asia/Tokyo', Date.parse('2027-01-01T23:30:00Z')))).toBe('2027-01-02');
    expect(formatLocalDate(localEpochDay('America/Los_Angeles', Date.parse('2027-01-01T07:30:00Z')))).toBe('2026-12-31');
  });
  it.each(['2027-02-29', '2027-13-01', '2027-1-01', 'tomorrow'])('rejects %j as a date', (date) => {
    expect(parseLocalDate(date)).toBeNaN();
  });
  it('accepts leap days', () => {
    expect(formatLocalDate(parseLocalDate('2028-02-29'))).toBe('2028-02-29');
  });
});
