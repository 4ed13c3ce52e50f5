import { describe, expect, it } from 'vitest';
import { englishLeaks } from '../../test/i18n/leaks.js';
import { LANGS, type Lang } from '../domain/lang.js';
import type { Exclusion } from '../domain/slots.js';
import { describeExclusion } from './exclusion-text.js';

/**
 * Why a time is not offered, as one sentence per reason and language, on the host's clock
 * (Warsaw's fall-back night: 2027-10-31 03:00 CEST → 02:00 CET, so 00:00Z and 01:00Z both read 02:00).
 */
const at = (iso: string) => Date.parse(iso);
const ZONE = 'Europe/Warsaw';

/** One of every reason the engine gives. */
const EVERY_REASON: Exclusion[] = [
  { code: 'HOST_INACTIVE' },
  { code: 'MINIMUM_NOTICE', earliest: at('2027-10-30T10:00:00Z') },
  { code: 'BOOKING_WINDOW', latest: at('2027-12-29T10:00:00Z') },
  { code: 'OUTSIDE_HOURS', date: '2027-01-09', hours: [] },
  {
    code: 'OUTSIDE_HOURS',
    date: '2027-01-11',
    hours: [
      { start: '09:00', end: '12:00' },
      { start: '13:00', end: '17:00' },
    ],
  },
  { code: 'DAY_OFF', date: '2027-12-24' },
  { code: 'HOLIDAY', date: '2027-11-11', name: 'Narodowe Święto Niepodległości' },
  { code: 'TIME_OFF', start: at('2027-10-30T10:00:00Z'), end: at('2027-11-01T08:00:00Z') },
  { code: 'OFF_GRID', previous: null, next: null },
  { code: 'OFF_GRID', previous: at('2027-10-30T08:00:00Z'), next: at('2027-10-30T09:00:00Z') },
  { code: 'MEETING', meetingUuid: null, start: at('2027-10-31T00:00:00Z'), end: at('2027-10-31T01:00:00Z') },
  { code: 'BUFFER', meetingUuid: null, start: at('2027-10-30T08:00:00Z'), end: at('2027-10-30T09:00:00Z'), bufferBeforeMinutes: 15, bufferAfterMinutes: 1 },
  { code: 'CALENDAR_EVENT', calendarUuid: 'c1', from: at('2027-10-30T08:00:00Z'), to: at('2027-10-30T09:00:00Z') },
  { code: 'DAILY_LIMIT', scope: 'topic', limit: 3, count: 3 },
  { code: 'WEEKLY_LIMIT', scope: 'host', limit: 1, count: 1 },
  { code: 'MONTHLY_LIMIT', scope: 'topic', limit: 25, count: 25 },
  { code: 'SEATS_FULL', seats: 12 },
];

/** An instant and a calendar day as Intl writes them in a language (the languages that do not keep the ISO clock). */
const intlTime = (lang: Lang, ms: number) => new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short', timeZone: ZONE }).format(ms);
const intlDay = (lang: Lang, date: string) => new Intl.DateTimeFormat(lang, { dateStyle: 'full', timeZone: 'UTC' }).format(at(`${date}T12:00:00Z`));

