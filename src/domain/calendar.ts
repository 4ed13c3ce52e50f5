/** The kinds of calendar a host can connect; src/calendars/registry.ts has an adapter for each. */
export const CALENDAR_TYPES = ['caldav', 'ics', 'google', 'microsoft'] as const;
export type CalendarType = (typeof CALENDAR_TYPES)[number];

export const CALENDAR_SYNC_STATUSES = ['pending', 'ok', 'error'] as const;
export type CalendarSyncStatus = (typeof CALENDAR_SYNC_STATUSES)[number];

/** A connected calendar as the service shows it: no secret in here. */
export interface ConnectedCalendar {
  uuid: string;
  accountUuid: string;
  userUuid: string;
  type: CalendarType;
  displayUrl: string;
  username: string | null;
  checkConflicts: boolean;
  writeMeetings: boolean;
  status: CalendarSyncStatus;
  lastSyncAt: number | null;
  lastSuccessAt: number | null;
  lastError: string | null;
  lastWriteError: string | null;
  createdAt: number;
}

/**
 * How a calendar is reached, as stored: secrets sealed (src/secrets/secret-box.ts), opened
 * by the calendar's adapter only for the length of one call.
 */
export interface SealedCalendarAccess {
  /** CalDAV: the collection URL in clear; ICS: the sealed feed URL. */
  url: string;
  username: string | null;
  passwordSealed: string | null;
  /** Google (and Microsoft) calendars: the host's connection whose tokens reach it, and the provider's id of the calendar. */
  connectionUuid?: string | null;
  remoteCalendarId?: string | null;
}
