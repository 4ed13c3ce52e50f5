import type { Place } from '../domain/account.js';
import type { ConferenceProvider } from '../domain/conference.js';

/**
 * The port a conference-room provider implements (Zoom, Google Meet, Microsoft Teams,
 * Webex), shaped like the payment gateways' (src/payments/gateway.ts): use cases call these
 * from the outbox, never while booking and never under a host's lock, and never branch on a
 * provider; `registry.ts` maps each provider to its adapter in one place. Adapters call
 * only their provider's documented REST paths under the operator's configured base URL,
 * give every call a timeout, and never log a token.
 */

/** The host's connection, its access token opened just before the call. */
export interface ConferenceAccess {
  accessToken: string;
}

/** What a room is made for: one meeting. */
export interface ConferenceMeeting {
  meetingUuid: string;
  /** "Intro call: Jan Kowalski" */
  title: string;
  start: number;
  end: number;
  /** The host's IANA zone, for providers that show the meeting in it. */
  timezone: string;
}

/** A meeting's room as the provider made it. */
export interface ConferenceRoom {
  /** The provider's id of the room, to move or delete it later. */
  roomId: string;
  joinUrl: string;
  conferenceId: string | null;
  password: string | null;
}

/** The provider refused or could not be reached; `retryable` when trying later may help. */
export class ConferenceError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ConferenceError';
  }
}

export interface ConferenceAdapter {
  readonly provider: ConferenceProvider;
  /** The meeting place whose rooms this provider makes. */
  readonly place: Place;
  /** Makes the meeting's room (once per meeting: the caller records it before telling anyone). */
  createRoom(access: ConferenceAccess, meeting: ConferenceMeeting): Promise<ConferenceRoom>;
  /** Moves the room with its meeting (a reschedule). */
  moveRoom(access: ConferenceAccess, roomId: string, meeting: ConferenceMeeting): Promise<void>;
  /** Removes the room (a cancellation); one already gone is not an error. */
  deleteRoom(access: ConferenceAccess, roomId: string): Promise<void>;
}
