import type { ConnectionCalendarType } from '../calendars/registry.js';
import type { CalendarProvider } from '../calendars/provider.js';
import type { IntegrationUrls } from '../config.js';
import type { VendorHttp } from '../net/vendor-http.js';
import { createGoogleCalendarProvider } from './google/calendar.js';
import { createGoogleClient, createGoogleOAuth } from './google/client.js';
import { createGoogleRooms } from './google/rooms.js';
import { createMicrosoftCalendarProvider } from './microsoft/calendar.js';
import { createMicrosoftClient, createMicrosoftOAuth } from './microsoft/client.js';
import { createMicrosoftRooms } from './microsoft/rooms.js';
import type { Integrations } from './ports.js';
import { createWebexClient, createWebexOAuth } from './webex/client.js';
import { createWebexRooms } from './webex/rooms.js';
import { createZoomClient, createZoomOAuth } from './zoom/client.js';
import { createZoomRooms } from './zoom/rooms.js';

export interface IntegrationRegistry extends Integrations {
  /** The calendars on a host's connection, for the calendar registry (src/calendars/registry.ts), which takes them from here. */
  calendars: Record<ConnectionCalendarType, CalendarProvider>;
}

/**
 * The one place that maps OAuth providers to their adapters, a `Record` per capability: a
 * provider added to INTEGRATION_PROVIDERS (src/domain/integrations.ts) makes the compiler ask
 * for its line in each, and a calendar kind on a connection for its line in `calendars`.
 * Every vendor's API client is built once, on the service's vendor HTTP client, and shared by
 * its capabilities; `now` is the service's clock.
 * `createIntegrationRegistry(config.integrations, http).rooms.zoom.createRoom(token, request)`.
 */
export function createIntegrationRegistry(urls: IntegrationUrls, http: VendorHttp, now: () => number = Date.now): IntegrationRegistry {
  const zoom = createZoomClient(urls.zoom, http);
  const microsoft = createMicrosoftClient(urls.microsoft, http);
  const webex = createWebexClient(urls.webex, http);
  const google = createGoogleClient(urls.google, http);
  return {
    oauth: {
      zoom: createZoomOAuth(urls.zoom, zoom),
      microsoft: createMicrosoftOAuth(urls.microsoft, microsoft),
      webex: createWebexOAuth(urls.webex, webex),
      google: createGoogleOAuth(urls.google, google),
    },
    rooms: {
      zoom: createZoomRooms(zoom),
      microsoft: createMicrosoftRooms(microsoft),
      // Webex refuses a start in the past: its rooms are timed against the service's clock.
      webex: createWebexRooms(webex, { now }),
      google: createGoogleRooms(google),
    },
    calendars: {
      google: createGoogleCalendarProvider(google),
      microsoft: createMicrosoftCalendarProvider(microsoft),
    },
  };
}
