import type { ConferenceProvider } from '../domain/conference.js';
import type { ConferenceAdapter } from './conference.js';

/**
 * The one place that maps conference providers to adapters. Empty until the first
 * integration: adding its code to CONFERENCE_PROVIDERS (src/domain/conference.ts) makes the
 * compiler ask for its line here.
 */
export function createConferenceRegistry(): Record<ConferenceProvider, ConferenceAdapter> {
  return {};
}
