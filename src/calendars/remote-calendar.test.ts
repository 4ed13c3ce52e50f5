import { describe, expect, it } from 'vitest';
import { extractBusyIntervals } from './busy-time.js';
import { describeSpansCut, toStoredSpans } from './remote-calendar.js';

const h = (hour: number, minute = 0) => Date.UTC(2027, 2, 1, hour, minute);

describe('toStoredSpans', () => {
  it.each([
    [
      'merges overlapping and touching spans',
      [
        { start: h(9), end: h(10) },
        { start: h(10), end: h(11) },
        { start: h(10, 30), end: h(10, 45) },
      ],
      [{ start: h(9), end: h(11) }],
    ],
    [
      'drops zero-length spans (they block no time)',
      [
        { start: h(9), end: h(9) },
        { start: h(12), end: h(13) },
      ],
      [{ start: h(12), end: h(13) }],
    ],
    [
      'sorts what it is given',
      [
        { start: h(14), end: h(15) },
        { start: h(9), end: h(10) },
      ],
      [
        { start: h(9), end: h(10) },
        { start: h(14), end: h(15) },
      ],
    ],
    [
      'keeps a span inside a longer one as the longer one',
      [
        { start: h(8), end: h(18) },
        { start: h(9), end: h(10) },
      ],
      [{ start: h(8), end: h(18) }],
    ],
  ])('%s', (_name, input, expected) => {
    expect(toStoredSpans(input, h(23))).toEqual({ spans: expected, cutAt: null });
  });

  it('keeps every span up to the cap, merged ones counted once', () => {
    const many = Array.from({ length: 10 }, (_, i) => ({ start: h(i), end: h(i, 30) }));
    expect(toStoredSpans(many, h(23), 10)).toEqual({ spans: many, cutAt: null });
    expect(toStoredSpans([...many, ...many], h(23), 10)).toEqual({ spans: many, cutAt: null });
  });

  it('past the cap, keeps the earliest and makes the rest of the window busy from the first span not kept', () => {
    const many = Array.from({ length: 10 }, (_, i) => ({ start: h(i), end: h(i, 30) }));
    expect(toStoredSpans(many, h(23), 3)).toEqual({ spans: [...many.slice(0, 2), { start: h(2), end: h(23) }], cutAt: h(2) });
    // A span reaching past the window's end is not cut short.
    expect(toStoredSpans([...many, { start: h(22), end: h(24) }], h(23), 3).spans.at(-1)).toEqual({ start: h(2), end: h(24) });
    expect(describeSpansCut(h(2), 3)).toMatch(/^The calendar has more than 3 separate busy times .* from 2027-03-01T02:00:00.000Z on, all of its time counts as busy/);
  });
});

describe('extractBusyIntervals with ignoreUids', () => {
  it("skips the events whose UID is listed (termin's own copies), master and overrides alike", () => {
    const text = [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'BEGIN:VEVENT',
      'UID:0193b0a4-6f1e-7c3a-9d2b-5e8f1a2b3c4d@termin',
      'DTSTART:20270301T090000Z',
      'DTEND:20270301T093000Z',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:dentist',
      'DTSTART:20270301T120000Z',
      'DTEND:20270301T130000Z',
      'END:VEVENT',
      'END:VCALENDAR',
    ].join('\r\n');
    const range = { from: h(0), to: h(23) };
    expect(extractBusyIntervals(text, range, 'UTC')).toHaveLength(2);
    expect(extractBusyIntervals(text, range, 'UTC', { ignoreUids: new Set(['0193b0a4-6f1e-7c3a-9d2b-5e8f1a2b3c4d@termin']) })).toEqual([{ start: h(12), end: h(13) }]);
  });
});
