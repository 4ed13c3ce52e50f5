import net from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenForChanges, type ChangeFeed } from '../../src/db/change-feed.js';
import type { DbOrTrx } from '../../src/db/database.js';
import { createPostgresReads, type FastReads } from '../../src/db/fast-reads.js';
import { claimJobs } from '../../src/db/repositories/outbox.js';
import { inTransaction } from '../../src/db/transaction.js';
import { newId } from '../../src/ids.js';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { startTcpSwitch, type TcpSwitch } from '../calendars/tcp-switch.js';
import { DIALECTS, createTestAccount, createTestApp, type TestApp } from '../helpers.js';

/**
 * On PostgreSQL the month view's reads remember what they read while the change feed hears
 * nothing (src/db/change-feed.ts, migration 0031). What must hold: a change made anywhere
 * (this process, another instance, psql) is never served stale for longer than its notice
 * takes to arrive, and while the notices cannot be heard, nothing is served remembered.
 */
describe.runIf(DIALECTS.includes('postgres'))('remembered PostgreSQL reads and the change feed', () => {
  let t: TestApp;
  let url: string;
  let acme: CreatedAccount;
  let outside: pg.Client;
  const opened: { feed: ChangeFeed; reads: FastReads }[] = [];

  beforeAll(async () => {
    t = await createTestApp('postgres');
    const config = t.ctx.config.database;
    if (config.dialect !== 'postgres') throw new Error('postgres expected');
    url = config.url;
    acme = await createTestAccount(t.ctx);
    // Another process's connection, as psql or another instance would write through.
    outside = new pg.Client({ connectionString: url });
    await outside.connect();
  });
  afterAll(async () => {
    await outside?.end();
    for (const { feed } of opened) await feed.close();
    await t?.close();
  });

  const open = async (feedUrl = url, heartbeatMs = 5_000) => {
    const feed = listenForChanges(feedUrl, { heartbeatMs, retryMs: 50, connectTimeoutMs: 1_000 });
    const reads = createPostgresReads(t.ctx.db, feed);
    opened.push({ feed, reads });
    await expect.poll(() => feed.live(), { timeout: 5_000 }).toBe(true);
    return { feed, reads };
  };
  /** A feed that must never go live: its one state report, once it came. */
  const openUntrusted = async (feedUrl: string, heartbeatMs?: number) => {
    const states: [boolean, string | undefined][] = [];
    const feed = listenForChanges(feedUrl, { heartbeatMs, retryMs: 50, onState: (live, error) => states.push([live, error?.message]) });
    const reads = createPostgresReads(t.ctx.db, feed);
    opened.push({ feed, reads });
    await expect.poll(() => states.length, { timeout: 5_000 }).toBe(1);
    expect(feed.live()).toBe(false);
    return { feed, reads, said: states[0] };
  };
  /** The same database reached through a local port (a test's switch or proxy in front of it). */
  const urlThrough = (port: number) => {
    const through = new URL(url);
    through.hostname = '127.0.0.1';
    through.port = String(port);
    return through.toString();
  };
  const versionOf = (reads: FastReads) => reads.findCalendarVersion(acme.owner.uuid);
  /** While nothing is remembered, a change made elsewhere shows in the very next read. */
  const expectReadsTheDatabase = async (reads: FastReads) => {
    const before = (await versionOf(reads))!;
    await bumpOutside();
    expect(await versionOf(reads)).toBe(before + 1);
  };
  const bumpOutside = () => outside.query('update users set calendar_version = calendar_version + 1 where id = $1', [acme.owner.uuid]);
  const bumpHere = (db: DbOrTrx) =>
    db
      .updateTable('users')
      .set((eb) => ({ calendar_version: eb('calendar_version', '+', 1) }))
      .where('id', '=', acme.owner.uuid)
      .execute();

  it('a change committed by another process is served once its notice arrives, and its rollback never shows', async () => {
    const { reads } = await open();
    const before = (await versionOf(reads))!;
    await bumpOutside();
    await expect.poll(() => versionOf(reads), { timeout: 5_000 }).toBe(before + 1);
    // A rolled-back change sends no notice and changes nothing.
    await outside.query('begin');
    await outside.query('update users set calendar_version = calendar_version + 100 where id = $1', [acme.owner.uuid]);
    await outside.query('rollback');
    expect(await versionOf(reads)).toBe(before + 1);
    // And the remembered answer is not stuck: a second outside change shows too.
    await bumpOutside();
    await expect.poll(() => versionOf(reads), { timeout: 5_000 }).toBe(before + 2);
  });

  it("this process's own writes show at once, before any notice: alone and in a transaction", async () => {
    const { reads } = await open();
    const before = (await versionOf(reads))!;
    await bumpHere(t.ctx.db);
    expect(await versionOf(reads)).toBe(before + 1);
    await inTransaction(t.ctx.db, (trx) => bumpHere(trx));
    expect(await versionOf(reads)).toBe(before + 2);
    // Read (and remembered) while the transaction is still open: the COMMIT itself must drop it.
    await inTransaction(t.ctx.db, async (trx) => {
      await bumpHere(trx);
      expect(await versionOf(reads)).toBe(before + 2);
    });
    expect(await versionOf(reads)).toBe(before + 3);
  });

  it("the outbox's own writes (a worker claims jobs of each kind every second) leave what was remembered in place; a host's do not", async () => {
    const { feed, reads } = await open();
    await versionOf(reads);
    const quiet = feed.generation();
    await claimJobs(t.ctx.db, 'email', newId(), Date.now(), 60_000, 10);
    await inTransaction(t.ctx.db, (trx) => claimJobs(trx, 'webhook', newId(), Date.now(), 60_000, 10));
    expect(feed.generation()).toBe(quiet);
    await inTransaction(t.ctx.db, (trx) => bumpHere(trx));
    expect(feed.generation()).toBeGreaterThan(quiet);
  });

  it('a topic, its hosts and their hours are all heard of: a host added through psql is offered', async () => {
    const { reads } = await open();
    const topic = (
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/meeting-topics',
        headers: { 'x-service-api-key': acme.apiKey },
        payload: { name: 'Heard', durationMinutes: 30, places: ['zoom'], hosts: [acme.owner.username] },
      })
    ).json().uuid as string;
    const hostsOf = async () => (await reads.findTopic(acme.account.uuid, topic))?.hosts.map((host) => host.username);
    expect(await hostsOf()).toEqual([acme.owner.username]);
    await outside.query("update meeting_topics set name = 'Renamed' where id = $1", [topic]);
    await expect.poll(async () => (await reads.findTopic(acme.account.uuid, topic))?.name, { timeout: 5_000 }).toBe('Renamed');
    await outside.query('delete from meeting_topic_hosts where topic_id = $1', [topic]);
    await expect.poll(hostsOf, { timeout: 5_000 }).toEqual([]);
    const hours = await reads.findAvailabilityJson(acme.owner.uuid);
    await outside.query("update users set availability = '[]' where id = $1", [acme.owner.uuid]);
    await expect.poll(() => reads.findAvailabilityJson(acme.owner.uuid), { timeout: 5_000 }).toBe('[]');
    await outside.query('update users set availability = $1 where id = $2', [hours, acme.owner.uuid]);
  });

  it('turned off (DATABASE_CHANGE_NOTIFICATIONS=false, for a pooler that cannot LISTEN), an instance listens for nothing and reads the database for every view', async () => {
    const off = await createTestApp('postgres', undefined, { DATABASE_CHANGE_NOTIFICATIONS: 'false' });
    try {
      expect(off.ctx.dbChangeNoticesLive).toBeNull();
      const owner = await createTestAccount(off.ctx);
      const database = off.ctx.config.database;
      if (database.dialect !== 'postgres') throw new Error('postgres expected');
      const before = (await off.ctx.reads.findCalendarVersion(owner.owner.uuid))!;
      const psql = new pg.Client({ connectionString: database.url });
      await psql.connect();
      try {
        await psql.query('update users set calendar_version = calendar_version + 1 where id = $1', [owner.owner.uuid]);
      } finally {
        await psql.end();
      }
      expect(await off.ctx.reads.findCalendarVersion(owner.owner.uuid)).toBe(before + 1);
    } finally {
      await off.close();
    }
  });

  describe('with the listening connection behind a switch', () => {
    let gate: TcpSwitch;
    beforeAll(async () => {
      gate = await startTcpSwitch(Number(new URL(url).port || 5432));
    });
    afterAll(async () => {
      gate.resume();
      await gate.close();
    });

    it('a lost connection stops the remembering (a change made meanwhile shows at once) until it is back', async () => {
      gate.up();
      const { feed, reads } = await open(urlThrough(gate.port));
      const before = (await versionOf(reads))!;
      gate.down();
      await expect.poll(() => feed.live(), { timeout: 5_000 }).toBe(false);
      // Its notice goes nowhere; the read goes to the database.
      await expectReadsTheDatabase(reads);
      gate.up();
      await expect.poll(() => feed.live(), { timeout: 10_000 }).toBe(true);
      await bumpOutside();
      await expect.poll(() => versionOf(reads), { timeout: 5_000 }).toBe(before + 2);
    });

    it('a connection that goes silent without closing (a failover with no reset) stops the remembering within two heartbeats, and it resumes once notices come back', async () => {
      gate.up();
      gate.resume();
      const { feed, reads } = await open(urlThrough(gate.port), 1_000);
      await versionOf(reads); // remembered while live
      gate.hang();
      await expect.poll(() => feed.live(), { timeout: 5_000 }).toBe(false);
      await expectReadsTheDatabase(reads);
      gate.resume();
      await expect.poll(() => feed.live(), { timeout: 10_000 }).toBe(true);
    });
  });

  it('behind something that answers LISTEN but never passes a notice on (a pooler in transaction mode), it never goes live, and says so once', async () => {
    // A pass-through to PostgreSQL that drops every NotificationResponse ('A') on the way back.
    const sockets = new Set<net.Socket>();
    const muffler = net.createServer((socket) => {
      const upstream = net.connect(Number(new URL(url).port || 5432), '127.0.0.1');
      sockets.add(socket).add(upstream);
      let pending = Buffer.alloc(0);
      socket.pipe(upstream);
      upstream.on('data', (chunk: Buffer) => {
        pending = Buffer.concat([pending, chunk]);
        while (pending.length >= 5 && pending.length >= 1 + pending.readInt32BE(1)) {
          const message = pending.subarray(0, 1 + pending.readInt32BE(1));
          pending = pending.subarray(message.length);
          if (message[0] !== 0x41) socket.write(message);
        }
      });
      const closeBoth = () => {
        socket.destroy();
        upstream.destroy();
      };
      for (const end of [socket, upstream]) end.on('error', () => undefined).on('close', closeBoth);
    });
    await new Promise<void>((resolve) => muffler.listen(0, '127.0.0.1', resolve));
    try {
      const { feed, reads, said } = await openUntrusted(urlThrough((muffler.address() as net.AddressInfo).port), 500);
      expect(said).toEqual([false, expect.stringMatching(/did not come back within 500 ms/)]);
      await expectReadsTheDatabase(reads);
      await feed.close();
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => muffler.close(resolve));
    }
  });

  it('a database without the change triggers (no instance migrated it yet) is never trusted, and says so once', async () => {
    await outside.query('drop trigger termin_changes on schedules');
    try {
      const { reads, said } = await openUntrusted(url);
      expect(said).toEqual([false, expect.stringMatching(/lacks the change triggers of migration 0031/)]);
      await expectReadsTheDatabase(reads);
    } finally {
      await outside.query('create trigger termin_changes after insert or update or delete or truncate on schedules for each statement execute function termin_notify_change()');
    }
  });
});