describe('describeExclusion', () => {
  it('says each reason as a sentence on the host’s clock, in English and Polish (as the API and /app always have)', () => {
    const meeting: Exclusion = { code: 'MEETING', meetingUuid: 'm1', start: at('2027-10-31T00:00:00Z'), end: at('2027-10-31T01:00:00Z') };
    expect(describeExclusion(meeting, ZONE, 'en')).toBe('The host has another meeting then, 2027-10-31 02:00–2027-10-31 02:00 (Europe/Warsaw).');
    expect(describeExclusion({ code: 'DAY_OFF', date: '2027-12-24' }, ZONE, 'pl')).toBe('2027-12-24 to dzień wolny gospodarza (wyjątek bez godzin).');
    const holiday: Exclusion = { code: 'HOLIDAY', date: '2027-03-28', name: 'Easter Sunday' };
    expect(describeExclusion(holiday, ZONE, 'en')).toBe("2027-03-28 is a public holiday (Easter Sunday): a day off in the host's hours.");
    expect(describeExclusion(holiday, ZONE, 'pl')).toBe('2027-03-28 to święto (Easter Sunday): dzień wolny w godzinach gospodarza.');
    expect(describeExclusion({ code: 'TIME_OFF', start: at('2027-10-30T10:00:00Z'), end: at('2027-11-01T08:00:00Z') }, ZONE, 'en')).toBe(
      'The host is away (time off) 2027-10-30 12:00–2027-11-01 09:00 (Europe/Warsaw).',
    );
    expect(describeExclusion({ code: 'OFF_GRID', previous: at('2027-10-30T08:00:00Z'), next: at('2027-10-30T09:00:00Z') }, ZONE, 'en')).toBe(
      "It is not on the topic's slot grid; the nearest grid starts are 2027-10-30 10:00 and 2027-10-30 11:00 (Europe/Warsaw).",
    );
    expect(describeExclusion({ code: 'WEEKLY_LIMIT', scope: 'host', limit: 4, count: 4 }, ZONE, 'en')).toBe(
      "The host's own weekly limit of 4 meetings is reached (4 booked in that period).",
    );
    expect(describeExclusion({ code: 'MONTHLY_LIMIT', scope: 'topic', limit: 20, count: 20 }, ZONE, 'pl')).toBe(
      'Osiągnięto miesięczny limit tematu: 20 spotkań, zarezerwowano 20.',
    );
  });

  const meeting = EVERY_REASON.find((reason) => reason.code === 'MEETING')!;
  const dayOff = EVERY_REASON.find((reason) => reason.code === 'DAY_OFF')!;
  const start = at('2027-10-31T00:00:00Z');
  const end = at('2027-10-31T01:00:00Z');
  it.each<[Lang, string, string]>([
    [
      'de',
      `Der Gastgeber hat zu dieser Zeit einen anderen Termin, ${intlTime('de', start)}–${intlTime('de', end)} (Europe/Warsaw).`,
      `${intlDay('de', '2027-12-24')} ist ein freier Tag des Gastgebers (eine Ausnahme ohne Zeiten).`,
    ],
    [
      'uk',
      `Ведучий має в цей час іншу зустріч, ${intlTime('uk', start)}–${intlTime('uk', end)} (Europe/Warsaw).`,
      `${intlDay('uk', '2027-12-24')} — вихідний день ведучого (виняток без годин).`,
    ],
    [
      'es',
      `El anfitrión tiene otra reunión a esa hora, ${intlTime('es', start)}–${intlTime('es', end)} (Europe/Warsaw).`,
      `${intlDay('es', '2027-12-24')} es un día libre del anfitrión (una excepción sin horario).`,
    ],
    [
      'fr',
      `L’hôte a un autre rendez-vous à ce moment, ${intlTime('fr', start)}–${intlTime('fr', end)} (Europe/Warsaw).`,
      `Le ${intlDay('fr', '2027-12-24')} est un jour de repos de l’hôte (une exception sans horaires).`,
    ],
  ])('%s: a meeting in the way and a day off, with the times and the day as Intl writes them there', (lang, meetingText, dayOffText) => {
    expect(describeExclusion(meeting, ZONE, lang)).toBe(meetingText);
    expect(describeExclusion(dayOff, ZONE, lang)).toBe(dayOffText);
    // The fall-back night's two 02:00s are both on the host's clock.
    expect(meetingText).toMatch(/\b0?2:00–/);
  });

  it.each<[Lang, string]>([
    ['de', 'Die eigene Wochengrenze des Gastgebers von 1 Termin ist erreicht (1 in diesem Zeitraum gebucht).'],
    ['uk', 'Досягнуто тижневого обмеження самого ведучого (для всіх тем): 1 зустріч, заброньовано 1.'],
    ['es', 'Se ha alcanzado el límite semanal propio del anfitrión de 1 reunión (1 reservadas en ese periodo).'],
    ['fr', 'La limite hebdomadaire propre à l’hôte de 1 rendez-vous est atteinte (1 réservés sur cette période).'],
    ['pl', 'Osiągnięto tygodniowy limit własny (dla wszystkich tematów): 1 spotkanie, zarezerwowano 1.'],
    ['en', "The host's own weekly limit of 1 meeting is reached (1 booked in that period)."],
  ])('%s: a limit of one meeting in the singular', (lang, text) => {
    expect(describeExclusion({ code: 'WEEKLY_LIMIT', scope: 'host', limit: 1, count: 1 }, ZONE, lang)).toBe(text);
  });

  describe.each(LANGS.filter((lang) => lang !== 'en'))('%s', (lang) => {
    it.each(EVERY_REASON.map((reason) => [reason.code, reason] as const))('%s reads in the language, with no English', (_code, reason) => {
      const text = describeExclusion(reason, ZONE, lang);
      expect(text).not.toBe(describeExclusion(reason, ZONE, 'en'));
      // The holiday's own name is data, not words of termin.
      expect(englishLeaks(text, lang)).toEqual([]);
      if ('start' in reason && lang !== 'pl') expect(text).toContain(intlTime(lang, reason.start));
      if ('date' in reason && lang !== 'pl') expect(text).toContain(intlDay(lang, reason.date));
    });
  });
});
