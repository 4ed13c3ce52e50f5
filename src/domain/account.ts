/** Meeting places a topic can offer; an account enables a subset, a topic offers a subset of that. */
export const PLACES = ['offline', 'phone-call', 'google-meet', 'teamsForBusiness', 'skypeForBusiness', 'skypeForConsumer', 'zoom', 'webex'] as const;
export type Place = (typeof PLACES)[number];

/** Payment gateways a paid topic can use. */
export const GATEWAYS = ['stripe', 'p24', 'payu', 'paypal', 'tpay'] as const;
export type Gateway = (typeof GATEWAYS)[number];

export const DEFAULT_PLACES: readonly Place[] = ['offline', 'phone-call'];

/** A gateway the account enabled, as it may be shown: its secrets stay out of this type. */
export interface EnabledGateway {
  code: Gateway;
  /** The non-secret settings (merchantId, posId, clientId, …). */
  settings: Record<string, string | number>;
  /** Every field its gateway needs is stored (and readable): bookings may use it. */
  configured: boolean;
  /** Why it is not configured although every field is stored (its secrets cannot be read). */
  reason?: string;
}

export interface Account {
  uuid: string;
  name: string;
  timezone: string;
  maxUsers: number;
  places: Place[];
  createdAt: number;
}

export function isPlace(value: string): value is Place {
  return (PLACES as readonly string[]).includes(value);
}

/** Keeps the first occurrence of each entry: `['zoom','offline','zoom']` → `['zoom','offline']`. */
export function dedupe<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}

/** A pragmatic e-mail shape check (one @, no spaces, a dot in the domain); delivery is the real test. */
export function isEmailAddress(value: string): boolean {
  return /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/.test(value.trim()) && value.trim().length <= 320;
}
