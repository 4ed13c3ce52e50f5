import { describe, expect, it } from 'vitest';
import { intersectHostDays, type HostDays } from './collective.js';

const at = (time: string) => `2027-03-01T${time}:00.000Z`;

/** One day of a host's slots at these UTC times (optionally with seats left). */
function host(username: string, times: (string | [string, number])[]): HostDays {
  const slots = times.map((time) => (typeof time === 'string' ? { start: at(time), username } : { start: at(time[0]), username, seatsLeft: time[1] }));
  return { days: [{ date: '2027-03-01', slots }], starts: [slots.map((slot) => Date.parse(slot.start))] };
}

describe('intersectHostDays', () => {
  it.each([
    ['the starts all hosts share, in order', [host('anna', ['09:00', '10:00', '11:00']), host('bob', ['10:00', '11:00', '12:00'])], ['10:00', '11:00']],
    ['nothing when one host is never free', [host('anna', ['09:00', '10:00']), host('bob', [])], []],
    [
      'a start missing from the middle host only',
      [host('anna', ['09:00', '09:30', '10:00']), host('bob', ['09:00', '10:00']), host('cleo', ['09:00', '09:30', '10:00'])],
      ['09:00', '10:00'],
    ],
    ['one host: their own slots', [host('anna', ['09:00', '09:30'])], ['09:00', '09:30']],
    ['no overlap at all', [host('anna', ['09:00']), host('bob', ['09:30'])], []],
  ])('%s', (_name, hosts, expected) => {
    const [day] = intersectHostDays(hosts, 'zed', ['2027-03-01']);
    expect(day!.slots.map((slot) => slot.start)).toEqual(expected.map(at));
    // Every slot names the host it was asked to, so it books as it is.
    expect(day!.slots.every((slot) => slot.username === 'zed')).toBe(true);
  });

  it('keeps the fewest seats left of any host', () => {
    const [day] = intersectHostDays(
      [
        host('anna', [
          ['09:00', 3],
          ['10:00', 1],
        ]),
        host('bob', [
          ['09:00', 2],
          ['10:00', 4],
        ]),
      ],
      'anna',
      ['2027-03-01'],
    );
    expect(day!.slots).toEqual([
      { start: at('09:00'), username: 'anna', seatsLeft: 2 },
      { start: at('10:00'), username: 'anna', seatsLeft: 1 },
    ]);
  });

  it('gives every date with no slots when the topic has no hosts', () => {
    expect(intersectHostDays([], 'anna', ['2027-03-01', '2027-03-02'])).toEqual([
      { date: '2027-03-01', slots: [] },
      { date: '2027-03-02', slots: [] },
    ]);
  });
});
