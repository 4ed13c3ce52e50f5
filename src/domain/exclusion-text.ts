import type { LocalInterval } from './availability.js';
import type { Lang } from './meeting.js';
import type { Exclusion } from './slots.js';
import { zoneOffset } from './time-zones.js';

/**
 * A reason the engine gives (slots.ts Exclusion) as one plain sentence, in English (the
 * API's `detail`) or Polish (the web app), with times on the host's clock in `zone`.
 *
 * `describeExclusion({ code: 'DAY_OFF', date: '2027-12-24' }, 'Europe/Warsaw', 'en')`
 * → `'2027-12-24 is a day off for the host (a date override with no hours).'`
 */
export function describeExclusion(exclusion: Exclusion, zone: string, lang: Lang): string {
  const at = (ms: number | null) => (ms === null ? '—' : wallTime(zone, ms));
  const pl = lang === 'pl';
  switch (exclusion.code) {
    case 'HOST_INACTIVE':
      return pl ? 'Gospodarz jest dezaktywowany: nie oferuje żadnych terminów.' : 'The host is deactivated: they offer no times at all.';
    case 'MINIMUM_NOTICE':
      return pl
        ? `Temat wymaga wyprzedzenia: najwcześniejszy termin to teraz ${at(exclusion.earliest)} (${zone}).`
        : `The topic needs more notice: the earliest start it allows now is ${at(exclusion.earliest)} (${zone}).`;
    case 'BOOKING_WINDOW':
      return pl
        ? `Termin wykracza poza okno rezerwacji: najpóźniejszy możliwy to teraz ${at(exclusion.latest)} (${zone}).`
        : `It lies beyond the booking window: the latest start it allows now is ${at(exclusion.latest)} (${zone}).`;
    case 'OUTSIDE_HOURS':
      return exclusion.hours.length === 0
        ? pl
          ? `Gospodarz nie ma godzin pracy ${exclusion.date} (${zone}).`
          : `The host has no hours on ${exclusion.date} (${zone}).`
        : pl
          ? `Spotkanie nie mieści się w godzinach gospodarza ${exclusion.date}: ${hoursText(exclusion.hours)} (${zone}).`
          : `The meeting does not fit in the host's hours on ${exclusion.date}: ${hoursText(exclusion.hours)} (${zone}).`;
    case 'DAY_OFF':
      return pl ? `${exclusion.date} to dzień wolny gospodarza (wyjątek bez godzin).` : `${exclusion.date} is a day off for the host (a date override with no hours).`;
    case 'HOLIDAY':
      return pl
        ? `${exclusion.date} to święto (${exclusion.name}): dzień wolny w godzinach gospodarza.`
        : `${exclusion.date} is a public holiday (${exclusion.name}): a day off in the host's hours.`;
    case 'TIME_OFF':
      return pl
        ? `Gospodarz jest nieobecny ${at(exclusion.start)}–${at(exclusion.end)} (${zone}).`
        : `The host is away (time off) ${at(exclusion.start)}–${at(exclusion.end)} (${zone}).`;
    case 'OFF_GRID': {
      const nearest = [exclusion.previous, exclusion.next].filter((ms): ms is number => ms !== null).map(at);
      return pl
        ? `To nie jest początek z siatki terminów tematu${nearest.length > 0 ? `; najbliższe: ${nearest.join(' i ')} (${zone})` : ''}.`
        : `It is not on the topic's slot grid${nearest.length > 0 ? `; the nearest grid starts are ${nearest.join(' and ')} (${zone})` : ''}.`;
    }
    case 'MEETING':
      return pl
        ? `Gospodarz ma w tym czasie inne spotkanie, ${at(exclusion.start)}–${at(exclusion.end)} (${zone}).`
        : `The host has another meeting then, ${at(exclusion.start)}–${at(exclusion.end)} (${zone}).`;
    case 'BUFFER':
      return pl
        ? `Spotkanie ${at(exclusion.start)}–${at(exclusion.end)} (${zone}) jest za blisko: między nimi potrzeba ${exclusion.bufferAfterMinutes} min przerwy po wcześniejszym i ${exclusion.bufferBeforeMinutes} min przed późniejszym.`
        : `A meeting at ${at(exclusion.start)}–${at(exclusion.end)} (${zone}) is too close: the buffers need ${exclusion.bufferAfterMinutes} minutes after the earlier one and ${exclusion.bufferBeforeMinutes} minutes before the later one.`;
    case 'CALENDAR_EVENT':
      return pl
        ? `Podłączony kalendarz gospodarza jest zajęty ${at(exclusion.from)}–${at(exclusion.to)} (${zone}).`
        : `The host's connected calendar is busy ${at(exclusion.from)}–${at(exclusion.to)} (${zone}).`;
    case 'DAILY_LIMIT':
    case 'WEEKLY_LIMIT':
    case 'MONTHLY_LIMIT': {
      const period = { DAILY_LIMIT: pl ? 'dzienny' : 'daily', WEEKLY_LIMIT: pl ? 'tygodniowy' : 'weekly', MONTHLY_LIMIT: pl ? 'miesięczny' : 'monthly' }[exclusion.code];
      const whose = exclusion.scope === 'host' ? (pl ? 'własny (dla wszystkich tematów)' : "host's own") : pl ? 'tematu' : "topic's";
      return pl
        ? `Osiągnięto ${period} limit ${whose}: ${exclusion.limit} spotkań, zarezerwowano ${exclusion.count}.`
        : `The ${whose} ${period} limit of ${exclusion.limit} meetings is reached (${exclusion.count} booked in that period).`;
    }
    case 'SEATS_FULL':
      return pl ? `Wszystkie miejsca (${exclusion.seats}) w tym terminie są zajęte.` : `All ${exclusion.seats} seats at this start are taken.`;
  }
}

/** `wallTime('Europe/Warsaw', Date.parse('2027-03-29T07:00Z'))` → `'2027-03-29 09:00'`: the clock in that zone then. */
export function wallTime(zone: string, ms: number): string {
  return new Date(ms + zoneOffset(zone, ms) * 60_000).toISOString().slice(0, 16).replace('T', ' ');
}

function hoursText(hours: readonly LocalInterval[]): string {
  return hours.map((interval) => `${interval.start}–${interval.end}`).join(', ');
}
