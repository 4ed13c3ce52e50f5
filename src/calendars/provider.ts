import type { CalendarType, SealedCalendarAccess } from '../domain/calendar.js';
import { type FieldError, SecretUnreadableError } from '../domain/errors.js';
import type { IntegrationProvider } from '../domain/integrations.js';
import type { BusyInterval, BusyOptions, TimeRange } from './busy-time.js';

/**
 * The port every kind of calendar implements (CalDAV and an iCalendar URL here; Google's and
 * Microsoft's on a host's connection in src/integrations/, with their vendor), shaped like the
 * payment gateways' (src/payments/gateway.ts). Use cases call these and never branch on a
 * kind; `registry.ts` maps each `CalendarType` to its adapter in one place, so a new kind is
 * its adapter file plus one line there (the compiler lists the line once the type is in
 * `CALENDAR_TYPES`).
 *
 * Adapters get domain types and give domain types back. Every call to an address a user gave
 * goes through the `fetch` they are handed (the service's SSRF-guarded one), a call to a
 * vendor's API through the vendor client (src/net/vendor-http.ts), each with a timeout;
 * secrets stay sealed until the adapter opens them for one call, and never appear in an error.
 */

/** What a host sends to connect a calendar, as the API took it (before any check of the kind's rules). */
export interface CalendarConnectRequest {
  /** CalDAV and ICS calendars: their address. */
  url?: string | undefined;
  /** Calendars on a connection (Google): the host's connection, and the provider's calendar id (`primary`). */
  connection?: string | undefined;
  calendarId?: string | undefined;
  username?: string | undefined;
  password?: string | undefined;
  writeMeetings?: boolean | undefined;
}

/** What connecting stores, once the kind's rules hold. */
export interface CalendarConnection {
  /** The address the service will call, given by the user: the use case checks it against the outbound guard first. Null for a calendar reached through the operator's provider URLs. */
  callUrl: string | null;
  /** What the API shows instead of the address (an ICS URL's path is often a secret). */
  displayUrl: string;
  access: SealedCalendarAccess;
  writeMeetings: boolean;
}

/** Seals a secret for storage and opens a stored one (the service's secret key stays with the use case). */
export interface SecretSealer {
  seal(secret: string): string;
  open(sealed: string): string;
}

/**
 * Opens a calendar's sealed part, or throws SecretUnreadableError naming it and what the host
 * does about it (the sync shows that as the calendar's `lastError`):
 * `openCalendarSecret(secrets, sealed, "the calendar's password", 'remove the calendar and add it again with its password')`.
 */
export function openCalendarSecret(secrets: SecretSealer, sealed: string, what: string, todo: string): string {
  try {
    return secrets.open(sealed);
  } catch (error) {
    if (error instanceof SecretUnreadableError) throw new SecretUnreadableError({ what, todo });
    throw error;
  }
}

/** Writes termin's copies of meetings into a calendar, under the invitation's UID. */
export interface CalendarWriter {
  /** Creates or replaces the event stored under this UID. */
  putEvent(uid: string, icsText: string): Promise<void>;
  /** Removes the event stored under this UID; one already gone is not an error. */
  deleteEvent(uid: string): Promise<void>;
}

/** One connected calendar, opened for the length of one job. */
export interface RemoteCalendar {
  /** The busy time within the range; throws CalendarError subclasses (messages an operator can act on). */
  readBusy(range: TimeRange, hostZone: string, options?: BusyOptions): Promise<BusyInterval[]>;
  /** Null for a calendar termin cannot write into (an iCalendar URL is read-only). */
  writer: CalendarWriter | null;
  /**
   * Set for calendars whose provider says what changed since the last read (Google's sync
   * token, Graph's delta link): the changes since `state` (what the last call returned; null:
   * none yet), or a full read when there is no state, it no longer covers `range` or the zone,
   * or the provider has forgotten it. The sync keeps each event's span and applies these.
   */
  readChanges?(state: string | null, range: TimeRange, hostZone: string): Promise<CalendarChanges>;
}

/** What one incremental read of a calendar found. */
export interface CalendarChanges {
  /** A full read: these events are all there is (every event kept from before is dropped). */
  full: boolean;
  /** Each event read, by the provider's id: its busy span, or null when it does not block (any more): deleted, cancelled, free, declined, termin's own. */
  events: { id: string; span: BusyInterval | null }[];
  /** Where the next read starts; opaque to the use case, stored as it is. */
  state: string;
}

/** A host's OAuth connection, lent to a calendar on it for one call: a working access token (refreshed as needed). */
export interface ConnectionTokens {
  withAccessToken<T>(call: (accessToken: string) => Promise<T>): Promise<T>;
}

export interface CalendarProvider {
  readonly type: CalendarType;
  /** Set for calendars reached through a host's connection (`google`): the request must name a connection of the host to this provider. */
  readonly connectionProvider?: IntegrationProvider;
  /**
   * Checks the request against this kind's rules (which fields it needs, which it refuses),
   * each problem at its JSON path, and turns it into what is stored, secrets sealed.
   */
  prepare(request: CalendarConnectRequest, secrets: SecretSealer): { errors: FieldError[]; connection: CalendarConnection };
  /** The calendar behind the stored access, through `fetch`. */
  open(access: SealedCalendarAccess, secrets: SecretSealer, fetch: typeof globalThis.fetch, connection: ConnectionTokens | null): RemoteCalendar;
}
