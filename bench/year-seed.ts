/**
 * The fixture of bench/year.ts: one business of 200 hosts in 20 teams, and the rows a year of
 * its bookings leaves behind, written straight into the tables in batches (a year through the
 * API would take hours). The same fixture (account, hosts, teams, topics, webhooks) is made on
 * the empty database and on the year's, and the hosts the bench measures (team 0's 20) get the
 * very same meetings in the months ahead on both: what differs is the year behind them and
 * everyone else's data, which is what must not make a request dearer.
 */
import type { Insertable, Kysely } from 'kysely';
import { DateTime } from 'luxon';
import type { AppContext } from '../src/context.js';
import type { Database } from '../src/db/database.js';
import type { DomainEvent } from '../src/domain/events.js';
import type { Meeting } from '../src/domain/meeting.js';
import { newId } from '../src/ids.js';
import { createAccount } from '../src/scheduling/account/create-account.js';
import { addTeamMember, createTeam } from '../src/scheduling/account/teams.js';
import { createMeetingTopic } from '../src/scheduling/topics/meeting-topics.js';
import { createWebhook } from '../src/scheduling/webhooks/subscriptions.js';
import { webhookBody } from '../src/webhooks/event-body.js';
import { benchMeeting } from './support.js';

export const HOSTS = 200;
export const TEAMS = 20;
/** Each team has 20 hosts, each host is in two teams: team t holds hosts 10t … 10t + 19 (mod 200). */
export const TEAM_SIZE = 20;
export const ZONE = 'Europe/Warsaw';
export const WEBHOOK_ENDPOINTS = 5;
/** The year: nine months behind `now`, three ahead. */
export const MONTHS_BEHIND = 9;
export const MONTHS_AHEAD = 3;
export const CALENDARS = 300;
/**
 * The measured hosts' recent past that both databases hold: a view reads whole ISO weeks
 * around its range, with a day's slack for zones, so next month's view also reads up to two
 * weeks back. Without these days on the empty database, that fixed window (not the year)
 * made the year's team view read ~1,200 more rows (meetings and busy time of last week).
 */
export const RECENT_DAYS = 16;

export interface Fixture {
  accountUuid: string;
  apiKey: string;
  owner: { keyUuid: string; userUuid: string; accountUuid: string; username: string };
  hosts: { uuid: string; username: string; email: string }[];
  teams: { uuid: string; topicUuid: string }[];
  subscriptions: string[];
}

/** Account, 200 hosts, 20 teams with a round-robin topic each, 5 webhooks (to `receiverUrl`). */
export async function createFixture(ctx: AppContext, receiverUrl: string): Promise<Fixture> {
  const created = await createAccount(ctx, {
    name: 'A busy year',
    ownerEmail: 'host0@year.test',
    ownerFirstName: 'Host',
    ownerLastName: 'Zero',
    maxUsers: HOSTS + 10,
    timezone: ZONE,
    places: ['zoom'],
  });
  const owner = { keyUuid: '', userUuid: created.owner.uuid, accountUuid: created.account.uuid, username: created.owner.username };
  const hosts = [{ uuid: created.owner.uuid, username: created.owner.username, email: 'host0@year.test' }];
  const teamUuids = [created.team.uuid];
  for (let t = 1; t < TEAMS; t += 1) teamUuids.push((await createTeam(ctx, owner, `Team ${t}`)).uuid);
  for (let t = 0; t < TEAMS; t += 1) {
    for (let i = 0; i < TEAM_SIZE; i += 1) {
      const h = (10 * t + i) % HOSTS;
      if (h === 0) continue; // the owner, in team 0 already
      const email = `host${h}@year.test`;
      const member = await addTeamMember(ctx, owner, teamUuids[t]!, { firstName: 'Host', lastName: `Number ${h}`, email });
      hosts[h] = { uuid: member.uuid, username: member.username, email };
    }
  }
  const teams: Fixture['teams'] = [];
  for (let t = 0; t < TEAMS; t += 1) {
    const topic = await createMeetingTopic(ctx, owner, { name: `Consultation ${t}`, durationMinutes: 30, bookingWindowDays: 120, places: ['zoom'], team: teamUuids[t]! });
    teams.push({ uuid: teamUuids[t]!, topicUuid: topic.uuid });
  }
  const subscriptions: string[] = [];
  for (let i = 0; i < WEBHOOK_ENDPOINTS; i += 1) {
    const made = await createWebhook(ctx, owner, { url: `${receiverUrl}/hook${i}`, events: ['meeting.scheduled', 'meeting.cancelled'] });
    subscriptions.push(made.webhook.uuid);
  }
  return { accountUuid: created.account.uuid, apiKey: created.apiKey, owner, hosts, teams, subscriptions };
}

