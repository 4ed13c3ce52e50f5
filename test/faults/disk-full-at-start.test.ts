import fs from 'node:fs';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createContext } from '../../src/context.js';
import { STORAGE_RECHECK_MS } from '../../src/scheduling/operator/readiness.js';
import { createMeetingTopic } from '../../src/scheduling/topics/meeting-topics.js';
import { call, createClock, createTestAccount, createTestDatabase, expectProblem } from '../helpers.js';
import { CAN_MOUNT, fillUp, mountTmpfs, unmount } from './small-disk.js';

if (!CAN_MOUNT) {
  console.warn('\n*** test/faults/disk-full-at-start.test.ts: this process cannot mount a tmpfs, so a restart on a full disk is SKIPPED ***\n');
}

/**
 * An instance restarted on a disk that filled up: the new process has written nothing yet, so
 * no write of its own has failed yet, and readiness must not wait for a booking to fail to say
 * that it cannot store changes (a load balancer would send it bookings meanwhile). SQLite on a
 * small tmpfs filled to the last byte, under the real context and app. (The disk fills while
 * the first instance runs, as it does: its last checkpoint then cannot finish, so its WAL and
 * shared-memory files stay and the database opens again. A disk full before a clean start is
 * the case below.)
 */
describe.runIf(CAN_MOUNT)('SQLite restarted on a full disk', () => {
  const clock = createClock('2027-01-04T08:00:00.000Z');
  const lines: { level: number; msg: string; [field: string]: unknown }[] = [];
  const log = pino(
    { level: 'info' },
    new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line));
        done();
      },
    }),
  );
  const dir = CAN_MOUNT ? mountTmpfs('16m') : null;
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('is not ready from its first /readyz, still reads, and is ready again once a write finds room', async () => {
    cleanups.push(() => unmount(dir!));
    const database = await createTestDatabase('sqlite', { DATA_DIR: dir! });
    cleanups.push(() => database.drop());

    // Its first life: the database made, a host with a topic; then a clean stop.
    const first = await createContext(database.config, { now: clock.now, log });
    const account = await createTestAccount(first, { timezone: 'UTC', places: ['zoom'] });
    const owner = { keyUuid: '', userUuid: account.owner.uuid, accountUuid: account.account.uuid, username: account.owner.username };
    const topic = await createMeetingTopic(first, owner, { name: 'Full', durationMinutes: 15, slotIntervalMinutes: 15, places: ['zoom'] });
    const filler = fillUp(dir!);
    await first.close();

    const ctx = await createContext(database.config, { now: clock.now, log });
    const app = await buildApp(ctx);
    cleanups.push(async () => {
      await app.close();
      await ctx.close();
    });

    const readyz = await app.inject({ method: 'GET', url: '/readyz' });
    expect(readyz.statusCode, readyz.body).toBe(503);
    expect(readyz.json()).toEqual({ status: expect.stringMatching(/^database cannot store changes \(disk full\)/) });
    expect(lines.find((line) => line.msg.includes('cannot store changes') && line.level >= 50)).toBeDefined();

    const schedule = await call(app, null, 'POST', '/api/v1/calculate-schedule', { username: owner.username, meetingTopic: topic.uuid, timezone: 'UTC', offset: 0 });
    expect(schedule.statusCode, schedule.body).toBe(200);
    const slot = (schedule.json() as { days: { slots: { start: string; username: string }[] }[] }).days.flatMap((day) => day.slots)[0]!;
    const book = () =>
      call(app, account.apiKey, 'POST', '/api/v1/schedule', {
        dates: [slot],
        email: 'p@example.com',
        lang: 'en',
        name: 'P',
        place: 'zoom',
        meetingTopic: topic.uuid,
        timezone: 'UTC',
      });
    expectProblem(await book(), 503, 'STORAGE_FULL');

    // Room again: within STORAGE_RECHECK_MS readiness writes once itself, finds room and says so.
    fs.rmSync(filler);
    clock.advance(STORAGE_RECHECK_MS);
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    expect((await book()).statusCode).toBe(201);
  });

  it('does not start on a disk with no room to open the database, and says why', async () => {
    const small = mountTmpfs('16m')!;
    cleanups.push(() => unmount(small));
    const database = await createTestDatabase('sqlite', { DATA_DIR: small });
    cleanups.push(() => database.drop());
    // A clean stop with room: SQLite removes its WAL and shared-memory files, which the next
    // open must make again.
    await (await createContext(database.config, { now: clock.now, log })).close();
    fillUp(small);
    await expect(createContext(database.config, { now: clock.now, log })).rejects.toThrow(/cannot be opened: .* its disk has 0 bytes free\. Free some space on it/);
  });
});
