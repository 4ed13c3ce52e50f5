import type { Place } from './account.js';
import type { FieldError } from './errors.js';
import type { PlaceDetails } from './place-details.js';

/**
 * The providers a host connects by OAuth: each makes the rooms of one meeting place (Google
 * and Microsoft will also hold the hosts' calendars). A new one is added here; the compiler
 * then asks for its place and settings below and its adapters in src/integrations/registry.ts.
 */
export const INTEGRATION_PROVIDERS = ['zoom', 'microsoft', 'webex', 'google'] as const;
export type IntegrationProvider = (typeof INTEGRATION_PROVIDERS)[number];

/** The meeting place whose rooms each provider makes. */
export const PROVIDER_PLACES: Readonly<Record<IntegrationProvider, Place>> = {
  zoom: 'zoom',
  microsoft: 'teamsForBusiness',
  webex: 'webex',
  google: 'google-meet',
};

/** The provider whose connection makes the rooms of `place`, or null for a place without rooms (offline, a phone call, Skype). */
export function providerOfPlace(place: Place): IntegrationProvider | null {
  for (const provider of INTEGRATION_PROVIDERS) if (PROVIDER_PLACES[provider] === place) return provider;
  return null;
}

/** What decides which of a host's places are ready: the providers they connected (and that work), and their own place details. */
export interface HostPlaceFacts {
  connected: readonly IntegrationProvider[];
  details: PlaceDetails;
}

/**
 * The topic's places at which a meeting with this host gets its link at once: a place with
 * rooms when the host's connection to its provider works or a static link is set (the host's
 * own or the topic's); a place without rooms (offline, a phone call, Skype) always.
 *
 * `placesReadyOf(['zoom', 'google-meet', 'offline'], { connected: ['zoom'], details: {} }, {})` → `['zoom', 'offline']`.
 */
export function placesReadyOf(places: readonly Place[], facts: HostPlaceFacts, topicDetails: PlaceDetails): Place[] {
  return places.filter((place) => {
    const provider = providerOfPlace(place);
    return provider === null || facts.connected.includes(provider) || Boolean(facts.details[place]) || Boolean(topicDetails[place]);
  });
}

/** A value per provider, e.g. each adapter's scopes: `mapProviders((p) => p.length)` → `{ zoom: 4 }`. */
export function mapProviders<T>(value: (provider: IntegrationProvider) => T): Record<IntegrationProvider, T> {
  return Object.fromEntries(INTEGRATION_PROVIDERS.map((provider) => [provider, value(provider)])) as Record<IntegrationProvider, T>;
}

export function isIntegrationProvider(value: string): value is IntegrationProvider {
  return (INTEGRATION_PROVIDERS as readonly string[]).includes(value);
}

export const CONNECTION_STATUSES = ['pending', 'connected', 'error'] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];

/** A host's connection to a provider, as the API shows it: no token in here. */
export interface Connection {
  uuid: string;
  accountUuid: string;
  userUuid: string;
  provider: IntegrationProvider;
  /** `pending` until the host has authorized it, `error` when the provider refused its tokens. */
  status: ConnectionStatus;
  /** The provider account's e-mail, read once connected. */
  accountEmail: string | null;
  lastError: string | null;
  createdAt: number;
  connectedAt: number | null;
}

/** One setting of a provider's OAuth app (`secret`: write-only, sealed at rest). */
export interface IntegrationField {
  name: string;
  secret: boolean;
  /** Settings with a default may be left out. */
  default?: string;
  /** Why a given value cannot work, or null when it can (checked before anything is stored). */
  check?: (value: string) => string | null;
}

/** The business's OAuth app per provider, under the names the API documents. */
export const INTEGRATION_FIELDS: Readonly<Record<IntegrationProvider, readonly IntegrationField[]>> = {
  zoom: [
    { name: 'clientId', secret: false },
    { name: 'clientSecret', secret: true },
  ],
  microsoft: [
    { name: 'clientId', secret: false },
    { name: 'clientSecret', secret: true },
    { name: 'tenant', secret: false, default: 'common', check: checkMicrosoftTenant },
  ],
  webex: [
    { name: 'clientId', secret: false },
    { name: 'clientSecret', secret: true },
  ],
  google: [
    { name: 'clientId', secret: false },
    { name: 'clientSecret', secret: true },
  ],
};

/**
 * Checks an integration's settings against its fields and splits them into what may be shown
 * and what must be sealed: `splitIntegrationSettings('zoom', { clientId: 'a', clientSecret: 'b' }, '/integrations/zoom')`
 * → `{ settings: { clientId: 'a' }, secrets: { clientSecret: 'b' } }`. Every missing or unknown
 * field is reported at its path; defaults fill what may be left out.
 */
export function splitIntegrationSettings(
  provider: IntegrationProvider,
  input: Readonly<Record<string, unknown>>,
  basePath: string,
): { value: { settings: Record<string, string>; secrets: Record<string, string> }; errors: FieldError[] } {
  const fields = INTEGRATION_FIELDS[provider];
  const errors: FieldError[] = [];
  const value = { settings: {} as Record<string, string>, secrets: {} as Record<string, string> };
  for (const name of Object.keys(input)) {
    if (!fields.some((field) => field.name === name)) {
      errors.push({ path: `${basePath}/${name}`, message: `is not a ${provider} setting (known: ${fields.map((f) => f.name).join(', ')})` });
    }
  }
  for (const field of fields) {
    const raw = input[field.name] ?? field.default;
    const path = `${basePath}/${field.name}`;
    if (raw === undefined || raw === null || raw === '') errors.push({ path, message: `is required to connect ${provider}` });
    else if (typeof raw !== 'string' || raw.length > 500 || /[\u0000-\u001f\u007f]/.test(raw))
      errors.push({ path, message: 'must be a single-line string of at most 500 characters' });
    else if (field.check !== undefined && field.check(raw.trim()) !== null) errors.push({ path, message: field.check(raw.trim()) ?? '' });
    else if (field.secret) value.secrets[field.name] = raw.trim();
    else value.settings[field.name] = raw.trim();
  }
  return { value, errors };
}

const TENANT_GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TENANT_DOMAIN = /^(?=.{4,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;

/**
 * A Microsoft Entra tenant as the v2.0 endpoints take it in their path: `common` (work,
 * school and personal accounts), `organizations`, `consumers`, the tenant's id (a GUID) or one
 * of its domains. It becomes part of the authorization server's URL, so nothing else passes.
 *
 * `checkMicrosoftTenant('contoso.onmicrosoft.com')` → null; `checkMicrosoftTenant('a/b')` → a reason.
 */
export function checkMicrosoftTenant(value: string): string | null {
  if (['common', 'organizations', 'consumers'].includes(value.toLowerCase()) || TENANT_GUID.test(value) || TENANT_DOMAIN.test(value)) return null;
  return 'must be common, organizations, consumers, the tenant id (a GUID) or a domain of the tenant (contoso.onmicrosoft.com)';
}
