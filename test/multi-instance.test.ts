import { spawn, type ChildProcess } from 'node:child_process';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext, type AppContext } from '../src/context.js';
import { createMeetingTopic } from '../src/scheduling/meeting-topics.js';
import type { CreatedAccount } from '../src/scheduling/create-account.js';
import { DIALECTS, createTestAccount, createTestDatabase, freePort, type TestDatabase } from './helpers.js';


async function startServer(databaseUrl: string): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), LOG_LEVEL: 'warn', TERMIN_DEMO: 'false' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${url}/readyz`)).ok) return { child, url };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill();
  throw new Error(`server on ${url} did not become ready`);
}

describe.runIf(DIALECTS.includes('postgres'))('two server processes sharing one PostgreSQL database', () => {
  let database: TestDatabase;
  let ctx: AppContext;
  let acme: CreatedAccount;
  let topicUuid: string;
  const servers: { child: ChildProcess; url: string }[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    ctx = await createContext(database.config, { log: pino({ level: 'silent' }) });
    acme = await createTestAccount(ctx, { timezone: 'UTC', places: ['zoom'] });
    const owner = { keyUuid: '', userUuid: acme.owner.uuid, accountUuid: acme.account.uuid, username: acme.owner.username };
    topicUuid = (await createMeetingTopic(ctx, owner, { name: 'Race', durationMinutes: 60, slotIntervalMinutes: 15, places: ['zoom'] })).uuid;
    if (database.config.database.dialect !== 'postgres') throw new Error('expected PostgreSQL');
    servers.push(...(await Promise.all([startServer(database.config.database.url), startServer(database.config.database.url)])));
  }, 90_000);

  afterAll(async () => {
    for (const server of servers) server.child.kill('SIGTERM');
    await Promise.all(servers.map((server) => new Promise((resolve) => (server.child.exitCode !== null ? resolve(null) : server.child.once('exit', resolve)))));
    await ctx?.close();
    await database?.drop();
  });

  it('books one meeting when 60 requests for overlapping slots hit both instances at once', async () => {
    const schedule = await fetch(`${servers[0]!.url}/api/v1/calculate-schedule`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: acme.owner.username, meetingTopic: topicUuid, timezone: 'UTC', offset: 7 }),
    });
    const days = (await schedule.json()) as { days: { slots: { start: string; username: string }[] }[] };
    const slots = days.days.find((day) => day.slots.length >= 4)!.slots.slice(0, 4); // four starts 15 minutes apart, all overlapping
    const requests = Array.from({ length: 60 }, (_, i) =>
      fetch(`${servers[i % 2]!.url}/api/v1/schedule`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-api-key': acme.apiKey },
        body: JSON.stringify({ dates: [slots[i % 4]], email: `p${i}@example.com`, lang: 'en', name: `P ${i}`, place: 'zoom', meetingTopic: topicUuid, timezone: 'UTC' }),
      }).then((response) => response.status),
    );
    const statuses = await Promise.all(requests);
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(59);
    const stored = await ctx.db.selectFrom('meetings').select('id').where('topic_id', '=', topicUuid).execute();
    expect(stored).toHaveLength(1);
  }, 60_000);
});
