import type { IntegrationUrls } from '../config.js';
import type { IntegrationProvider } from '../domain/integrations.js';
import type { IntegrationAdapter } from './provider.js';
import { createMicrosoftAdapter } from './microsoft.js';
import { createWebexAdapter } from './webex.js';
import { createGoogleAdapter } from './google.js';
import { createZoomAdapter } from './zoom.js';

/**
 * The one place that maps OAuth providers to adapters: a provider added to
 * INTEGRATION_PROVIDERS (src/domain/integrations.ts) makes the compiler ask for its line here.
 */
export function createIntegrationRegistry(urls: IntegrationUrls): Record<IntegrationProvider, IntegrationAdapter> {
  return {
    zoom: createZoomAdapter(urls.zoom),
    microsoft: createMicrosoftAdapter(urls.microsoft),
    webex: createWebexAdapter(urls.webex),
    google: createGoogleAdapter(urls.google),
  };
}
