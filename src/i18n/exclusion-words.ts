import { type ExclusionWords, describeExclusion as describeWith } from '../domain/exclusion-text.js';
import type { Exclusion } from '../domain/slots.js';
import type { Lang } from '../domain/lang.js';
import { buildForEachLang } from './catalogue.js';

/** Why a time is not offered, in each language (locales/<lang>/app.json, `exclusions`): the API's `detail` in English, the web app's in the member's. */
export const EXCLUSION_WORDS = buildForEachLang(
  'app',
  (t): ExclusionWords => ({
    hostInactive: t('exclusions.hostInactive'),
    minimumNotice: (earliest, zone) => t('exclusions.minimumNotice', { earliest, zone }),
    bookingWindow: (latest, zone) => t('exclusions.bookingWindow', { latest, zone }),
    noHours: (date, zone) => t('exclusions.noHours', { date, zone }),
    outsideHours: (date, hours, zone) => t('exclusions.outsideHours', { date, hours, zone }),
    dayOff: (date) => t('exclusions.dayOff', { date }),
    holiday: (date, name) => t('exclusions.holiday', { date, name }),
    timeOff: (start, end, zone) => t('exclusions.timeOff', { start, end, zone }),
    offGrid: (nearest, zone) =>
      t('exclusions.offGrid', { nearest: nearest.length === 0 ? 'none' : nearest.length === 1 ? 'one' : 'two', first: nearest[0] ?? '', second: nearest[1] ?? '', zone }),
    meeting: (start, end, zone) => t('exclusions.meeting', { start, end, zone }),
    buffer: (start, end, zone, after, before) => t('exclusions.buffer', { start, end, zone, after, before }),
    calendarEvent: (from, to, zone) => t('exclusions.calendarEvent', { from, to, zone }),
    limit: (scope, period, limit, count) => t('exclusions.limit', { scope, period, limit, count }),
    seatsFull: (seats) => t('exclusions.seatsFull', { seats }),
  }),
);

/** A reason as one sentence in `lang`, times on the host's clock in `zone` (see domain/exclusion-text.ts). */
export function describeExclusion(exclusion: Exclusion, zone: string, lang: Lang): string {
  return describeWith(exclusion, zone, EXCLUSION_WORDS[lang]);
}
