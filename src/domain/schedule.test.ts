import { describe, expect, it } from 'vitest';
import { createDefaultAvailability } from './availability.js';
import { validateSchedule } from './schedule.js';

describe('validateSchedule', () => {
  const hours = createDefaultAvailability('Europe/Warsaw');
  it.each([
    { name: 'Summer hours', input: hours, paths: [] },
    { name: ' ', input: hours, paths: ['/name'] },
    { name: '', input: { ...hours, timezone: 'Mars/Base' }, paths: ['/name', '/timezone'] },
    {
      name: 'Overlap',
      input: {
        ...hours,
        weekly: {
          ...hours.weekly,
          friday: [
            { start: '09:00', end: '12:00' },
            { start: '11:00', end: '13:00' },
          ],
        },
      },
      paths: ['/weekly/friday/1'],
    },
    {
      name: 'Twice',
      input: {
        ...hours,
        overrides: [
          { date: '2027-03-28', intervals: [] },
          { date: '2027-03-28', intervals: [] },
        ],
      },
      paths: ['/overrides/1/date'],
    },
  ])('"$name" → $paths', ({ name, input, paths }) => {
    expect(validateSchedule(name, input).map((error) => error.path)).toEqual(paths);
  });
});
