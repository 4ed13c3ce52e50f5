import {
  computeSlotsWithStarts,
  formatInstant,
  isSlotAvailable,
  judgeSlot,
  type BusyMeeting,
  type DaySlots,
  type Exclusion,
  type HostCalendar,
  type SlotQuery,
  type SlotRules,
  type Trace,
} from './slots.js';
import { localToInstant, parseLocalDate } from './time-zones.js';

/** A topic's seats when it says none: one participant per slot, as before seats existed. */
export const DEFAULT_SEATS = 1;

/** The seats of rules that may not name them (tables and callers older than seats): one. */
export function seatsOf(rules: Pick<SlotRules, 'seats'>): number {
  return rules.seats ?? DEFAULT_SEATS;
}

/**
 * The host's meetings of this topic that hold a seat, counted by start: a meeting of the
 * topic with the topic's own length shares its slot with the others at that start. A meeting
 * of the topic with another length (booked before the duration changed) holds no seat: it
 * only blocks, as any other meeting does.
 *
 * `countSeatHolders([09:00 ×3 of the topic, 10:00 of another topic], rules)` → `Map { 09:00 → 3 }`.
 */
export function countSeatHolders(busy: readonly BusyMeeting[], rules: Pick<SlotRules, 'topicUuid' | 'durationMinutes'>): Map<number, number> {
  const counts = new Map<number, number>();
  const duration = rules.durationMinutes * 60_000;
  for (const meeting of busy) {
    if (meeting.topicUuid !== rules.topicUuid || meeting.end - meeting.start !== duration) continue;
    counts.set(meeting.start, (counts.get(meeting.start) ?? 0) + 1);
  }
  return counts;
}

/** The calendar without the seat holders at `start`: what a further participant of that slot competes with. */
function withoutHoldersAt(host: HostCalendar, rules: SlotRules, start: number): HostCalendar {
  const duration = rules.durationMinutes * 60_000;
  return {
    ...host,
    busy: host.busy.filter((meeting) => !(meeting.start === start && meeting.topicUuid === rules.topicUuid && meeting.end - meeting.start === duration)),
  };
}

/**
 * The calendar with every group of the topic's seat holders down to one holder: the
 * participants of a group share one meeting of the host's day (daily limit), and one of
 * them blocks the rest of the calendar exactly as all of them do.
 */
function withOneHolderPerGroup(host: HostCalendar, rules: SlotRules): HostCalendar {
  const duration = rules.durationMinutes * 60_000;
  const seen = new Set<number>();
  const busy = host.busy.filter((meeting) => {
    if (meeting.topicUuid !== rules.topicUuid || meeting.end - meeting.start !== duration) return true;
    if (seen.has(meeting.start)) return false;
    seen.add(meeting.start);
    return true;
  });
  return { ...host, busy };
}

/**
 * The booking check of a topic with seats: `start` is bookable while fewer than `seats`
 * participants hold it and, its own holders left out, the engine would offer it (notice,
 * window, hours, daily limit, every other meeting with its buffers). With one seat this is
 * exactly `isSlotAvailable`. Holders of another start of the topic block as any meeting does:
 * a host is never in two group meetings at once.
 *
 * 5 seats, 3 holders at 09:00 → true; 5 holders → false; a 09:30 group when 09:00 is asked
 * for a 60-minute topic → false.
 */
export function isSeatAvailable(host: HostCalendar, rules: SlotRules, now: number, start: number): boolean {
  return judgeSeat(host, rules, now, start, null);
}

/**
 * Every reason a topic's start is not offered, seats included (`[]`: calculate-schedule
 * offers it): SEATS_FULL when its holders fill it, then the engine's own reasons on the
 * calendar isSeatAvailable judges. 2 seats, 2 holders at 09:00 → `[{ code: 'SEATS_FULL', seats: 2 }]`.
 */
export function explainSeat(host: HostCalendar, rules: SlotRules, now: number, start: number): Exclusion[] {
  const trace: Exclusion[] = [];
  judgeSeat(host, rules, now, start, trace);
  return trace;
}

function judgeSeat(host: HostCalendar, rules: SlotRules, now: number, start: number, trace: Trace): boolean {
  const seats = seatsOf(rules);
  if (seats <= 1) return judgeSlot(host, rules, now, start, trace);
  const held = countSeatHolders(host.busy, rules).get(start) ?? 0;
  let free = true;
  if (held >= seats) {
    if (trace === null) return false;
    trace.push({ code: 'SEATS_FULL', seats });
    free = false;
  }
  // Each group as one meeting (the daily limit counts it once), then without this start's.
  return judgeSlot(withoutHoldersAt(withOneHolderPerGroup(host, rules), rules, start), rules, now, start, trace) && free;
}

/**
 * computeSlotsWithStarts for a topic with seats: every slot also says `seatsLeft`. A start
 * nobody holds is offered as the engine offers it, with every seat left; a start some
 * participants hold (fewer than `seats`) is offered when `isSeatAvailable` says so, with
 * the seats still free; a full one is not offered. With one seat this is exactly the engine
 * (no `seatsLeft`, the response as before seats existed).
 *
 * The engine runs once over the whole calendar (each partly held group blocks its own start
 * there), then only the partly held starts are checked one by one: a month view of a
 * 1000-seat class costs one engine pass plus one check per group, not one per seat.
 *
 * 3 seats, 1 holder at 09:00, host free 09:00–11:00, hourly → 09:00 (seatsLeft 2), 10:00 (seatsLeft 3).
 */
export function computeSeatedSlotsWithStarts(host: HostCalendar, rules: SlotRules, query: SlotQuery): { days: DaySlots[]; starts: number[][] } {
  const seats = seatsOf(rules);
  if (seats <= 1) return computeSlotsWithStarts(host, rules, query);
  const groups = countSeatHolders(host.busy, rules);
  // One holder stands for each group (same span, same buffers, one start against the daily
  // limit): a 1000-seat class's participants are read as many meetings, blocked as one.
  const reduced = groups.size === 0 ? host : withOneHolderPerGroup(host, rules);
  const computed = computeSlotsWithStarts(reduced, rules, query);
  const days = computed.days.map((day) => ({ date: day.date, slots: day.slots.map((slot) => ({ ...slot, seatsLeft: seats })) }));
  const starts = computed.starts;
  if (groups.size === 0) return { days, starts };

  // Participant day boundaries, as the engine draws them: bounds[d] starts date d.
  const firstDay = parseLocalDate(query.from);
  const bounds: number[] = [];
  for (let d = 0; d <= days.length; d += 1) bounds.push(localToInstant(query.participantTimezone, firstDay + d, 0));
  for (const [start, held] of groups) {
    if (held >= seats || start < bounds[0]! || start >= bounds[days.length]!) continue;
    // isSeatAvailable's rule, on the reduced calendar: without this group's one holder.
    if (!isSlotAvailable(withoutHoldersAt(reduced, rules, start), rules, query.now, start)) continue;
    let d = 0;
    while (bounds[d + 1]! <= start) d += 1;
    // The engine never offered this start (its own holders block it): insert it in time order.
    const dayStarts = starts[d]!;
    let at = dayStarts.findIndex((other) => other > start);
    if (at === -1) at = dayStarts.length;
    dayStarts.splice(at, 0, start);
    days[d]!.slots.splice(at, 0, { start: formatInstant(start), username: host.username, seatsLeft: seats - held });
  }
  return { days, starts };
}
