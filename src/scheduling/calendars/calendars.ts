import { createHash, randomBytes } from 'node:crypto';
import { renderMeetingsFeed } from '../../calendars/meetings-feed.js';
import { NotFoundError, SecretUnreadableError, ValidationError } from '../../domain/errors.js';
import type { User } from '../../domain/user.js';
import type { DbOrTrx } from '../../db/database.js';
import { bumpCalendarVersions } from '../../db/repositories/busy-time.js';
import {
  deleteCalendar,
  deleteCalendarSpans,
  findCalendar,
  findFeedOfUser,
  findFeedUserByTokenHash,
  insertCalendar,
  insertFeedIfAbsent,
  listCalendarsOfUser,
  upsertFeed,
} from '../../db/repositories/calendars.js';
import { findConnection } from '../../db/repositories/connections.js';
import { findTopicIncludingDeleted } from '../../db/repositories/meeting-topics.js';
import { lockHost, selectMeetingsPage } from '../../db/repositories/meetings.js';
import { findUserAcrossAccounts } from '../../db/repositories/users.js';
import { inTransaction } from '../../db/transaction.js';
import { actorOf, recordAuditEvent } from '../audit/record-audit.js';
import { newId } from '../../ids.js';
import { assertAllowedUrl, OutboundUrlRefusedError } from '../../net/outbound-guard.js';
import { canOpenSecret, openSecret, sealSecret, secretBoxOf } from '../../secrets/secret-box.js';
import { toCalendarMeeting } from './calendar-meeting.js';
import { syncCalendar } from './sync.js';
import type { Principal, UseCaseContext } from '../context.js';
import type { CalendarType, ConnectedCalendar } from '../../domain/calendar.js';
import { requireSelfOrTeamAdmin } from '../access.js';

export interface NewCalendarInput {
  type: CalendarType;
  url?: string | undefined;
  /** Calendars on a connection (Google): the host's connection and the provider's calendar id. */
  connection?: string | undefined;
  calendarId?: string | undefined;
  username?: string | undefined;
  password?: string | undefined;
  checkConflicts?: boolean | undefined;
  writeMeetings?: boolean | undefined;
}

/**
 * Connects a remote calendar to a user, then syncs it once at once so the answer already
 * says whether it works (`status`, `lastError`). A calendar that cannot be read is kept
 * (with its error): the background sync keeps trying, and the user sees why.
 */
export async function addCalendar(
  ctx: Pick<UseCaseContext, 'publicUrl' | 'calendarSyncIntervalMs' | 'now' | 'log' | 'db' | 'secretKey' | 'calendars' | 'outbound' | 'integrations'>,
  principal: Principal,
  userUuid: string,
  input: NewCalendarInput,
): Promise<ConnectedCalendar> {
  const user = await requireSelfOrTeamAdmin(ctx.db, principal, userUuid);
  const provider = ctx.calendars[input.type];
  const { errors, connection } = provider.prepare(input, secretBoxOf(ctx.secretKey));
  if (connection.callUrl !== null) {
    try {
      await assertAllowedUrl(connection.callUrl, { allowPrivate: ctx.outbound.allowPrivate, resolver: ctx.outbound.resolver });
    } catch (error) {
      if (!(error instanceof OutboundUrlRefusedError)) throw error;
      errors.push({ path: '/url', message: refusalMessage(error) });
    }
  }
  let connectionUuid: string | null = null;
  if (provider.connectionProvider === undefined) {
    if (input.connection !== undefined) errors.push({ path: '/connection', message: `is only for calendars on a connection (not ${input.type})` });
    if (input.calendarId !== undefined) errors.push({ path: '/calendarId', message: `is only for calendars on a connection (not ${input.type})` });
  } else if (input.connection !== undefined) {
    // Only the host's own connection to the calendar's provider: another user's (or account's) is "not found" to them.
    const found = await findConnection(ctx.db, input.connection.toLowerCase());
    if (!found || found.userUuid !== user.uuid || found.provider !== provider.connectionProvider) {
      errors.push({ path: '/connection', message: `is not a ${provider.connectionProvider} connection of this user` });
    } else connectionUuid = found.uuid;
  }
  if (errors.length > 0) throw new ValidationError(errors);

  const now = ctx.now();
  const calendar = {
    uuid: newId(now),
    accountUuid: user.accountUuid,
    userUuid: user.uuid,
    type: input.type,
    displayUrl: connection.displayUrl,
    ...connection.access,
    connectionUuid,
    checkConflicts: input.checkConflicts ?? true,
    writeMeetings: connection.writeMeetings,
    status: 'pending' as const,
    lastSyncAt: null,
    lastSuccessAt: null,
    lastError: null,
    lastWriteError: null,
    createdAt: now,
    nextSyncAt: now,
  };
  // The log names the calendar's kind, never its URL (an iCalendar link is itself a secret).
  const details = { userUuid: user.uuid, type: input.type };
  await inTransaction(ctx.db, async (trx) => {
    await insertCalendar(trx, calendar);
    await recordAuditEvent(trx, {
      accountUuid: user.accountUuid,
      action: 'calendar.created',
      actor: actorOf(principal),
      target: { type: 'calendar', uuid: calendar.uuid },
      details,
      now,
    });
  });
  await syncCalendar(ctx, calendar.uuid);
  return (await findCalendar(ctx.db, calendar.uuid)) ?? calendar;
}

