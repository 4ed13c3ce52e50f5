import { describe, expect, it } from 'vitest';
import { canonicalTimeZone, formatLocalDate, isValidTimeZone, localEpochDay, localToInstant, nextOffsetChange, parseLocalDate, zoneOffset } from './time-zones.js';

describe('isValidTimeZone', () => {
  it.each(['Europe/Warsaw', 'America/New_York', 'Asia/Kolkata', 'Pacific/Kiritimati', 'UTC', 'Etc/UTC', 'Australia/Lord_Howe'])('accepts %s', (zone) => {
    expect(isValidTimeZone(zone)).toBe(true);
  });
  it.each(['', 'Mars/Base', '+02:00', 'UTC+2', 'GMT-5', 'europe/nowhere', 'Warsaw'])('rejects %j', (zone) => {
    expect(isValidTimeZone(zone)).toBe(false);
  });
});

describe('canonicalTimeZone', () => {
  it.each([
    ['europe/WARSAW', 'Europe/Warsaw'],
    ['Europe/Warsaw', 'Europe/Warsaw'],
    ['AMERICA/NEW_YORK', 'America/New_York'],
    ['america/port-au-prince', 'America/Port-au-Prince'],
    ['australia/lord_howe', 'Australia/Lord_Howe'],
    ['utc', 'UTC'],
    ['UTC', 'UTC'],
    ['etc/gmt+5', 'Etc/GMT+5'],
  ])('spells %j as %j', (name, expected) => {
    expect(canonicalTimeZone(name)).toBe(expected);
  });

  it.each(['', 'Mars/Base', 'europe/nowhere', 'Warsaw', '+02:00', 'UTC+2', 'gmt-5', 'Europe/Warsaw '])('gives null for %j', (name) => {
    expect(canonicalTimeZone(name)).toBeNull();
  });

  it('keeps what Intl says about links, and one spelling per zone whatever the case', () => {
    // Node 20 (ICU 78) keeps the old CLDR names: Asia/Kolkata becomes Asia/Calcutta. Newer
    // runtimes may keep either as given, so the test pins only what must hold everywhere.
    for (const link of ['Asia/Calcutta', 'Asia/Kolkata', 'Europe/Kiev', 'Europe/Kyiv', 'US/Eastern', 'Etc/UTC']) {
      const spelled = canonicalTimeZone(link);
      expect(spelled).toBe(new Intl.DateTimeFormat(undefined, { timeZone: link }).resolvedOptions().timeZone);
      expect(canonicalTimeZone(link.toLowerCase())).toBe(spelled);
      expect(canonicalTimeZone(link.toUpperCase())).toBe(spelled);
      expect(canonicalTimeZone(spelled!)).toBe(spelled); // a canonical name is its own canonical name
    }
    expect(['Asia/Calcutta', 'Asia/Kolkata']).toContain(canonicalTimeZone('asia/kolkata'));
  });

  it('maps every zone Intl lists to a name that is valid and stable', () => {
    const zones = Intl.supportedValuesOf('timeZone');
    expect(zones.length).toBeGreaterThan(300);
    for (const zone of zones) {
      const spelled = canonicalTimeZone(zone.toLowerCase());
      expect(spelled, zone).not.toBeNull();
      expect(isValidTimeZone(spelled!), zone).toBe(true);
      expect(canonicalTimeZone(spelled!), zone).toBe(spelled);
    }
  });

  it('answers a repeated name from memory', () => {
    const format = Intl.DateTimeFormat;
    let calls = 0;
    // A function expression, not an arrow: the code under test calls it with `new`.
    // biome-ignore lint/complexity/useArrowFunction: arrows cannot be constructed.
    const counting = function (...args: ConstructorParameters<typeof Intl.DateTimeFormat>) {
      calls += 1;
      return new format(...args);
    } as unknown as typeof Intl.DateTimeFormat;
    Intl.DateTimeFormat = counting;
    try {
      const first = canonicalTimeZone('asia/TOKYO');
      const before = calls;
      for (let i = 0; i < 1000; i += 1) expect(canonicalTimeZone('asia/TOKYO')).toBe(first);
      expect(first).toBe('Asia/Tokyo');
      expect(calls).toBe(before);
    } finally {
      Intl.DateTimeFormat = format;
    }
  });
});

describe('nextOffsetChange', () => {
  const at = (iso: string) => Date.parse(iso);
  it.each([
    ['Europe/Warsaw', '2027-03-27T23:00:00Z', '2027-03-28T05:00:00Z', '2027-03-28T01:00:00.000Z'],
    ['Europe/Warsaw', '2027-10-30T22:00:00Z', '2027-10-31T05:00:00Z', '2027-10-31T01:00:00.000Z'],
    ['Australia/Lord_Howe', '2027-04-03T13:00:00Z', '2027-04-04T13:00:00Z', '2027-04-03T15:00:00.000Z'],
    ['Australia/Lord_Howe', '2027-10-02T13:30:00Z', '2027-10-02T19:00:00Z', '2027-10-02T15:30:00.000Z'],
    // From a moment that is not on a quarter hour, to the change itself (not included).
    ['America/New_York', '2027-03-14T05:07:00Z', '2027-03-14T07:01:00Z', '2027-03-14T07:00:00.000Z'],
    ['America/New_York', '2027-03-14T05:07:00Z', '2027-03-14T07:00:00Z', '2027-03-14T07:00:00.000Z'],
    ['Europe/Warsaw', '2027-07-01T00:00:00Z', '2027-07-02T00:00:00Z', '2027-07-02T00:00:00.000Z'],
    ['UTC', '2027-03-28T00:00:00Z', '2027-03-28T00:10:00Z', '2027-03-28T00:10:00.000Z'],
  ])('%s from %s to %s: %s', (zone, from, to, expected) => {
    expect(new Date(nextOffsetChange(zone, at(from), at(to))).toISOString()).toBe(expected);
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
  it('gives every spelling of a zone the same offsets', () => {
    const instant = Date.parse('2027-07-01T00:00:00Z');
    expect([zoneOffset('Europe/Warsaw', instant), zoneOffset('europe/warsaw', instant), zoneOffset('EUROPE/WARSAW', instant)]).toEqual([120, 120, 120]);
  });
  it.each(['2027-02-29', '2027-13-01', '2027-1-01', 'tomorrow'])('rejects %j as a date', (date) => {
    expect(parseLocalDate(date)).toBeNaN();
  });
  it('accepts leap days', () => {
    expect(formatLocalDate(parseLocalDate('2028-02-29'))).toBe('2028-02-29');
  });
});
