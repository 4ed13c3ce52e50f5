import { describe, expect, it } from 'vitest';
import { createDefaultAvailability, normalizeAvailability, validateAvailability, type Availability } from './availability.js';

const empty = (): Availability['weekly'] => ({ monday: [], tuesday: [], wednesday: [], thursday: [], friday: [], saturday: [], sunday: [] });

describe('validateAvailability', () => {
  it('accepts the default and touching intervals ending at 24:00', () => {
    expect(validateAvailability(createDefaultAvailability('Europe/Warsaw'))).toEqual([]);
    const weekly = {
      ...empty(),
      monday: [
        { start: '09:00', end: '12:00' },
        { start: '12:00', end: '24:00' },
      ],
    };
    expect(validateAvailability({ timezone: 'UTC', weekly, overrides: [] })).toEqual([]);
  });

  it.each([
    [{ monday: [{ start: '9:00', end: '12:00' }] }, [{ path: '/weekly/monday/0/start', message: 'must be a time HH:MM from 00:00 to 23:59' }]],
    [{ monday: [{ start: '24:00', end: '24:00' }] }, [{ path: '/weekly/monday/0/start', message: 'must be a time HH:MM from 00:00 to 23:59' }]],
    [{ monday: [{ start: '09:00', end: '24:30' }] }, [{ path: '/weekly/monday/0/end', message: 'must be a time HH:MM from 00:00 to 24:00' }]],
    [{ friday: [{ start: '12:00', end: '12:00' }] }, [{ path: '/weekly/friday/0', message: 'must start before it ends' }]],
    [
      {
        sunday: [
          { start: '13:00', end: '15:00' },
          { start: '09:00', end: '13:30' },
        ],
      },
      [{ path: '/weekly/sunday/1', message: 'overlaps /weekly/sunday/0' }],
    ],
    [
      {
        monday: [
          { start: '09:00', end: '17:00' },
          { start: '10:00', end: '11:00' },
          { start: '12:00', end: '13:00' },
        ],
      },
      [
        { path: '/weekly/monday/1', message: 'overlaps /weekly/monday/0' },
        { path: '/weekly/monday/2', message: 'overlaps /weekly/monday/0' },
      ],
    ],
  ])('%j', (days, expected) => {
    expect(validateAvailability({ timezone: 'UTC', weekly: { ...empty(), ...days }, overrides: [] })).toEqual(expected);
  });

  it('checks overrides: real dates, no duplicates, valid intervals', () => {
    const errors = validateAvailability({
      timezone: 'UTC',
      weekly: empty(),
      overrides: [
        { date: '2027-02-29', intervals: [] },
        { date: '2027-12-24', intervals: [{ start: '10:00', end: '09:00' }] },
        { date: '2027-12-24', intervals: [] },
      ],
    });
    expect(errors).toEqual([
      { path: '/overrides/0/date', message: 'must be a real calendar date (YYYY-MM-DD)' },
      { path: '/overrides/1/intervals/0', message: 'must start before it ends' },
      { path: '/overrides/2/date', message: 'duplicates an earlier override' },
    ]);
  });
});

describe('normalizeAvailability', () => {
  it('sorts intervals by start and overrides by date', () => {
    const normalized = normalizeAvailability({
      timezone: 'UTC',
      weekly: {
        ...empty(),
        monday: [
          { start: '13:00', end: '14:00' },
          { start: '08:00', end: '09:00' },
        ],
      },
      overrides: [
        { date: '2027-12-27', intervals: [] },
        { date: '2027-12-24', intervals: [] },
      ],
    });
    expect(normalized.weekly.monday.map((i) => i.start)).toEqual(['08:00', '13:00']);
    expect(normalized.overrides.map((o) => o.date)).toEqual(['2027-12-24', '2027-12-27']);
  });
});
