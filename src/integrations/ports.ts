import type { IntegrationProvider } from '../domain/integrations.js';

/**
 * The ports of the OAuth providers hosts connect (Zoom, Webex, Google, Microsoft), by
 * capability, shaped like the payment gateways' (src/payments/gateway.ts): each vendor's
 * folder offers the capabilities it has (its OAuth provider; its conference rooms; Google's
 * and Microsoft's calendars implement src/calendars/provider.ts), and `registry.ts` maps
 * each provider to them in one place. Use cases call these and never branch on a provider.
 * Adapters call only their provider's documented endpoints under the operator's configured
 * base URLs, through the service's vendor client (src/net/vendor-http.ts), never touch the
 * database and never log a token. The OAuth exchange itself is generic (oauth.ts); a
 * provider says where its authorization server is and what to ask for.
 */

/** The business's OAuth app for the provider, its secret opened for this call. */
export interface OAuthApp {
  clientId: string;
  clientSecret: string;
  /** Non-secret settings (Microsoft's `tenant`). */
  settings: Readonly<Record<string, string>>;
}

/** Where the provider's authorization server is, for one app, and what termin asks it for. */
export interface AuthorizationServer {
  authorizeUrl: string;
  tokenUrl: string;
  /** Where a token is revoked when a host disconnects; null where the provider has no such endpoint. */
  revokeUrl: string | null;
  scopes: readonly string[];
  /**
   * The scopes termin cannot work without, each with what the consent screen calls it, checked
   * against the token answer's `scope` where it names one (RFC 6749 §5.1): a host who unticks one
   * (Google's granular consent) is not connected. Absent: not checked (Zoom's scopes are the app's
   * own, under names that differ from what is asked; Webex's answer names none). The OpenID scopes,
   * there only for the account's e-mail, are never among them.
   */
  requiredScopes?: Readonly<Record<string, string>>;
  /** One scope's spellings made one before they are compared (Microsoft's are case-insensitive, and may come back under `https://graph.microsoft.com/`). */
  scopeKey?: (scope: string) => string;
  /**
   * How the app authenticates at the token endpoint: HTTP Basic over the form-urlencoded id and
   * secret (RFC 6749 §2.3.1), HTTP Basic over them as they are (`basic-raw`: Zoom), or in the form body.
   */
  clientAuthentication: 'basic' | 'basic-raw' | 'post';
  /**
   * The authorization server's issuer identifier, where it differs from the token URL's origin
   * (Google's is `https://accounts.google.com`): a callback's `iss` parameter (RFC 9207) must match it.
   */
  issuer?: string;
  /** Extra parameters of the authorization request (Google's `access_type=offline`, …). */
  authorizeParams?: Readonly<Record<string, string>>;
  /** Extra parameters of a refresh request (Microsoft asks for the `scope` again). */
  refreshParams?: Readonly<Record<string, string>>;
  /**
   * A token endpoint that answers its errors in a shape of its own (Webex's `{ message, errors,
   * trackingId }`) says here which RFC 6749 error it means, so a refused grant is still told
   * from an outage; null leaves the answer as it is.
   */
  tokenErrorOf?: (status: number, body: unknown) => { error: string; error_description?: string } | null;
}

/** What a room is made for: one meeting. */
export interface RoomRequest {
  meetingUuid: string;
  /** Recorded before the call, written into the room (and sent where the provider takes one), so an orphan can be found. */
  requestId: string;
  /** "Intro call: Jan Kowalski" */
  title: string;
  start: number;
  end: number;
  /** The host's IANA zone, for providers that show the meeting in it. */
  timezone: string;
  /** The participant, for providers that invite attendees (Google, Microsoft). */
  attendee: { name: string; email: string };
}

/** A meeting's room as the provider made it. */
export interface ConferenceRoom {
  /** The provider's id of the room (or of the calendar event that holds it), to move or delete it later. */
  roomId: string;
  joinUrl: string;
  conferenceId: string | null;
  password: string | null;
}

/** The provider refused or could not be reached; `retryable` when trying later may help. */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    /** The provider's `Retry-After` with a refusal, in ms from then (null: it named no wait), for a caller that paces its next try. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/**
 * A refusal about the connection itself, final until the host connects again: the grant lacks
 * a scope termin needs (Zoom's code 4711, a 403 naming scopes), consent was withdrawn, the
 * account cannot have what termin asks for. The use case turns the connection to `error`
 * (the host told, `connection.error` sent) instead of retrying a call that cannot succeed.
 */
export class ConnectionRefusedError extends ProviderError {
  constructor(message: string, status?: number) {
    super(message, false, status);
    this.name = 'ConnectionRefusedError';
  }
}

/** The access token was refused (HTTP 401): refreshed once and tried again by the caller. */
export class AccessTokenRejectedError extends ProviderError {
  constructor(provider: string) {
    super(`${provider} refused the access token (HTTP 401)`, true, 401);
    this.name = 'AccessTokenRejectedError';
  }
}

/** Makes, moves and deletes meetings' rooms at the provider, with a host's access token. */
export interface ConferenceRooms {
  createRoom(accessToken: string, request: RoomRequest): Promise<ConferenceRoom>;
  /** The room made under `requestId` by an attempt whose answer was lost, or null (then a new one is made). */
  findRoom(accessToken: string, request: RoomRequest): Promise<ConferenceRoom | null>;
  moveRoom(accessToken: string, roomId: string, request: RoomRequest): Promise<void>;
  /** Removes the room; one already gone is not an error. */
  deleteRoom(accessToken: string, roomId: string): Promise<void>;
}

/** How termin connects a host to the provider: the OAuth side of a vendor. */
export interface OAuthProvider {
  /** Human name for messages: "Zoom", "Google", … */
  readonly label: string;
  /** What termin asks the host to grant (the guide at /docs/integrations lists them for the app's registration). */
  readonly scopes: readonly string[];
  authorizationServer(app: OAuthApp): AuthorizationServer;
  /** The provider account's e-mail, shown on the connection. */
  fetchAccountEmail(accessToken: string): Promise<string | null>;
}

/** Every provider's adapters, one map per capability: `integrations.rooms[provider].createRoom(token, request)`. */
export interface Integrations {
  oauth: Record<IntegrationProvider, OAuthProvider>;
  rooms: Record<IntegrationProvider, ConferenceRooms>;
}
