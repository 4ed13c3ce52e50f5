import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { CompiledQuery, type Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { startBackgroundJobs } from '../../src/background.js';
import { createContext } from '../../src/context.js';
import type { Database } from '../../src/db/database.js';
import { findMeetingsOfParticipant } from '../../src/db/repositories/meetings.js';
import { call, createClock, createTestAccount, createTestApp, type TestApp } from '../helpers.js';

const HOUR_MS = 3_600_000;
const HOSTS = 20;
const MEETINGS = 10_000;

/**
 * Issue 44: SQLite was never analysed, so its planner guessed every index of `meetings` alike
 * and, on a year's data, read a whole account's meetings where an index for the question
 * existed. Here a participant's meetings (the participant-data requests): with statistics the
 * (account, lower(e-mail)) index answers it; without, SQLite walked the account's (account,
 * start) index and filtered 10,000 meetings. The maintenance beat and the startup refresh them.
 */
describe('SQLite planner statistics', () => {
  const opened: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const one of opened.splice(0).reverse()) await one.close();
  });

  /** An account of 20 hosts and 10,000 meetings over a year, written straight to the table. */
  async function seededApp(): Promise<{ t: TestApp; accountUuid: string }> {
    const t = await createTestApp('sqlite', createClock('2027-06-01T08:00:00.000Z'));
    opened.push(t);
    const acme = await createTestAccount(t.ctx, { maxUsers: HOSTS });
    const topic = await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Konsultacja', durationMinutes: 30, places: ['zoom'] });
    const hosts = [acme.owner.uuid];
    for (let i = 1; i < HOSTS; i++) {
      const member = await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, { firstName: 'Olga', lastName: `Nowak ${i}`, email: `olga${i}@acme.test` });
      hosts.push(member.json().uuid as string);
    }
    const first = t.clock.now() - 270 * 24 * HOUR_MS;
    const rows = Array.from({ length: MEETINGS }, (_, n) => {
      const start = first + n * HOUR_MS;
      return {
        id: randomUUID(),
        account_id: acme.account.uuid,
        topic_id: topic.json().uuid as string,
        team_id: acme.team.uuid,
        host_user_id: hosts[n % HOSTS]!,
        booking_id: randomUUID(),
        starts_at: start,
        ends_at: start + HOUR_MS / 2,
        status: 'confirmed',
        hold_expires_at: null,
        place: 'zoom',
        participant_name: 'Jan Kowalski',
        participant_email: `jan${n}@klient.pl`,
        participant_phone: null,
        participant_timezone: 'Europe/Warsaw',
        participant_lang: 'pl',
        note: null,
        price_variant_id: null,
        form: '{}',
        metadata: '{}',
        invoice: null,
        created_at: start - 24 * HOUR_MS,
        updated_at: start - 24 * HOUR_MS,
      };
    });
    for (let i = 0; i < rows.length; i += 500)
      await t.ctx.db
        .insertInto('meetings')
        .values(rows.slice(i, i + 500))
        .execute();
    return { t, accountUuid: acme.account.uuid };
  }

  /** The indexes SQLite's plan reads `meetings` by, for the statement the repository sends. */
  async function meetingIndexesOf(db: Kysely<Database>, accountUuid: string): Promise<string[]> {
    const sent: CompiledQuery[] = [];
    const spy = db.withPlugin({
      transformQuery: (args) => {
        sent.push(db.getExecutor().compileQuery(args.node, args.queryId));
        return args.node;
      },
      transformResult: async (args) => args.result,
    });
    expect(await findMeetingsOfParticipant(spy, accountUuid, 'JAN77@klient.pl')).toHaveLength(1);
    const plan = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${sent[0]!.sql}`, [...sent[0]!.parameters]));
    return plan.rows.map((row) => /^SEARCH meetings USING INDEX (\w+)/.exec(row.detail)?.[1]).filter((index) => index !== undefined);
  }

  it("the maintenance beat gathers them: a participant's meetings are read by their e-mail's index, not the account's", async () => {
    const { t, accountUuid } = await seededApp();
    expect(await meetingIndexesOf(t.ctx.db, accountUuid)).toEqual(['meetings_account_start_idx']);
    const jobs = startBackgroundJobs(t.ctx, { jobIntervalMs: 3_600_000, wakeOnBooking: false });
    try {
      await jobs.runOnce();
    } finally {
      await jobs.stop();
    }
    expect(await meetingIndexesOf(t.ctx.db, accountUuid)).toEqual(['meetings_participant_email_idx']);
  });

  it('a server starting on a database of a year gathers them before its first request', async () => {
    const { t, accountUuid } = await seededApp();
    expect(await meetingIndexesOf(t.ctx.db, accountUuid)).toEqual(['meetings_account_start_idx']);
    const restarted = await createContext(t.ctx.config, { now: t.clock.now, log: pino({ level: 'silent' }) });
    opened.push(restarted);
    expect(await meetingIndexesOf(restarted.db, accountUuid)).toEqual(['meetings_participant_email_idx']);
  });
});
