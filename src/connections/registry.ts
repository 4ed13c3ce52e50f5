import type { IntegrationUrls } from '../config.js';
import type { IntegrationProvider } from '../domain/integrations.js';
import type { VendorHttp } from '../net/vendor-http.js';
import type { IntegrationAdapter } from './provider.js';
import { createMicrosoftAdapter } from './microsoft.js';
import { createWebexAdapter } from './webex.js';
import { createGoogleAdapter } from './google.js';
import { createZoomAdapter } from './zoom.js';

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
