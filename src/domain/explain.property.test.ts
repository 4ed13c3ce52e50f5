import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import type { LocalInterval } from './availability.js';
import { EXTERNAL_BUSY_PREFIX } from './period-limits.js';
import { computeSeatedSlotsWithStarts, countSeatHolders, explainSeat, isSeatAvailable, seatsOf } from './seats.js';
import { dayHoursArbitrary, hostAvailability, slotRules } from './slot-arbitraries.js';
import type { BusyMeeting, Exclusion, HostCalendar, SlotRules } from './slots.js';

/**
 * The explanation against the month view: for random hosts (hours, overrides, zones across
 * clock changes), rules (grid, buffers, notice, window, every limit, seats) and busy time
 * (meetings, remote calendar spans), `offered` (no reasons) holds exactly when the month
 * view offers the start, and each reason given is true of that start: its span overlaps
 * the start's, or its rule (read with Luxon, not the engine's zone code) excludes it.
 */

const ZONES = ['Europe/Warsaw', 'America/New_York', 'Australia/Lord_Howe', 'UTC', 'Asia/Kathmandu'];
// Around the 2027 clock changes of the zones above, and an ordinary week.
const DATES = ['2027-03-13', '2027-03-27', '2027-04-03', '2027-10-02', '2027-10-30', '2027-11-06', '2027-06-14'];
const MINUTE = 60_000;
const SCALE = Number(process.env.PROPERTY_SCALE ?? 1);

/** 0–3 intervals of a day on quarter hours, often touching, often around 01:00–03:30 where clocks change. */
const dayHours = dayHoursArbitrary(fc.oneof(fc.integer({ min: 0, max: 96 }), fc.integer({ min: 4, max: 14 }), fc.integer({ min: 32, max: 72 })), 5);

const limit = fc.option(fc.integer({ min: 1, max: 3 }), { nil: null });

const scenario = fc
  .record({
    zone: fc.constantFrom(...ZONES),
    participantZone: fc.constantFrom(...ZONES),
    from: fc.constantFrom(...DATES),
    weekly: fc.array(dayHours, { minLength: 7, maxLength: 7 }),
    override: fc.option(fc.record({ shift: fc.integer({ min: 0, max: 2 }), hours: fc.oneof(dayHours, fc.constant<LocalInterval[]>([])) }), { nil: undefined }),
    duration: fc.constantFrom(15, 30, 60),
    step: fc.constantFrom(15, 20, 30, 60),
    bufferBefore: fc.constantFrom(0, 10),
    bufferAfter: fc.constantFrom(0, 15),
    notice: fc.constantFrom(0, 120),
    window: fc.integer({ min: 1, max: 4 }),
    dailyLimit: limit,
    weeklyLimit: limit,
    monthlyLimit: limit,
    hostDaily: limit,
    hostWeekly: limit,
    seats: fc.constantFrom(1, 1, 2, 3),
    inactive: fc.boolean().map((b) => b && Math.random() < 0.2),
    nowShiftMinutes: fc.integer({ min: -2 * 1440, max: 1440 }),
    busy: fc.array(
      fc.record({
        shift: fc.integer({ min: -288, max: 3 * 288 }),
        minutes: fc.constantFrom(15, 30, 60),
        before: fc.constantFrom(0, 10),
        after: fc.constantFrom(0, 20),
        kind: fc.constantFrom('same', 'same', 'other', 'calendar'),
        repeat: fc.integer({ min: 1, max: 3 }),
      }),
      { maxLength: 6 },
    ),
  })
  .map((s) => {
    const rangeStart = DateTime.fromISO(s.from, { zone: s.participantZone }).toMillis();
    const availability = hostAvailability(s.zone, s.weekly, s.from, s.override);
    const busy: BusyMeeting[] = s.busy.flatMap((b, i) => {
      const start = rangeStart + b.shift * 5 * MINUTE;
      if (b.kind === 'calendar') return [{ start, end: start + b.minutes * MINUTE, bufferBeforeMinutes: 0, bufferAfterMinutes: 0, topicUuid: `${EXTERNAL_BUSY_PREFIX}cal-${i}` }];
      // A meeting of the topic, with its length, may repeat: the seats of a group meeting.
      const same = b.kind === 'same';
      const end = start + (same ? s.duration : b.minutes) * MINUTE;
      return Array.from({ length: same ? b.repeat : 1 }, (_, k) => ({
        uuid: `m-${i}-${k}`,
        start,
        end,
        bufferBeforeMinutes: same ? s.bufferBefore : b.before,
        bufferAfterMinutes: same ? s.bufferAfter : b.after,
        topicUuid: same ? 'topic' : 'other',
      }));
    });
    const rules: SlotRules = {
      ...slotRules(s),
      weeklyLimit: s.weeklyLimit,
      monthlyLimit: s.monthlyLimit,
      seats: s.seats,
    };
    const limits = s.hostDaily === null && s.hostWeekly === null ? null : { timezone: s.zone, daily: s.hostDaily, weekly: s.hostWeekly };
    const host: HostCalendar = { username: 'host', availability, busy, limits, ...(s.inactive ? { inactive: true } : {}) };
    const to = s.from;
    return { host, rules, now: rangeStart + s.nowShiftMinutes * MINUTE, participantZone: s.participantZone, from: s.from, to, rangeStart };
  });

