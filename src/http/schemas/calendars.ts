import { Type, type Static } from 'typebox';
import { NextCursor } from './paging.js';
import { CALENDAR_SYNC_STATUSES, CALENDAR_TYPES, type ConnectedCalendar } from '../../domain/calendar.js';
import { Nullable, SingleLine, StringEnum, Timestamp, Uuid } from './common.js';

export const CalendarBodySchema = Type.Object(
  {
    type: StringEnum(CALENDAR_TYPES, {
      description:
        '`caldav`: a CalDAV calendar collection (read, and written with `writeMeetings`); `ics`: an iCalendar URL (read only); ' +
        "`google`: a Google calendar through the user's Google connection (`connection`, `calendarId`); " +
        "`microsoft`: an Outlook calendar through the user's Microsoft connection (`connection`, `calendarId`).",
    }),
    url: Type.Optional(
      SingleLine({
        minLength: 1,
        maxLength: 2048,
        description:
          'CalDAV: the calendar collection URL (`https://dav.example.com/calendars/anna/work/`); ICS: the feed URL (`https://…` or `webcal://…`). ' +
          'It must not resolve to a loopback, private, link-local or metadata address unless the operator set ALLOW_PRIVATE_URLS=true; redirects are not followed for CalDAV. ' +
          'Required for `caldav` and `ics`; not for `google`.',
      }),
    ),
    connection: Type.Optional(Uuid),
    calendarId: Type.Optional(
      SingleLine({
        minLength: 1,
        maxLength: 1024,
        description:
          "Google and Microsoft only: the calendar's id, `primary` (the default) or one like `team@group.calendar.google.com` (Google) or a Graph calendar id `AAMkAGI2…AAA=` (Microsoft).",
      }),
    ),
    username: Type.Optional(SingleLine({ minLength: 1, maxLength: 255, description: 'CalDAV only: the account name.' })),
    password: Type.Optional(
      Type.String({ minLength: 1, maxLength: 1024, description: 'CalDAV only: the password or app password. Write-only: stored encrypted, never returned or logged.' }),
    ),
    checkConflicts: Type.Optional(Type.Boolean({ default: true, description: "The calendar's busy time blocks the user's slots (default true)." })),
    writeMeetings: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          "CalDAV and Google: the user's confirmed meetings are written into this calendar, moved and removed with them (default false). A Google Meet meeting's own event is already there: it is not written twice. " +
          "Microsoft too: a Teams meeting's own event is its copy.",
      }),
    ),
  },
  { additionalProperties: false },
);
export type CalendarBody = Static<typeof CalendarBodySchema>;

export const CalendarSchema = Type.Object(
  {
    uuid: Uuid,
    type: StringEnum(CALENDAR_TYPES),
    url: Type.String({ description: 'CalDAV: the collection URL. ICS: only the scheme and host (`https://calendar.example.com/…`): the rest is often a secret address.' }),
    username: Nullable(Type.String({ description: 'CalDAV: the account name; null for ICS.' })),
    checkConflicts: Type.Boolean(),
    writeMeetings: Type.Boolean(),
    status: StringEnum(CALENDAR_SYNC_STATUSES, {
      description:
        '`pending`: never synced yet; `ok`: the last sync worked; `error`: it failed (see `lastError`), and the busy time of the last good sync still applies; ' +
        'or the calendar has more separate busy times than termin keeps (100 000 in the booking window), and from the time `lastError` names its whole window counts as busy.',
    }),
    lastSyncAt: Nullable(Timestamp),
    lastSuccessAt: Nullable(Timestamp),
    lastError: Nullable(Type.String({ description: 'Why the last sync failed, or from when a calendar with too many busy times counts as busy; null after a good one.' })),
    lastWriteError: Nullable(Type.String({ description: 'Why the last write of a meeting into the calendar failed (it is retried); null after a good one.' })),
    createdAt: Timestamp,
  },
  { title: 'Calendar', description: 'A calendar connected to a user. No secret (password, secret feed address) is ever shown.' },
);

export const CalendarListSchema = Type.Object({ calendars: Type.Array(CalendarSchema), nextCursor: NextCursor });

export const FeedSchema = Type.Object(
  { url: Type.String({ description: '`{PUBLIC_URL}/feeds/{token}.ics`: anyone with this address can read the feed; rotate it if it leaked.' }) },
  { title: 'Feed' },
);

export const UserCalendarParams = Type.Object({ userUuid: Uuid, uuid: Uuid });
export const UserParams = Type.Object({ userUuid: Uuid });

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function calendarToJson(calendar: ConnectedCalendar) {
  return {
    uuid: calendar.uuid,
    type: calendar.type,
    url: calendar.displayUrl,
    username: calendar.username,
    checkConflicts: calendar.checkConflicts,
    writeMeetings: calendar.writeMeetings,
    status: calendar.status,
    lastSyncAt: iso(calendar.lastSyncAt),
    lastSuccessAt: iso(calendar.lastSuccessAt),
    lastError: calendar.lastError,
    lastWriteError: calendar.lastWriteError,
    createdAt: new Date(calendar.createdAt).toISOString(),
  };
}
