import type { IntegrationUrls } from '../config.js';
import type { CalendarType } from '../domain/calendar.js';
import type { VendorHttp } from '../net/vendor-http.js';
import { caldavProvider } from './caldav.js';
import { createGoogleCalendarProvider } from './google.js';
import { icsProvider } from './ics-url.js';
import { createMicrosoftCalendarProvider } from './microsoft.js';
import type { CalendarProvider } from './provider.js';

/**
 * The one place that maps calendar kinds to adapters: adding a kind to CALENDAR_TYPES
 * (src/domain/calendar.ts) makes the compiler ask for its line here.
 */
export function createCalendarRegistry(integrations: IntegrationUrls, http: VendorHttp): Record<CalendarType, CalendarProvider> {
  return {
    caldav: caldavProvider,
    ics: icsProvider,
    google: createGoogleCalendarProvider(integrations.google, http),
    microsoft: createMicrosoftCalendarProvider(integrations.microsoft, http),
  };
}