function refusalMessage(error: OutboundUrlRefusedError): string {
  if (error.reason === 'forbidden-address') {
    return `${error.message} The operator may allow such addresses with ALLOW_PRIVATE_URLS=true.`;
  }
  return error.message;
}

export async function listCalendars(ctx: Pick<UseCaseContext, 'db'>, principal: Principal, userUuid: string): Promise<ConnectedCalendar[]> {
  const user = await requireSelfOrTeamAdmin(ctx.db, principal, userUuid);
  return listCalendarsOfUser(ctx.db, user.uuid);
}

export async function getCalendar(ctx: Pick<UseCaseContext, 'db'>, principal: Principal, userUuid: string, calendarUuid: string): Promise<ConnectedCalendar> {
  const user = await requireSelfOrTeamAdmin(ctx.db, principal, userUuid);
  return requireCalendarOf(ctx.db, user, calendarUuid);
}

/**
 * Disconnects a calendar: its busy time stops blocking at once (the host's calendar version
 * is bumped), and no more meetings are written into it. Events already written stay there.
 */
export async function removeCalendar(ctx: Pick<UseCaseContext, 'now' | 'db'>, principal: Principal, userUuid: string, calendarUuid: string): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const user = await requireSelfOrTeamAdmin(trx, principal, userUuid);
    const calendar = await requireCalendarOf(trx, user, calendarUuid);
    await lockHost(trx, user.uuid);
    await deleteCalendar(trx, calendarUuid);
    if ((await deleteCalendarSpans(trx, calendarUuid)) > 0) await bumpCalendarVersions(trx, [user.uuid]);
    const details = { userUuid: user.uuid, type: calendar.type };
    await recordAuditEvent(trx, {
      accountUuid: user.accountUuid,
      action: 'calendar.deleted',
      actor: actorOf(principal),
      target: { type: 'calendar', uuid: calendarUuid },
      details,
      now: ctx.now(),
    });
  });
}

/** Syncs now and answers the calendar as the sync left it (as it is, when another sync holds it). */
export async function syncCalendarNow(
  ctx: Pick<UseCaseContext, 'publicUrl' | 'calendarSyncIntervalMs' | 'now' | 'log' | 'db' | 'secretKey' | 'calendars' | 'outbound' | 'integrations'>,
  principal: Principal,
  userUuid: string,
  calendarUuid: string,
): Promise<ConnectedCalendar> {
  const user = await requireSelfOrTeamAdmin(ctx.db, principal, userUuid);
  await requireCalendarOf(ctx.db, user, calendarUuid);
  await syncCalendar(ctx, calendarUuid);
  return requireCalendarOf(ctx.db, user, calendarUuid);
}

async function requireCalendarOf(db: DbOrTrx, user: User, calendarUuid: string): Promise<ConnectedCalendar> {
  const calendar = await findCalendar(db, calendarUuid);
  if (!calendar || calendar.userUuid !== user.uuid) throw new NotFoundError('calendar');
  return calendar;
}

