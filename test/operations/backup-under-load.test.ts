import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { createContext } from '../../src/context.js';
import { book, createBookingFixture, freeSlots, type BookingFixture } from '../faults/booking.js';
import { startServer, stopServer, type ServerProcess } from '../process.js';

const exec = promisify(execFile);

/**
 * A backup taken while a real server process takes bookings must hold every booking the
 * server acknowledged before the backup began (copying the SQLite file lost what sat in the
 * WAL), and a restore must bring exactly that state back.
 */
describe('cli backup under booking load, then cli restore [sqlite]', () => {
  let fixture: BookingFixture | undefined;
  let server: ServerProcess | undefined;
  afterAll(async () => {
    if (server) await stopServer(server);
    await fixture?.close();
  });

  it('restores every booking acknowledged before the backup started', async () => {
    fixture = await createBookingFixture('sqlite');
    const env = { ...fixture.serverEnv, LOG_LEVEL: 'silent' };
    server = await startServer({ ...fixture.serverEnv, RATE_LIMIT_PER_MINUTE: '0' });
    const slots = await freeSlots(server.url, fixture, 600);

    // Four clients book distinct slots until told to stop; each acknowledgement is timed on arrival.
    const acks: { uuid: string; at: number }[] = [];
    const failures: (number | string)[] = [];
    let next = 0;
    let stop = false;
    let onAck: (() => void) | undefined;
    const target = server;
    const worker = async () => {
      while (!stop && next < slots.length) {
        const i = next++;
        const outcome = await book(target.url, fixture!, slots[i]!, i);
        if (outcome.status === 201) {
          const at = Date.now();
          for (const uuid of outcome.meetingUuids) acks.push({ uuid, at });
          onAck?.();
        } else failures.push(outcome.status);
      }
    };
    const workers = Promise.all([worker(), worker(), worker(), worker()]);
    // Resolves at `count` acknowledgements; fails at once, saying why, if the clients stop short.
    const acksReach = (count: number) =>
      Promise.race([
        new Promise<void>((resolve) => {
          onAck = () => acks.length >= count && resolve();
          onAck();
        }),
        workers.then(() => {
          if (acks.length < count) throw new Error(`only ${acks.length} of ${count} bookings acknowledged; failures: ${failures.slice(0, 5).join(', ')}`);
        }),
      ]);

    await acksReach(40);
    const backupFile = path.join(fixture.database.config.dataDir, 'under-load.db');
    const backupStartedAt = Date.now();
    const { stdout } = await exec(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'backup', '--to', backupFile, '--json'], { env: { ...process.env, ...env } });
    const backupDoneAt = Date.now();
    const acksAtBackupEnd = acks.length;
    await acksReach(acksAtBackupEnd + 10);
    stop = true;
    await workers;
    expect(failures).toEqual([]);
    const summary = JSON.parse(stdout) as { meetings: number; file: string };
    expect(summary.file).toBe(backupFile);

    const before = acks.filter((ack) => ack.at < backupStartedAt).map((ack) => ack.uuid);
    const after = acks.filter((ack) => ack.at > backupDoneAt).map((ack) => ack.uuid);
    console.log(
      `[backup under load] ${acks.length} bookings acknowledged: ${before.length} before the backup, ` +
        `${acks.length - before.length - after.length} during its ${backupDoneAt - backupStartedAt} ms, ${after.length} after; the backup holds ${summary.meetings}`,
    );
    expect(summary.meetings).toBeGreaterThanOrEqual(before.length);

    // While the server has the database open, a restore is refused.
    const io = () => {
      const out: string[] = [];
      const err: string[] = [];
      return { out, err, io: { out: { write: (t: string) => out.push(t) }, err: { write: (t: string) => err.push(t) } } };
    };
    const refused = io();
    expect(await runCli(['restore', '--from', backupFile], refused.io, env)).toBe(1);
    expect(refused.err.join('')).toContain('is in use');

    await stopServer(server);
    server = undefined;
    await fixture.ctx.close();
    const restored = io();
    expect(await runCli(['restore', '--from', backupFile], restored.io, env)).toBe(0);

    const ctx = await createContext(fixture.database.config, { log: pino({ level: 'silent' }) });
    try {
      const rows = await ctx.db.selectFrom('meetings').select('id').execute();
      const stored = new Set(rows.map((row) => row.id));
      expect(before.filter((uuid) => !stored.has(uuid))).toEqual([]);
      // And it is the backup's state: bookings made after the backup finished are not in it.
      expect(after.length).toBeGreaterThan(0);
      expect(after.filter((uuid) => stored.has(uuid))).toEqual([]);
      expect(stored.size).toBe(summary.meetings);
    } finally {
      await ctx.close();
    }
  }, 360_000);
});
