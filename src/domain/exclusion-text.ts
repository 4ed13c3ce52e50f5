import type { LocalInterval } from './availability.js';
import type { Exclusion } from './slots.js';
import { zoneOffset } from './time-zones.js';

/**
 * The sentences of one language for the engine's reasons (slots.ts Exclusion). The words come
 * from a catalogue (src/i18n/exclusion-words.ts, locales/<lang>/app.json `exclusions`); this
 * module only picks the sentence and fills in the host's clock, so it stays pure.
 */
export interface ExclusionWords {
  hostInactive: string;
  minimumNotice: (earliest: string, zone: string) => string;
  bookingWindow: (latest: string, zone: string) => string;
  noHours: (date: string, zone: string) => string;
  outsideHours: (date: string, hours: string, zone: string) => string;
  dayOff: (date: string) => string;
  holiday: (date: string, name: string) => string;
  timeOff: (start: string, end: string, zone: string) => string;
  /** `nearest`: the grid starts either side, none, one or two. */
  offGrid: (nearest: readonly string[], zone: string) => string;
  meeting: (start: string, end: string, zone: string) => string;
  buffer: (start: string, end: string, zone: string, after: number, before: number) => string;
  calendarEvent: (from: string, to: string, zone: string) => string;
  limit: (scope: 'host' | 'topic', period: 'daily' | 'weekly' | 'monthly', limit: number, count: number) => string;
  seatsFull: (seats: number) => string;
}

/**
 * A reason the engine gives as one plain sentence in `words`' language (English for the API's
 * `detail`, the member's for the web app), with times on the host's clock in `zone`.
 *
 * `describeExclusion({ code: 'DAY_OFF', date: '2027-12-24' }, 'Europe/Warsaw', EXCLUSION_WORDS.en)`
 * → `'2027-12-24 is a day off for the host (a date override with no hours).'`
 */
export function describeExclusion(exclusion: Exclusion, zone: string, words: ExclusionWords): string {
  const at = (ms: number | null) => (ms === null ? '—' : wallTime(zone, ms));
  switch (exclusion.code) {
    case 'HOST_INACTIVE':
      return words.hostInactive;
    case 'MINIMUM_NOTICE':
      return words.minimumNotice(at(exclusion.earliest), zone);
    case 'BOOKING_WINDOW':
      return words.bookingWindow(at(exclusion.latest), zone);
    case 'OUTSIDE_HOURS':
      return exclusion.hours.length === 0 ? words.noHours(exclusion.date, zone) : words.outsideHours(exclusion.date, hoursText(exclusion.hours), zone);
    case 'DAY_OFF':
      return words.dayOff(exclusion.date);
    case 'HOLIDAY':
      return words.holiday(exclusion.date, exclusion.name);
    case 'TIME_OFF':
      return words.timeOff(at(exclusion.start), at(exclusion.end), zone);
    case 'OFF_GRID':
      return words.offGrid([exclusion.previous, exclusion.next].filter((ms): ms is number => ms !== null).map(at), zone);
    case 'MEETING':
      return words.meeting(at(exclusion.start), at(exclusion.end), zone);
    case 'BUFFER':
      return words.buffer(at(exclusion.start), at(exclusion.end), zone, exclusion.bufferAfterMinutes, exclusion.bufferBeforeMinutes);
    case 'CALENDAR_EVENT':
      return words.calendarEvent(at(exclusion.from), at(exclusion.to), zone);
    case 'DAILY_LIMIT':
    case 'WEEKLY_LIMIT':
    case 'MONTHLY_LIMIT': {
      const period = ({ DAILY_LIMIT: 'daily', WEEKLY_LIMIT: 'weekly', MONTHLY_LIMIT: 'monthly' } as const)[exclusion.code];
      return words.limit(exclusion.scope, period, exclusion.limit, exclusion.count);
    }
    case 'SEATS_FULL':
      return words.seatsFull(exclusion.seats);
  }
}

/** `wallTime('Europe/Warsaw', Date.parse('2027-03-29T07:00Z'))` → `'2027-03-29 09:00'`: the clock in that zone then. */
export function wallTime(zone: string, ms: number): string {
  return new Date(ms + zoneOffset(zone, ms) * 60_000).toISOString().slice(0, 16).replace('T', ' ');
}

function hoursText(hours: readonly LocalInterval[]): string {
  return hours.map((interval) => `${interval.start}–${interval.end}`).join(', ');
}