/* The private feed */

/** 256 random bits, base64url: unguessable, and safe in a URL path. */
function newFeedToken(): string {
  return randomBytes(32).toString('base64url');
}

function hashFeedToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

function feedUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/feeds/${token}.ics`;
}

/**
 * The user's feed address, made on first request; the same until rotated. One stored under a
 * secret key this server no longer has cannot be shown (SecretUnreadableError: make a new one);
 * calendar apps subscribed to it keep reading it, since it is looked up by its hash.
 */
export async function getFeedUrl(ctx: Pick<UseCaseContext, 'publicUrl' | 'now' | 'db' | 'secretKey'>, principal: Principal, userUuid: string): Promise<string> {
  const user = await requireSelfOrTeamAdmin(ctx.db, principal, userUuid);
  const key = ctx.secretKey;
  let feed = await findFeedOfUser(ctx.db, user.uuid);
  if (!feed) {
    const token = newFeedToken();
    await insertFeedIfAbsent(ctx.db, user.uuid, hashFeedToken(token), sealSecret(key, token), ctx.now());
    feed = (await findFeedOfUser(ctx.db, user.uuid))!;
  }
  if (!canOpenSecret(key, feed.tokenSealed)) {
    throw new SecretUnreadableError({
      what: "the private feed's address",
      todo: `make a new feed address (POST ${ctx.publicUrl}/api/v1/users/${user.uuid}/feed/rotate, or "New feed link" in the app); calendar apps keep reading the old one until then`,
    });
  }
  return feedUrl(ctx.publicUrl, openSecret(key, feed.tokenSealed));
}

/** A new feed address; the old one answers 404 from now on. */
export async function rotateFeed(ctx: Pick<UseCaseContext, 'publicUrl' | 'now' | 'db' | 'secretKey'>, principal: Principal, userUuid: string): Promise<string> {
  const user = await requireSelfOrTeamAdmin(ctx.db, principal, userUuid);
  const token = newFeedToken();
  await upsertFeed(ctx.db, user.uuid, hashFeedToken(token), sealSecret(ctx.secretKey, token), ctx.now());
  return feedUrl(ctx.publicUrl, token);
}

/** Meetings that ended longer ago than this are left out of the feed. */
const FEED_PAST_MS = 365 * 86_400_000;
const FEED_MAX_MEETINGS = 5_000;
const FEED_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/**
 * The feed of a token: every confirmed meeting of the host that ended within the last year
 * or is still to come (up to 5,000), as iCalendar. Meetings waiting for payment are left
 * out: their hold lapses within minutes, faster than any calendar app refreshes a
 * subscription, so they would linger as ghosts. Undefined for an unknown or rotated token.
 */
export async function renderFeedOfToken(ctx: Pick<UseCaseContext, 'now' | 'db'>, token: string): Promise<string | undefined> {
  if (!FEED_TOKEN_PATTERN.test(token)) return undefined;
  const userUuid = await findFeedUserByTokenHash(ctx.db, hashFeedToken(token));
  if (userUuid === undefined) return undefined;
  const user = await findUserAcrossAccounts(ctx.db, userUuid);
  if (!user || user.deactivatedAt !== null) return undefined;
  const now = ctx.now();
  const meetings = await selectMeetingsPage(ctx.db, {
    accountUuid: user.accountUuid,
    hostUuid: user.uuid,
    from: now - FEED_PAST_MS,
    statuses: ['confirmed'],
    now,
    limit: FEED_MAX_MEETINGS,
  });
  const topicNames = new Map<string, string>();
  for (const topicUuid of new Set(meetings.map((meeting) => meeting.topicUuid))) {
    topicNames.set(topicUuid, (await findTopicIncludingDeleted(ctx.db, topicUuid))?.name ?? 'Meeting');
  }
  return renderMeetingsFeed(
    {
      calendarName: `termin: ${user.firstName} ${user.lastName}`,
      meetings: meetings.map((meeting) => toCalendarMeeting(meeting, topicNames.get(meeting.topicUuid) ?? 'Meeting')),
    },
    { stamp: new Date(now) },
  );
}
