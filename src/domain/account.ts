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
  /**
   * The owner: stays an admin of at least one team, and only the owner (or the operator's CLI)
   * renames, demotes or removes the owner or hands ownership over. Null only for a moment,
   * inside the transaction that creates the account and its first user.
   */
  ownerUuid: string | null;
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

/** What a change to a team member does to them: the owner is protected against some of it. */
export interface MemberChange {
  /** A new first or last name. */
  rename: boolean;
  /** The member stops being an admin of this team (demoted, or removed from it). */
  losesAdmin: boolean;
  /** The member is removed from this team. */
  removed: boolean;
}

/**
 * Why `actorUuid` may not make `change` to the account's owner, or null when it may (or the
 * member is not the owner). Only the owner renames the owner, demotes the owner or takes
 * the owner out of a team; and the owner stays an admin of at least one team
 * (`adminElsewhere`: of a team other than this one), handing ownership over first to step down.
 *
 * `ownerChangeRefusal('o', 'a', 'o', { rename: true, … }, true)` → "Only the account's owner …";
 * `ownerChangeRefusal('o', 'o', 'o', { losesAdmin: true, … }, false)` → "The account's owner stays …";
 * `ownerChangeRefusal('o', 'a', 'm', anything, false)` → null.
 */
export function ownerChangeRefusal(ownerUuid: string | null, actorUuid: string, memberUuid: string, change: MemberChange, adminElsewhere: boolean): string | null {
  if (ownerUuid === null || memberUuid !== ownerUuid) return null;
  if (actorUuid !== ownerUuid && (change.rename || change.losesAdmin || change.removed)) {
    return "Only the account's owner may rename the owner, change the owner's admin right or remove the owner from a team";
  }
  if (change.losesAdmin && !adminElsewhere) {
    return "The account's owner stays an admin of at least one team: hand ownership over first (POST /api/v1/account/owner)";
  }
  return null;
}
