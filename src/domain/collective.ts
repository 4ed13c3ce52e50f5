import type { DaySlots, Slot } from './slots.js';

/**
 * One host's slots of a range for a collective topic: `days[d].slots[i]` starts at
 * `starts[d][i]` (epoch ms), as the per-host schedules keep them.
 */
export interface HostDays {
  days: readonly DaySlots[];
  starts: readonly (readonly number[])[];
}

/**
 * The slots of a collective topic: the starts at which every host is free (each host's own
 * slots already apply their hours, meetings, buffers, calendars and limits), each naming
 * `username`, so it goes back to POST /schedule as it is. Every host's days cover the same
 * participant dates. With seats, the fewest seats any host has left.
 *
 * anna free 09:00, 10:00, 11:00 and bob free 10:00, 11:00, 12:00 (username 'anna')
 * → `[{ start: 10:00, username: 'anna' }, { start: 11:00, username: 'anna' }]`.
 * No hosts → no slots (a topic nobody hosts offers nothing).
 */
export function intersectHostDays(hosts: readonly HostDays[], username: string, dates: readonly string[]): DaySlots[] {
  if (hosts.length === 0) return dates.map((date) => ({ date, slots: [] }));
  const [first, ...others] = hosts as [HostDays, ...HostDays[]];
  return first.days.map((day, d) => {
    // Walk every host's starts of the day in step (all in time order): linear in the slots.
    const cursors = others.map(() => 0);
    const slots: Slot[] = [];
    const firstStarts = first.starts[d]!;
    for (let i = 0; i < firstStarts.length; i += 1) {
      const start = firstStarts[i]!;
      let seatsLeft = day.slots[i]!.seatsLeft;
      let everyone = true;
      for (let h = 0; h < others.length; h += 1) {
        const starts = others[h]!.starts[d]!;
        let k = cursors[h]!;
        while (k < starts.length && starts[k]! < start) k += 1;
        cursors[h] = k;
        if (starts[k] !== start) {
          everyone = false;
          break;
        }
        const theirs = others[h]!.days[d]!.slots[k]!.seatsLeft;
        if (theirs !== undefined && (seatsLeft === undefined || theirs < seatsLeft)) seatsLeft = theirs;
      }
      if (!everyone) continue;
      const slot: Slot = { start: day.slots[i]!.start, username };
      if (seatsLeft !== undefined) slot.seatsLeft = seatsLeft;
      slots.push(slot);
    }
    return { date: day.date, slots };
  });
}