/** Whether a reason is true of `start`, checked from its own fields and the scenario, with Luxon for local dates. */
function holds(reason: Exclusion, host: HostCalendar, rules: SlotRules, now: number, start: number): boolean {
  const end = start + rules.durationMinutes * MINUTE;
  const spanStart = start - rules.bufferBeforeMinutes * MINUTE;
  const spanEnd = end + rules.bufferAfterMinutes * MINUTE;
  const localDate = () => DateTime.fromMillis(start, { zone: host.availability.timezone }).toISODate();
  const meeting = (uuid: string | null) => host.busy.find((candidate) => candidate.uuid === uuid);
  switch (reason.code) {
    case 'HOST_INACTIVE':
      return host.inactive === true;
    case 'MINIMUM_NOTICE':
      return start < now + rules.minimumNoticeMinutes * MINUTE && reason.earliest === now + rules.minimumNoticeMinutes * MINUTE;
    case 'BOOKING_WINDOW':
      return start > now + rules.bookingWindowDays * 86_400_000;
    case 'OUTSIDE_HOURS':
      return reason.date === localDate();
    case 'DAY_OFF':
      return reason.date === localDate() && host.availability.overrides.some((o) => o.date === reason.date && o.intervals.length === 0);
    case 'HOLIDAY':
      return reason.date === localDate();
    case 'TIME_OFF':
      return (host.timeOff ?? []).some((away) => away.start === reason.start && away.start < end && start < away.end);
    case 'OFF_GRID':
      return (reason.previous === null || reason.previous < start) && (reason.next === null || start < reason.next);
    case 'MEETING': {
      const found = meeting(reason.meetingUuid);
      return found !== undefined && found.start === reason.start && found.start < end && start < found.end;
    }
    case 'BUFFER': {
      const found = meeting(reason.meetingUuid);
      return (
        found !== undefined &&
        !(found.start < end && start < found.end) &&
        found.start - found.bufferBeforeMinutes * MINUTE < spanEnd &&
        spanStart < found.end + found.bufferAfterMinutes * MINUTE
      );
    }
    case 'CALENDAR_EVENT':
      return host.busy.some((b) => b.topicUuid === `${EXTERNAL_BUSY_PREFIX}${reason.calendarUuid}` && b.start === reason.from && reason.from < spanEnd && spanStart < reason.to);
    case 'DAILY_LIMIT':
    case 'WEEKLY_LIMIT':
    case 'MONTHLY_LIMIT':
      return reason.count >= reason.limit && reason.limit >= 1;
    case 'SEATS_FULL':
      return (countSeatHolders(host.busy, rules).get(start) ?? 0) >= seatsOf(rules);
  }
}

describe('the explanation is the month view’s own trace', () => {
  it('has no reason exactly when the month view offers the start, and every reason it gives is true of the start', () => {
    const runs = 100 * SCALE;
    let offeredSeen = 0;
    let excludedSeen = 0;
    fc.assert(
      fc.property(scenario, ({ host, rules, now, participantZone, from, to, rangeStart }) => {
        const { starts } = computeSeatedSlotsWithStarts(host, rules, { now, participantTimezone: participantZone, from, to });
        const offered = new Set(starts.flat());
        const rangeEnd = DateTime.fromISO(to, { zone: participantZone }).plus({ days: 1 }).toMillis();
        // Every 5 minutes of the range: grid starts and the instants between them.
        for (let start = rangeStart; start < rangeEnd; start += 5 * MINUTE) {
          const reasons = explainSeat(host, rules, now, start);
          expect(reasons.length === 0, new Date(start).toISOString()).toBe(offered.has(start));
          expect(isSeatAvailable(host, rules, now, start)).toBe(offered.has(start));
          for (const reason of reasons) expect(holds(reason, host, rules, now, start), `${new Date(start).toISOString()} ${JSON.stringify(reason)}`).toBe(true);
          if (reasons.length === 0) offeredSeen += 1;
          else excludedSeen += 1;
        }
      }),
      { numRuns: runs },
    );
    // Guard against a generator that drifts into cases where nothing is offered.
    expect(offeredSeen).toBeGreaterThan(runs / 4);
    expect(excludedSeen).toBeGreaterThan(runs * 50);
  }, 120_000);
});