/** A host's first team (its meetings are booked on that team's topic). */
export function homeTeamOf(h: number): number {
  return Math.floor(h / 10) % TEAMS;
}

/** Whether host `h` holds a meeting at the slot starting at `start`: a fixed hash, so both databases agree. */
function takes(h: number, start: number, share: number): boolean {
  let x = (Math.imul(h + 1, 0x9e3779b1) ^ Math.imul(Math.floor(start / 1_800_000), 0x85ebca6b)) >>> 0;
  x ^= x >>> 15;
  x = Math.imul(x, 0x2c1b3c6d) >>> 0;
  x ^= x >>> 12;
  return (x >>> 0) / 2 ** 32 < share;
}

/** The working half hours (Mon–Fri 09:00–17:00 host time) from `from` up to `to`. */
export function workingSlots(from: number, to: number): number[] {
  const slots: number[] = [];
  for (let day = DateTime.fromMillis(from, { zone: ZONE }).startOf('day'); day.toMillis() < to; day = day.plus({ days: 1 })) {
    if (day.weekday > 5) continue;
    for (let half = 18; half < 34; half += 1) {
      const start = day.set({ hour: Math.floor(half / 2), minute: (half % 2) * 30 }).toMillis();
      if (start >= from && start < to) slots.push(start);
    }
  }
  return slots;
}

/** The year's span around `now`. */
export function yearSpan(now: number): { from: number; to: number; recent: number; today: number; ahead: number } {
  const today = DateTime.fromMillis(now, { zone: ZONE }).startOf('day');
  return {
    from: today.minus({ months: MONTHS_BEHIND }).toMillis(),
    to: today.plus({ months: MONTHS_AHEAD }).toMillis(),
    recent: today.minus({ days: RECENT_DAYS }).toMillis(),
    today: today.toMillis(),
    ahead: today.plus({ days: 1 }).toMillis(),
  };
}

/** The share of a host's working half hours taken, so that 200 hosts hold `meetings` in the year. */
export function shareFor(meetings: number, now: number): number {
  const { from, to } = yearSpan(now);
  return Math.min(0.9, meetings / HOSTS / workingSlots(from, to).length);
}

/** Whether host `h`'s slot at `start` is free in the fixture (the bench books those). */
export function isFree(h: number, start: number, share: number): boolean {
  return !takes(h, start, share);
}

/** Inserts rows in statements of at most ~30,000 bound values (SQLite's limit is 32,766, PostgreSQL's 65,535). */
async function insertBatched<T extends keyof Database & string>(db: Kysely<Database>, table: T, rows: Insertable<Database[T]>[]): Promise<void> {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]!).length;
  const size = Math.max(1, Math.floor(30_000 / columns));
  for (let i = 0; i < rows.length; i += size)
    await db
      .insertInto(table)
      .values(rows.slice(i, i + size) as never)
      .execute();
}

