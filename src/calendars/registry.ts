import type { CalendarType } from '../domain/calendar.js';
import { caldavProvider } from './caldav.js';
import { icsProvider } from './ics-url.js';
import type { CalendarProvider } from './provider.js';

/** The kinds of calendar reached through a host's OAuth connection: their adapters live with their vendor in src/integrations/. */
export type ConnectionCalendarType = Exclude<CalendarType, 'caldav' | 'ics'>;

/**
 * The one place that maps calendar kinds to adapters: adding a kind to CALENDAR_TYPES
 * (src/domain/calendar.ts) makes the compiler ask for its line here. The calendars on a
 * connection (Google, Microsoft) are built by the integrations registry beside their vendor's
 * API client and handed in, so this folder never imports src/integrations/ (which imports
 * this port): `createCalendarRegistry(createIntegrationRegistry(urls, http).calendars)`.
 */
export function createCalendarRegistry(connected: Record<ConnectionCalendarType, CalendarProvider>): Record<CalendarType, CalendarProvider> {
  return {
    caldav: caldavProvider,
    ics: icsProvider,
    google: connected.google,
    microsoft: connected.microsoft,
  };
}
