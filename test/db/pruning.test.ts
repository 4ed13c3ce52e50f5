import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackgroundJobs } from '../../src/background.js';
import { runCli } from '../../src/cli/main.js';
import type { RetentionSettings } from '../../src/config.js';
import { claimMaintenanceLease } from '../../src/db/repositories/maintenance-leases.js';
import { lockSmsNumber } from '../../src/db/repositories/meeting-reminders.js';
import { inTransaction } from '../../src/db/transaction.js';
import { type PruneRuleName, pruneRules, pruneTables } from '../../src/scheduling/maintenance/prune.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, type TestApp } from '../helpers.js';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';

const DAY_MS = 86_400_000;

/**
 * Issue 44, item 2: every table that grows with traffic has a retention rule, applied in
 * batches by the maintenance. For each rule: rows just past its age go, rows just inside it
 * (and rows it must never touch: pending jobs and deliveries, live sessions) stay, and with a
 * batch of 2 five old rows go over three batches, each its own statement and transaction.
 */
for (const dialect of DIALECTS) {
  describe(`pruning by age, in batches [${dialect}]`, () => {
    let t: TestApp;
    let acme: CreatedAccount;
    let settings: RetentionSettings;
    let asOf: number;
    let subscriptionUuid: string;
    let connectionUuid: string;

    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-06-01T08:00:00.000Z'), { RETENTION_BATCH: '2', RETENTION_WEBHOOK_DELIVERY_DAYS: '45' });
      settings = t.ctx.config.retention;
      asOf = t.clock.now();
      acme = await createTestAccount(t.ctx);
      subscriptionUuid = randomUUID();
      await t.ctx.db
        .insertInto('webhook_subscriptions')
        .values({
          id: subscriptionUuid,
          account_id: acme.account.uuid,
          url: 'https://hooks.example.com/termin',
          events: '["meeting.scheduled"]',
          description: null,
          secret_sealed: 'sealed',
          previous_secret_sealed: null,
          previous_secret_expires_at: null,
          enabled: 1,
          failing_since: null,
          disabled_at: null,
          created_at: asOf,
          updated_at: asOf,
        })
        .execute();
      connectionUuid = randomUUID();
      await t.ctx.db
        .insertInto('connections')
        .values({
          id: connectionUuid,
          account_id: acme.account.uuid,
          user_id: acme.owner.uuid,
          provider: 'zoom',
          status: 'pending',
          account_email: null,
          last_error: null,
          access_token_sealed: null,
          refresh_token_sealed: null,
          access_expires_at: null,
          refresh_claim: null,
          refresh_lease_until: null,
          tokens_refreshed_at: null,
          created_at: asOf,
          connected_at: null,
          updated_at: asOf,
        })
        .execute();
    });
    afterAll(async () => {
      await t.close();
    });

    /** The moment before which the rule deletes: its age counted back from the run. */
    const cutOf = (rule: PruneRuleName) => asOf - pruneRules(settings).find((candidate) => candidate.name === rule)!.ageMs;
    const prunedBy = async (rule: PruneRuleName) => (await pruneTables(t.ctx, settings, { asOf })).pruned.find((entry) => entry.rule === rule);

    interface Case {
      rule: PruneRuleName;
      /** Inserts five rows past the age and some that must stay; returns the keys of each. */
      seed(cut: number): Promise<{ old: string[]; kept: string[] }>;
      /** The keys of the given ones still stored. */
      stored(keys: string[]): Promise<string[]>;
    }

    const ids = (count: number) => Array.from({ length: count }, () => randomUUID());
    const cases: Case[] = [
      {
        rule: 'outbox',
        async seed(cut) {
          const [d1, d2, d3, f1, f2, youngDone, oldPending] = ids(7);
          const job = (id: string, status: string, createdAt: number, doneAt: number | null) => ({
            id,
            kind: 'email',
            payload: '{}',
            status,
            next_attempt_at: status === 'pending' ? asOf + DAY_MS : 0,
            last_error: null,
            created_at: createdAt,
            done_at: doneAt,
            claim: null,
          });
          await t.ctx.db
            .insertInto('outbox')
            .values([
              job(d1!, 'done', cut - 5 * DAY_MS, cut - 1),
              job(d2!, 'done', cut - 5 * DAY_MS, cut - DAY_MS),
              job(d3!, 'done', cut - 5 * DAY_MS, cut - 2 * DAY_MS),
              job(f1!, 'failed', cut - 1, null),
              job(f2!, 'failed', cut - DAY_MS, null),
              job(youngDone!, 'done', cut - 5 * DAY_MS, cut + 1),
              job(oldPending!, 'pending', cut - 5 * DAY_MS, null),
            ])
            .execute();
          return { old: [d1!, d2!, d3!, f1!, f2!], kept: [youngDone!, oldPending!] };
        },
        stored: async (keys) => (await t.ctx.db.selectFrom('outbox').select('id').where('id', 'in', keys).execute()).map((row) => row.id),
      },
      {
        rule: 'events',
        async seed(cut) {
          const all = ids(7);
          await t.ctx.db
            .insertInto('events')
            .values(
              all.map((id, index) => ({
                id,
                account_id: acme.account.uuid,
                type: 'meeting.scheduled',
                subject_id: randomUUID(),
                occurred_at: index < 5 ? cut - 1 - index * DAY_MS : cut + index,
                data: '{}',
              })),
            )
            .execute();
          return { old: all.slice(0, 5), kept: all.slice(5) };
        },
        stored: async (keys) => (await t.ctx.db.selectFrom('events').select('id').where('id', 'in', keys).execute()).map((row) => row.id),
      },
      {
        rule: 'webhook-deliveries',
        async seed(cut) {
          const all = ids(8);
          const status = (index: number) => (index === 7 ? 'pending' : index % 2 === 0 ? 'delivered' : 'failed');
          await t.ctx.db
            .insertInto('webhook_deliveries')
            .values(
              all.map((id, index) => ({
                id,
                subscription_id: subscriptionUuid,
                account_id: acme.account.uuid,
                event_id: randomUUID(),
                event_type: 'meeting.scheduled',
                body: '{}',
                status: status(index),
                attempts: 1,
                response_status: 200,
                last_error: null,
                first_attempt_at: cut,
                last_attempt_at: cut,
                next_attempt_at: null,
                job_id: null,
                locked_until: null,
                // The last is pending however old: it is still being retried.
                created_at: index < 5 || index === 7 ? cut - 1 - index : cut + index,
              })),
            )
            .execute();
          return { old: all.slice(0, 5), kept: all.slice(5) };
        },
        stored: async (keys) => (await t.ctx.db.selectFrom('webhook_deliveries').select('id').where('id', 'in', keys).execute()).map((row) => row.id),
      },
      {
        rule: 'app-sessions',
        async seed(cut) {
          const all = ids(7);
          const session = (id: string, expiresAt: number, revokedAt: number | null) => ({
            id,
            token_hash: randomUUID(),
            user_id: acme.owner.uuid,
            created_at: cut - 40 * DAY_MS,
            last_seen_at: cut - 40 * DAY_MS,
            expires_at: expiresAt,
            revoked_at: revokedAt,
          });
          await t.ctx.db
            .insertInto('app_sessions')
            .values([
              session(all[0]!, cut - 1, null),
              session(all[1]!, cut - DAY_MS, null),
              session(all[2]!, cut - 2 * DAY_MS, cut - 3 * DAY_MS),
              session(all[3]!, asOf + 30 * DAY_MS, cut - 1),
              session(all[4]!, asOf + 30 * DAY_MS, cut - DAY_MS),
              session(all[5]!, cut + 1, null),
              session(all[6]!, asOf + 30 * DAY_MS, null),
            ])
            .execute();
          return { old: all.slice(0, 5), kept: all.slice(5) };
        },
        stored: async (keys) => (await t.ctx.db.selectFrom('app_sessions').select('id').where('id', 'in', keys).execute()).map((row) => row.id),
      },
      {
        rule: 'sign-in-links',
        async seed(cut) {
          const all = ids(7);
          await t.ctx.db
            .insertInto('app_sign_in_links')
            .values(
              all.map((id, index) => ({
                token_hash: id,
                user_id: acme.owner.uuid,
                created_at: cut - DAY_MS,
                expires_at: index < 5 ? cut - 1 - index : cut + index,
                used_at: null,
              })),
            )
            .execute();
          return { old: all.slice(0, 5), kept: all.slice(5) };
        },
        stored: async (keys) => (await t.ctx.db.selectFrom('app_sign_in_links').select('token_hash').where('token_hash', 'in', keys).execute()).map((row) => row.token_hash),
      },
      {
        rule: 'oauth-states',
        async seed(cut) {
          const all = ids(7);
          await t.ctx.db
            .insertInto('oauth_states')
            .values(
              all.map((id, index) => ({
                state_hash: id,
                connection_id: connectionUuid,
                code_verifier_sealed: 'sealed',
                expires_at: index < 5 ? cut - 1 - index : cut + index,
                used_at: null,
                created_at: cut - DAY_MS,
                app_session_id: null,
              })),
            )
            .execute();
          return { old: all.slice(0, 5), kept: all.slice(5) };
        },
        stored: async (keys) => (await t.ctx.db.selectFrom('oauth_states').select('state_hash').where('state_hash', 'in', keys).execute()).map((row) => row.state_hash),
      },
      {
        rule: 'past-busy',
        async seed(cut) {
          const all = ids(7);
          await t.ctx.db
            .insertInto('external_busy')
            .values(
              all.map((id, index) => {
                const end = index < 5 ? cut - 1 - index * DAY_MS : cut + index * DAY_MS;
                return { id, host_user_id: acme.owner.uuid, source_id: 'calendar-1', starts_at: end - 3_600_000, ends_at: end };
              }),
            )
            .execute();
          return { old: all.slice(0, 5), kept: all.slice(5) };
        },
        stored: async (keys) => (await t.ctx.db.selectFrom('external_busy').select('id').where('id', 'in', keys).execute()).map((row) => row.id),
      },
      {
        rule: 'idempotency-keys',
        async seed(cut) {
          const all = ids(7);
          await t.ctx.db
            .insertInto('idempotency_keys')
            .values(
              all.map((key, index) => ({
                account_id: acme.account.uuid,
                key,
                request_hash: 'hash',
                response_status: 201,
                response_body: '{}',
                created_at: index < 5 ? cut - 1 - index * 3_600_000 : cut + index,
              })),
            )
            .execute();
          return { old: all.slice(0, 5), kept: all.slice(5) };
        },
        stored: async (keys) =>
          (await t.ctx.db.selectFrom('idempotency_keys').select('key').where('account_id', '=', acme.account.uuid).where('key', 'in', keys).execute()).map((row) => row.key),
      },
      {
        rule: 'audit-events',
        async seed(cut) {
          const all = ids(7);
          await t.ctx.db
            .insertInto('audit_events')
            .values(
              all.map((id, index) => ({
                id,
                account_id: acme.account.uuid,
                at: index < 5 ? cut - 1 - index * DAY_MS : cut + index,
                action: 'key.created',
                actor_type: 'system',
                actor_user_id: null,
                actor_via: 'maintenance',
                target_type: 'account',
                target_id: acme.account.uuid,
                details: '{}',
              })),
            )
            .execute();
          return { old: all.slice(0, 5), kept: all.slice(5) };
        },
        stored: async (keys) => (await t.ctx.db.selectFrom('audit_events').select('id').where('id', 'in', keys).execute()).map((row) => row.id),
      },
      {
        rule: 'sms-number-locks',
        async seed(cut) {
          const all = ids(7);
          await t.ctx.db
            .insertInto('sms_number_locks')
            .values(all.map((id, index) => ({ sms_number: id, lock_version: 3, locked_at: index < 5 ? cut - 1 - index * DAY_MS : cut + index })))
            .execute();
          return { old: all.slice(0, 5), kept: all.slice(5) };
        },
        stored: async (keys) => (await t.ctx.db.selectFrom('sms_number_locks').select('sms_number').where('sms_number', 'in', keys).execute()).map((row) => row.sms_number),
      },
    ];

    it('has a rule for every table the cases cover, and the documented defaults', () => {
      expect(pruneRules(settings).map((rule) => rule.name)).toEqual(cases.map((entry) => entry.rule));
      expect({ ...settings, batch: 500, webhookDeliveryDays: 30 }).toEqual({
        outboxDays: 30,
        eventDays: 400,
        webhookDeliveryDays: 30,
        signInDays: 7,
        pastBusyDays: 7,
        idempotencyHours: 24,
        auditDays: 400,
        smsNumberLockDays: 2,
        batch: 500,
      });
    });

    for (const entry of cases) {
      it(`${entry.rule}: deletes the five rows past the age in three batches of at most 2, keeps the rest`, async () => {
        const { old, kept } = await entry.seed(cutOf(entry.rule));
        expect(await entry.stored([...old, ...kept])).toHaveLength(old.length + kept.length);
        expect(await prunedBy(entry.rule)).toEqual({ rule: entry.rule, deleted: 5, batches: 3 });
        expect(await entry.stored(old)).toEqual([]);
        expect((await entry.stored(kept)).sort()).toEqual([...kept].sort());
        // A second run finds nothing more to do.
        expect(await prunedBy(entry.rule)).toBeUndefined();
      });
    }

    it('the delivery log says how long deliveries are kept (RETENTION_WEBHOOK_DELIVERY_DAYS)', async () => {
      const response = await call(t.app, acme.apiKey, 'GET', `/api/v1/webhooks/${subscriptionUuid}/deliveries`);
      expect(response.statusCode).toBe(200);
      expect(response.json().retentionDays).toBe(45);
    });

    it('the operator CLI applies them as of a moment (retention run --as-of)', async () => {
      const events = cases.find((entry) => entry.rule === 'events')!;
      const { old, kept } = await events.seed(cutOf('events'));
      const { config } = t.ctx;
      const env = {
        ...(config.database.dialect === 'postgres' ? { DATABASE_URL: config.database.url } : { DATABASE_URL: `sqlite:${config.database.filename}` }),
        DATA_DIR: config.dataDir,
        LOG_LEVEL: 'silent',
        // The app's own settings: the CLI reads its environment as the server does.
        RETENTION_BATCH: '2',
        RETENTION_WEBHOOK_DELIVERY_DAYS: '45',
      };
      const out: string[] = [];
      const code = await runCli(
        ['retention', 'run', '--as-of', new Date(asOf).toISOString(), '--json'],
        { out: { write: (text: string) => out.push(text) }, err: { write: () => undefined } },
        env,
      );
      expect(code).toBe(0);
      expect(JSON.parse(out.join('')).pruned).toEqual([{ rule: 'events', deleted: 5, batches: 3 }]);
      expect(await events.stored(old)).toEqual([]);
      expect(await events.stored(kept)).toHaveLength(kept.length);
    });

    it('runs on one instance at a time: while another holds the lease, a run does nothing', async () => {
      const events = cases.find((entry) => entry.rule === 'events')!;
      const { old } = await events.seed(cutOf('events'));
      expect(await claimMaintenanceLease(t.ctx.db, 'pruning', 'another-instance', t.clock.now(), t.clock.now() + 60_000)).toBe(true);
      expect(await pruneTables(t.ctx, settings, { asOf, lease: true })).toEqual({ ran: false, pruned: [] });
      expect(await events.stored(old)).toHaveLength(5);
      // Its lease lapses (the other instance died): the next run takes over and prunes.
      t.clock.advance(60_000);
      const jobs = startBackgroundJobs(t.ctx, { jobIntervalMs: 3_600_000, wakeOnBooking: false });
      try {
        await jobs.runOnce();
      } finally {
        await jobs.stop();
      }
      expect(await events.stored(old)).toEqual([]);
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`an SMS destination's lock row [${dialect}]`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-06-01T08:00:00.000Z'));
    });
    afterAll(async () => {
      await t.close();
    });

    it('is dated each time it is taken, so a number texted again keeps its row past the age of its first SMS', async () => {
      const number = randomUUID();
      const lockedAt = async () => (await t.ctx.db.selectFrom('sms_number_locks').select('locked_at').where('sms_number', '=', number).executeTakeFirst())?.locked_at;
      await inTransaction(t.ctx.db, (trx) => lockSmsNumber(trx, number, t.clock.now()));
      expect(Number(await lockedAt())).toBe(t.clock.now());
      t.clock.advance(3 * DAY_MS);
      await inTransaction(t.ctx.db, (trx) => lockSmsNumber(trx, number, t.clock.now()));
      const settings = t.ctx.config.retention;
      expect((await pruneTables(t.ctx, settings)).pruned.find((entry) => entry.rule === 'sms-number-locks')).toBeUndefined();
      expect(Number(await lockedAt())).toBe(t.clock.now());
      // Idle past its age (2 days): gone, and the next SMS writes it again.
      t.clock.advance(settings.smsNumberLockDays * DAY_MS + 1);
      expect((await pruneTables(t.ctx, settings)).pruned.find((entry) => entry.rule === 'sms-number-locks')?.deleted).toBeGreaterThanOrEqual(1);
      expect(await lockedAt()).toBeUndefined();
      await inTransaction(t.ctx.db, (trx) => lockSmsNumber(trx, number, t.clock.now()));
      expect(Number(await lockedAt())).toBe(t.clock.now());
    });
  });
}
