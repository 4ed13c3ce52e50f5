import type { IntegrationUrls } from '../config.js';
import type { IntegrationProvider } from '../domain/integrations.js';
import type { VendorHttp } from '../net/vendor-http.js';
import type { IntegrationAdapter } from './ports.js';
import { createMicrosoftAdapter } from './microsoft/rooms.js';
import { createWebexAdapter } from './webex/rooms.js';
import { createGoogleAdapter } from './google/rooms.js';
import { createZoomAdapter } from './zoom/rooms.js';

/**
 * The one place that maps OAuth providers to adapters: a provider added to
 * INTEGRATION_PROVIDERS (src/domain/integrations.ts) makes the compiler ask for its line here.
 */
export function createIntegrationRegistry(urls: IntegrationUrls, http: VendorHttp): Record<IntegrationProvider, IntegrationAdapter> {
  return {
    zoom: createZoomAdapter(urls.zoom, http),
    microsoft: createMicrosoftAdapter(urls.microsoft, http),
    webex: createWebexAdapter(urls.webex, http),
    google: createGoogleAdapter(urls.google, http),
  };
}
