import Holidays from 'date-holidays';

/**
 * A country's public holidays, from `date-holidays` (a maintained library, never a list of
 * our own). Pure in effect: the same country and year always give the same dates (the
 * library's data ships with the package), so the answer is cached per country and year and
 * the slot engine may call it as it builds a day's hours. Only holidays of type `public`
 * count: the library also lists observances, school and bank holidays, which are workdays.
 *
 * `publicHolidaysOf('PL', 2027).get('2027-03-29')` → `'Easter Monday'`.
 */
export function publicHolidaysOf(country: string, year: number): ReadonlyMap<string, string> {
  const key = `${country} ${year}`;
  let found = cache.get(key);
  if (found === undefined) {
    found = new Map();
    const holidays = new Holidays(country);
    for (const holiday of holidays.getHolidays(year, 'en') || []) {
      if (holiday.type !== 'public') continue;
      // `date` is the local date (and time) in the country: "2027-03-29 00:00:00".
      const date = holiday.date.slice(0, 10);
      if (!found.has(date)) found.set(date, holiday.name);
    }
    if (cache.size > 1_000) cache.clear();
    cache.set(key, found);
  }
  return found;
}

const cache = new Map<string, Map<string, string>>();

let countries: ReadonlySet<string> | null = null;

/** Whether date-holidays knows the ISO 3166 country: `isHolidayCountry('PL')` → true, `'XX'` → false. */
export function isHolidayCountry(code: string): boolean {
  countries ??= new Set(Object.keys(new Holidays().getCountries()));
  return countries.has(code);
}

/**
 * The public holiday on a local date of a schedule, or null: none, the schedule names no
 * country, or the date is among its `holidayExceptions` (worked anyway).
 * `holidayOn({ holidays: 'PL', holidayExceptions: [] }, '2027-11-11')` → `'Independence Day'`.
 */
export function holidayOn(hours: { holidays?: string | null | undefined; holidayExceptions?: readonly string[] | undefined }, date: string): string | null {
  if (!hours.holidays) return null;
  if (hours.holidayExceptions?.includes(date)) return null;
  return publicHolidaysOf(hours.holidays, Number(date.slice(0, 4))).get(date) ?? null;
}