function meetingRow(meeting: Meeting, cancelled: boolean) {
  return {
    id: meeting.uuid,
    account_id: meeting.accountUuid,
    topic_id: meeting.topicUuid,
    team_id: meeting.teamUuid,
    host_user_id: meeting.hostUuid,
    booking_id: meeting.bookingUuid,
    starts_at: meeting.start,
    ends_at: meeting.end,
    status: cancelled ? 'cancelled' : 'confirmed',
    hold_expires_at: null,
    place: meeting.place,
    location: JSON.stringify(meeting.location),
    participant_name: meeting.participant.name,
    participant_email: meeting.participant.email,
    participant_phone: meeting.participant.phone,
    participant_timezone: meeting.participant.timezone,
    participant_lang: meeting.participant.lang,
    participant_locale: null,
    note: meeting.note,
    price_variant_id: null,
    form: '{}',
    metadata: '{}',
    invoice: null,
    sequence: cancelled ? 1 : 0,
    created_at: meeting.createdAt,
    updated_at: cancelled ? meeting.createdAt + 3_600_000 : meeting.createdAt,
    cancelled_at: cancelled ? meeting.createdAt + 3_600_000 : null,
    cancel_reason: cancelled ? 'The participant asked to cancel' : null,
    booked_by_key_id: null,
    confirmation_sent_at: meeting.createdAt + 2_000,
    no_show: null,
    decline_reason: null,
    collective: 0,
  };
}

export interface SeedOptions {
  /** Meetings of the whole year (200 hosts); the share of slots taken follows from it. */
  meetings: number;
  now: number;
  /** Only these hosts, only from tomorrow on, nothing but meetings: the empty database's probe. */
  probeOnly?: number[];
  progress?: (line: string) => void;
}

export interface SeedCounts {
  meetings: number;
  rows: Record<string, number>;
}

/**
 * The year's rows: meetings (8% cancelled), their events (scheduled; cancelled), the outbox
 * jobs that carried them out (the event's fan-out, two e-mails, five webhook deliveries, a
 * reminder: all done), the deliveries to the 5 endpoints, the reminders sent, payments for a
 * tenth of the bookings, and 300 connected calendars with their busy time. Host by host, so
 * memory stays small.
 */
