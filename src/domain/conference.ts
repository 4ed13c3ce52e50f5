import type { Place } from './account.js';

/**
 * The providers that make a meeting's own conference room through the host's connection.
 * None yet: the integrations (zoom, google, microsoft, webex, for the places zoom,
 * google-meet, teamsForBusiness and webex) each add their code here, and the compiler then
 * asks for its place below and its adapter in src/connections/registry.ts.
 */
export const CONFERENCE_PROVIDERS = [] as const;
export type ConferenceProvider = (typeof CONFERENCE_PROVIDERS)[number];

/** The place whose rooms each provider makes. */
export const CONFERENCE_PLACES: Record<ConferenceProvider, Place> = {};
