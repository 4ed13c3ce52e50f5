import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createContext, type AppContext } from '../../src/context.js';
import { createMeetingTopic } from '../../src/scheduling/topics/meeting-topics.js';
import { STORAGE_RECHECK_MS } from '../../src/scheduling/operator/readiness.js';
import { call, createClock, createTestAccount, createTestDatabase, expectProblem, type TestDatabase } from '../helpers.js';

/**
 * SQLITE_FULL without a small disk to fill (test/faults/disk-full.test.ts needs to mount one):
 * the write connection may not grow the database by a page (`max_page_count`), so a booking's
 * INSERT is refused with the same error a full disk gives, through the same group commit,
 * error handler, readiness and log. It also moves the clock, which a server process cannot.
 */
describe('SQLite refusing to grow (SQLITE_FULL, simulated with max_page_count)', () => {
  const clock = createClock('2027-01-04T08:00:00.000Z');
  const lines: { msg: string; err?: { stack?: string }; [field: string]: unknown }[] = [];
  let database: TestDatabase;
  let ctx: AppContext;
  let app: FastifyInstance;
  let apiKey: string;
  let username: string;
  let topicUuid: string;

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line));
        done();
      },
    });
    database = await createTestDatabase('sqlite');
    ctx = await createContext(database.config, { now: clock.now, log: pino({ level: 'info' }, sink) });
    app = await buildApp(ctx);
    const account = await createTestAccount(ctx, { timezone: 'UTC', places: ['zoom'] });
    apiKey = account.apiKey;
    const owner = { keyUuid: '', userUuid: account.owner.uuid, accountUuid: account.account.uuid, username: account.owner.username };
    username = owner.username;
    topicUuid = (await createMeetingTopic(ctx, owner, { name: 'Full', durationMinutes: 15, slotIntervalMinutes: 15, places: ['zoom'] })).uuid;
  });

  afterAll(async () => {
    await app?.close();
    await ctx?.close();
    await database?.drop();
  });

  const pages = async () => (await sql<{ page_count: number }>`pragma page_count`.execute(ctx.db)).rows[0]!.page_count;
  const limitPages = (count: number) => sql.raw(`pragma max_page_count = ${count}`).execute(ctx.db);

  /** Free slots of February 2027, as /calculate-schedule offers them. */
  const freeSlots = async () => {
    const response = await call(app, null, 'POST', '/api/v1/calculate-schedule', { username, meetingTopic: topicUuid, timezone: 'UTC', offset: 0, month: 2, year: 2027 });
    expect(response.statusCode).toBe(200);
    return (response.json() as { days: { slots: { start: string; username: string }[] }[] }).days.flatMap((day) => day.slots);
  };

  it('answers 503 STORAGE_FULL, keeps reading, is not ready until a write finds room, and logs the error once', async () => {
    const slots = await freeSlots();
    expect(slots.length).toBeGreaterThan(100);
    let next = 0;
    const acknowledged: string[] = [];
    const bookNext = async () => {
      const slot = slots[next]!;
      const response = await call(app, apiKey, 'POST', '/api/v1/schedule', {
        dates: [slot],
        email: `p${next}@example.com`,
        lang: 'en',
        name: `P ${next}`,
        place: 'zoom',
        meetingTopic: topicUuid,
        timezone: 'UTC',
      });
      next += 1;
      if (response.statusCode === 201) acknowledged.push(...(response.json() as { meetings: { uuid: string }[] }).meetings.map((m) => m.uuid));
      return response;
    };
    expect((await bookNext()).statusCode).toBe(201);

    // From here the database may not grow: pages it has (and frees) are all a write can use.
    await limitPages(await pages());
    const fromLine = lines.length;
    let refused = await bookNext();
    while (refused.statusCode === 201 && next < 60) refused = await bookNext();
    expectProblem(refused, 503, 'STORAGE_FULL');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    const burst = await Promise.all(Array.from({ length: 20 }, () => bookNext()));
    for (const response of burst) expectProblem(response, 503, 'STORAGE_FULL');

    expect((await call(app, apiKey, 'GET', '/api/v1/teams')).statusCode).toBe(200);
    expect((await freeSlots()).length).toBeGreaterThan(0);
    const readyz = await app.inject({ method: 'GET', url: '/readyz' });
    expect(readyz.statusCode).toBe(503);
    expect(readyz.json()).toEqual({ status: expect.stringMatching(/^database cannot store changes \(disk full\) for \d+ s: \d+ writes refused$/) });

    // Logged: the first refusal with its stack, the next twenty not at all (each has its request line).
    const logged = lines.slice(fromLine);
    expect(logged.filter((line) => line.err !== undefined).map((line) => line.msg)).toEqual(['the database cannot store changes (disk full): answered 503']);
    expect(logged.filter((line) => line.msg === 'request failed' && line.url === '/api/v1/schedule')).toHaveLength(21);

    // Room again. No write comes (a load balancer sends none to an unready instance); after a
    // while readiness writes once itself, finds room and says so.
    await limitPages(1_073_741_823);
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);
    clock.advance(STORAGE_RECHECK_MS);
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    expect(lines.find((line) => line.msg.startsWith('the database stores changes again'))).toMatchObject({ failedWrites: 21, outageMs: STORAGE_RECHECK_MS });
    expect((await bookNext()).statusCode).toBe(201);
    const stored = await ctx.db.selectFrom('meetings').select('id').execute();
    expect(stored.map((row) => row.id).sort()).toEqual([...acknowledged].sort());
  });
});
