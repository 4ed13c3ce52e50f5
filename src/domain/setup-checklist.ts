import type { Place } from './account.js';
import { providerOfPlace } from './integrations.js';

/**
 * A new host's first-run checklist, as the web app shows it on Upcoming until every step is
 * done: weekly hours saved, a topic, the means to meet (a connection, or a topic place that
 * needs none: in person, a phone call), and the booking link shared.
 */
export const SETUP_STEPS = ['hours', 'topic', 'connection', 'shared'] as const;
export type SetupStep = (typeof SETUP_STEPS)[number];

/** The steps stored as done (the others are seen from the host's topics and connections). */
export const STORED_SETUP_STEPS = ['hours', 'link-shared'] as const;
export type StoredSetupStep = (typeof STORED_SETUP_STEPS)[number];

export interface SetupFacts {
  stored: ReadonlySet<string>;
  /** The places of each topic the host hosts. */
  topicPlaces: readonly (readonly Place[])[];
  /** How many of the host's connections work. */
  connected: number;
}

export interface SetupChecklist {
  steps: { step: SetupStep; done: boolean }[];
  /** Every step done: the checklist is not shown any more. */
  complete: boolean;
}

/**
 * `setupChecklistOf({ stored: new Set(['hours']), topicPlaces: [['zoom']], connected: 0 })` →
 * hours and topic done, connection and shared not (a Zoom topic with no connection cannot meet).
 */
export function setupChecklistOf(facts: SetupFacts): SetupChecklist {
  const done: Record<SetupStep, boolean> = {
    hours: facts.stored.has('hours'),
    topic: facts.topicPlaces.length > 0,
    connection: facts.connected > 0 || facts.topicPlaces.some((places) => places.some((place) => providerOfPlace(place) === null)),
    shared: facts.stored.has('link-shared'),
  };
  const steps = SETUP_STEPS.map((step) => ({ step, done: done[step] }));
  return { steps, complete: steps.every((step) => step.done) };
}
