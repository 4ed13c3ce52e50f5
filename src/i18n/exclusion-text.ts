import type { LocalInterval } from '../domain/availability.js';
import { formatDate, formatDateTime } from '../domain/formats.js';
import type { Lang } from '../domain/lang.js';
import type { Exclusion } from '../domain/slots.js';
import { zoneOffset } from '../domain/time-zones.js';
import { buildForEachLang, type Translate } from './catalogue.js';

/**
 * A reason the engine gives (slots.ts Exclusion) as one plain sentence in `lang`, with times on
 * the host's clock in `zone`: the explain API's `detail` (English) and the /app "why not" answer
 * (the page's language). The words are locales/<lang>/topics.json, group `exclusions`.
 *
 * `describeExclusion({ code: 'DAY_OFF', date: '2027-12-24' }, 'Europe/Warsaw', 'en')`
 * → `'2027-12-24 is a day off for the host (a date override with no hours).'`;
 * with `'de'` → `'Freitag, 24. Dezember 2027 ist ein freier Tag des Gastgebers (eine Ausnahme ohne Zeiten).'`.
 */
export function describeExclusion(exclusion: Exclusion, zone: string, lang: Lang): string {
  const { t, at, day, list } = WORDS[lang];
  const time = (ms: number | null) => (ms === null ? '—' : at(ms, zone));
  switch (exclusion.code) {
    case 'HOST_INACTIVE':
      return t('exclusions.hostInactive');
    case 'MINIMUM_NOTICE':
      return t('exclusions.minimumNotice', { earliest: time(exclusion.earliest), zone });
    case 'BOOKING_WINDOW':
      return t('exclusions.bookingWindow', { latest: time(exclusion.latest), zone });
    case 'OUTSIDE_HOURS':
      return exclusion.hours.length === 0
        ? t('exclusions.noHours', { date: day(exclusion.date), zone })
        : t('exclusions.outsideHours', { date: day(exclusion.date), hours: hoursText(exclusion.hours), zone });
    case 'DAY_OFF':
      return t('exclusions.dayOff', { date: day(exclusion.date) });
    case 'HOLIDAY':
      return t('exclusions.holiday', { date: day(exclusion.date), name: exclusion.name });
    case 'TIME_OFF':
      return t('exclusions.timeOff', { start: time(exclusion.start), end: time(exclusion.end), zone });
    case 'OFF_GRID': {
      const nearest = [exclusion.previous, exclusion.next].filter((ms): ms is number => ms !== null).map(time);
      return nearest.length === 0 ? t('exclusions.offGrid') : t('exclusions.offGridNearest', { nearest: list(nearest), zone });
    }
    case 'MEETING':
      return t('exclusions.meeting', { start: time(exclusion.start), end: time(exclusion.end), zone });
    case 'BUFFER':
      return t('exclusions.buffer', {
        start: time(exclusion.start),
        end: time(exclusion.end),
        zone,
        after: exclusion.bufferAfterMinutes,
        before: exclusion.bufferBeforeMinutes,
      });
    case 'CALENDAR_EVENT':
      return t('exclusions.calendarEvent', { start: time(exclusion.from), end: time(exclusion.to), zone });
    case 'DAILY_LIMIT':
    case 'WEEKLY_LIMIT':
    case 'MONTHLY_LIMIT': {
      const period = exclusion.code === 'DAILY_LIMIT' ? 'daily' : exclusion.code === 'WEEKLY_LIMIT' ? 'weekly' : 'monthly';
      return t('exclusions.limit', { scope: exclusion.scope === 'host' ? 'host' : 'topic', period, limit: exclusion.limit, count: exclusion.count });
    }
    case 'SEATS_FULL':
      return t('exclusions.seatsFull', { seats: exclusion.seats });
  }
}

/**
 * How each language writes an instant and a day of the host's calendar. English (the API's
 * `detail`, read by programs as well as people) and Polish keep the ISO-like wall clock they
 * have always shown ("2027-10-31 02:00", "2027-12-24"); the other languages read them as their
 * own Intl formats ("31.10.2027, 02:00", "Freitag, 24. Dezember 2027").
 */
interface Words {
  t: Translate;
  at: (ms: number, zone: string) => string;
  day: (date: string) => string;
  /** "a and b" in the language (Intl.ListFormat). */
  list: (items: string[]) => string;
}

const ISO_CLOCK: readonly Lang[] = ['en', 'pl'];

const WORDS: Record<Lang, Words> = buildForEachLang('topics', (t, lang) => {
  const conjunction = new Intl.ListFormat(lang, { type: 'conjunction' });
  const iso = ISO_CLOCK.includes(lang);
  return {
    t,
    at: (ms, zone) => (iso ? wallTime(zone, ms) : formatDateTime(ms, zone, lang)),
    // A calendar day, not an instant: noon UTC of it read in UTC is that day in every language.
    day: (date) => (iso ? date : formatDate(Date.parse(`${date}T12:00:00Z`), 'UTC', lang)),
    list: (items) => conjunction.format(items),
  };
});

/** `wallTime('Europe/Warsaw', Date.parse('2027-03-29T07:00Z'))` → `'2027-03-29 09:00'`: the clock in that zone then. */
export function wallTime(zone: string, ms: number): string {
  return new Date(ms + zoneOffset(zone, ms) * 60_000).toISOString().slice(0, 16).replace('T', ' ');
}

function hoursText(hours: readonly LocalInterval[]): string {
  return hours.map((interval) => `${interval.start}–${interval.end}`).join(', ');
}