export async function seedYear(ctx: AppContext, fixture: Fixture, options: SeedOptions): Promise<SeedCounts> {
  const { now } = options;
  const share = shareFor(options.meetings, now);
  const span = yearSpan(now);
  const probe = options.probeOnly;
  const rows: Record<string, number> = {};
  const count = (table: string, n: number) => {
    rows[table] = (rows[table] ?? 0) + n;
  };
  let meetings = 0;
  const hostsToSeed = probe ?? fixture.hosts.map((_, h) => h);
  const slots = workingSlots(probe ? span.recent : span.from, span.to);
  const calendarsOf = (h: number) => (h < CALENDARS - HOSTS ? 2 : 1);
  const probeHosts = new Set(Array.from({ length: TEAM_SIZE }, (_, i) => i));
  for (const h of hostsToSeed) {
    const host = fixture.hosts[h]!;
    const team = fixture.teams[homeTeamOf(h)]!;
    const meetingRows: Insertable<Database['meetings']>[] = [];
    const events: Insertable<Database['events']>[] = [];
    const jobs: Insertable<Database['outbox']>[] = [];
    const deliveries: Insertable<Database['webhook_deliveries']>[] = [];
    const reminders: Insertable<Database['meeting_reminders']>[] = [];
    const payments: Insertable<Database['payments']>[] = [];
    let n = 0;
    for (const start of slots) {
      if (!takes(h, start, share)) continue;
      // The measured hosts' today is left out on both databases: their probe starts tomorrow.
      if (probeHosts.has(h) && start >= span.today && start < span.ahead) continue;
      n += 1;
      // Booked 1–20 days ahead; the probe's meetings (its recent past and ahead) a day before, at the latest yesterday.
      const createdAt = probe || start > now ? Math.min(now - 86_400_000, start - 86_400_000) : start - (1 + (n % 20)) * 86_400_000;
      const meeting = benchMeeting({ accountUuid: fixture.accountUuid, topicUuid: team.topicUuid, teamUuid: team.uuid, host, start, now: createdAt });
      meeting.participant = { name: `Participant ${h}-${n}`, email: `p${h}.${n}@customers.example`, phone: null, timezone: ZONE, lang: 'pl' };
      // Cancelled ones free their slot: none ahead for the measured hosts, whose future must match the probe's.
      const cancelled = !probe && n % 12 === 5 && (start < span.recent || !probeHosts.has(h));
      meetingRows.push(meetingRow(meeting, cancelled));
      if (probe) continue;
      const happened: DomainEvent[] = [
        { uuid: newId(createdAt), accountUuid: fixture.accountUuid, type: 'meeting.scheduled', subjectUuid: meeting.uuid, occurredAt: createdAt, data: { meeting } } as DomainEvent,
      ];
      if (cancelled)
        happened.push({
          uuid: newId(createdAt + 3_600_000),
          accountUuid: fixture.accountUuid,
          type: 'meeting.cancelled',
          subjectUuid: meeting.uuid,
          occurredAt: createdAt + 3_600_000,
          data: { meeting: { ...meeting, status: 'cancelled', cancelledAt: createdAt + 3_600_000, cancelReason: 'The participant asked to cancel', sequence: 1 } },
        } as DomainEvent);
      for (const event of happened) {
        const at = event.occurredAt;
        events.push({ id: event.uuid, account_id: event.accountUuid, type: event.type, subject_id: event.subjectUuid, occurred_at: at, data: JSON.stringify(event.data) });
        const done = (kind: string, payload: unknown, delay: number) =>
          jobs.push({
            id: newId(at),
            kind,
            payload: JSON.stringify(payload),
            status: 'done',
            attempts: 1,
            next_attempt_at: at + delay,
            last_error: null,
            created_at: at,
            done_at: at + delay,
            claim: null,
          });
        done('event', { eventUuid: event.uuid }, 50);
        for (const to of [meeting.participant.email, host.email])
          done('email', { eventUuid: event.uuid, to, template: event.type, lang: 'pl', subject: `Consultation ${t(start)}`, ics: 'x'.repeat(900) }, 400);
        const body = webhookBody(event, undefined);
        for (const subscription of fixture.subscriptions) {
          const deliveryUuid = newId(at);
          const jobUuid = newId(at);
          jobs.push({
            id: jobUuid,
            kind: 'webhook',
            payload: JSON.stringify({ deliveryUuid }),
            status: 'done',
            attempts: 1,
            next_attempt_at: at + 300,
            last_error: null,
            created_at: at,
            done_at: at + 300,
            claim: null,
          });
          deliveries.push({
            id: deliveryUuid,
            subscription_id: subscription,
            account_id: fixture.accountUuid,
            event_id: event.uuid,
            event_type: event.type,
            body,
            status: 'delivered',
            attempts: 1,
            response_status: 200,
            last_error: null,
            first_attempt_at: at + 300,
            last_attempt_at: at + 300,
            next_attempt_at: null,
            job_id: jobUuid,
            locked_until: null,
            created_at: at,
          });
        }
      }
      if (!cancelled && start < now) {
        const due = start - 86_400_000;
        const reminderJob = newId(due);
        jobs.push({
          id: reminderJob,
          kind: 'reminder',
          payload: JSON.stringify({ meetingUuid: meeting.uuid, minutesBefore: 1440 }),
          status: 'done',
          attempts: 1,
          next_attempt_at: due,
          last_error: null,
          created_at: createdAt,
          done_at: due + 500,
          claim: null,
        });
        reminders.push({
          id: newId(due),
          meeting_id: meeting.uuid,
          reminder_key: `${start}:1440:email:participant`,
          channel: 'email',
          recipient: 'participant',
          minutes_before: 1440,
          due_at: due,
          status: 'sent',
          detail: `<${reminderJob}@termin>`,
          recorded_at: due + 500,
          claimed_by: reminderJob,
          sms_number: null,
        });
      }
      if (n % 10 === 3)
        payments.push({
          id: newId(createdAt),
          account_id: fixture.accountUuid,
          booking_id: meeting.bookingUuid,
          gateway: 'stripe',
          status: 'paid',
          amount: 15000,
          currency: 'PLN',
          expires_at: createdAt + 1_800_000,
          created_at: createdAt,
          paid_at: createdAt + 60_000,
          discount_code_id: null,
          gateway_transaction_id: `pi_${newId(createdAt).replace(/-/g, '')}`,
          gateway_redirect_url: `https://checkout.stripe.test/c/pay/${newId(createdAt)}`,
          claim_token: null,
          claim_expires_at: null,
        });
    }
    meetings += meetingRows.length;
    // One transaction for the host's rows: a commit (a WAL sync on SQLite) per table made seeding crawl.
    await ctx.db.transaction().execute(async (trx) => {
      await insertBatched(trx, 'meetings', meetingRows);
      await insertBatched(trx, 'events', events);
      await insertBatched(trx, 'outbox', jobs);
      await insertBatched(trx, 'webhook_deliveries', deliveries);
      await insertBatched(trx, 'meeting_reminders', reminders);
      await insertBatched(trx, 'payments', payments);
    });
    count('meetings', meetingRows.length);
    count('events', events.length);
    count('outbox', jobs.length);
    count('webhook_deliveries', deliveries.length);
    count('meeting_reminders', reminders.length);
    count('payments', payments.length);
    {
      // Connected calendars: two for the first 100 hosts, one for the rest (300). Busy time of
      // the past for everyone; ahead only for hosts the bench does not measure, so that their
      // views offer the same slots on both databases. The empty database has the measured
      // hosts' calendars with their recent past only (its slots start at span.recent).
      const busy: Insertable<Database['external_busy']>[] = [];
      for (let c = 0; c < calendarsOf(h); c += 1) {
        const calendarUuid = newId(span.from);
        await ctx.db
          .insertInto('calendars')
          .values({
            id: calendarUuid,
            account_id: fixture.accountUuid,
            user_id: host.uuid,
            type: 'ical',
            display_url: `https://calendar.example/feeds/${h}-${c}.ics`,
            url: `https://calendar.example/feeds/${h}-${c}.ics`,
            username: null,
            password_sealed: null,
            connection_id: null,
            remote_calendar_id: null,
            check_conflicts: 1,
            write_meetings: 0,
            status: 'ok',
            last_sync_at: now - 60_000,
            last_success_at: now - 60_000,
            last_error: null,
            last_write_error: null,
            next_sync_at: now + 240_000 + h * 1000,
            sync_lease_until: null,
            sync_claim: null,
            sync_state: null,
            created_at: span.from,
          })
          .execute();
        count('calendars', 1);
        const until = probeHosts.has(h) ? now : span.to;
        // Busy time scales with the year's size: about as many spans as the host has meetings, over two calendars.
        for (const start of slots) {
          if (start >= until || !takes(h + 1000 + c, start, share / 2)) continue;
          busy.push({ id: newId(start), host_user_id: host.uuid, source_id: calendarUuid, starts_at: start, ends_at: start + 3_600_000 });
        }
      }
      await ctx.db.transaction().execute((trx) => insertBatched(trx, 'external_busy', busy));
      count('external_busy', busy.length);
    }
    if (options.progress && (h % 20 === 19 || h === hostsToSeed.at(-1)))
      options.progress(`  seeded ${h + 1} of ${hostsToSeed.length} hosts, ${meetings.toLocaleString('en-US')} meetings`);
  }
  return { meetings, rows };
}

function t(start: number): string {
  return DateTime.fromMillis(start, { zone: ZONE }).toFormat('yyyy-MM-dd HH:mm');
}
