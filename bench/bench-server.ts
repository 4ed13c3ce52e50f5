/**
 * A benchmark's server process: a fresh database, seeded as `BENCH_SEED` says, serving on a
 * free port. It prints one JSON line (`{ url, … }`) once ready and runs until killed, so
 * the load generator in the parent process does not share its CPU.
 */
import { DateTime } from 'luxon';
import { insertMeetings } from '../src/db/repositories/meetings.js';
import type { Meeting } from '../src/domain/meeting.js';
import { startBackgroundJobs } from '../src/background.js';
import { createAccount } from '../src/scheduling/account/create-account.js';
import { createMeetingTopic } from '../src/scheduling/topics/meeting-topics.js';
import { addTeamMember } from '../src/scheduling/account/teams.js';
import { benchMeeting, countStatements, startBenchServer, threadCpuMicros, type BenchDialect } from './support.js';

const dialect = (process.env.BENCH_DIALECT ?? 'sqlite') as BenchDialect;
const seed = process.env.BENCH_SEED ?? 'calendar'; // 'calendar' | 'none'
// A reference route: the month view's own response body, sent as a constant string. Its
// throughput is the ceiling for any month view of that size on this machine.
let staticMonthBody = '{}';
// BENCH_SERVER_ENV: JSON of further settings for this server (bench/soak.ts turns the auth-failure limit off).
const attachUrl = process.env.BENCH_ATTACH_URL;
const serverEnv = { ...(JSON.parse(process.env.BENCH_SERVER_ENV ?? '{}') as Record<string, string>), ...(attachUrl ? { BENCH_ATTACH_URL: attachUrl } : {}) };
// BENCH_COUNT_STATEMENTS=1: the statements this process runs, by SQL text (bench/booking-floor.ts).
const statements = process.env.BENCH_COUNT_STATEMENTS === '1' ? countStatements() : null;
const server = await startBenchServer(dialect, serverEnv, async (app, ctx) => {
  if (statements) app.get('/bench/statements', async () => Object.fromEntries(statements));
  app.post('/bench/static-month', async (_request, reply) => reply.type('application/json; charset=utf-8').send(staticMonthBody));
  // The server's own CPU time so far: a figure per request that the machine's other load
  // (the load generator, a second server) does not move as much as requests per second.
  // With the split between the main thread and the others (the JIT compiler, GC helpers) where /proc has it.
  app.get('/bench/cpu', async () => ({ ...process.cpuUsage(), threads: threadCpuMicros() }));
  // The outbox's due backlog per kind (bench/outbox.ts prints it when the load stops).
  app.get('/bench/outbox', async () => {
    const now = Date.now();
    const rows = await ctx.db
      .selectFrom('outbox')
      .select((eb) => ['kind', eb.fn.countAll<number>().as('due')])
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .groupBy('kind')
      .execute();
    return Object.fromEntries(rows.map((row) => [row.kind, Number(row.due)]));
  });
});
const { ctx } = server;
if (attachUrl) {
  // Serves another instance's database as it is: nothing to seed.
  console.log(`BENCH_INFO ${JSON.stringify({ url: server.url })}`);
  const stopAttached = async () => {
    await server.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stopAttached());
  process.on('SIGINT', () => void stopAttached());
  // Runs until killed; nothing below is for an attached instance.
  await new Promise(() => undefined);
}
const hosts = Number(process.env.BENCH_HOSTS ?? 1);
const created = await createAccount(ctx, {
  name: 'Bench',
  ownerEmail: 'owner@bench.test',
  ownerFirstName: 'Bench',
  ownerLastName: 'Owner',
  maxUsers: hosts + 1,
  timezone: 'Europe/Warsaw',
  places: ['zoom'],
});
const owner = { keyUuid: '', userUuid: created.owner.uuid, accountUuid: created.account.uuid, username: created.owner.username };
for (let i = 0; i < hosts - 1; i += 1) await addTeamMember(ctx, owner, created.team.uuid, { firstName: 'Host', lastName: `Number ${i}`, email: `host${i}@bench.test` });
const topic = await createMeetingTopic(ctx, owner, { name: 'Bench', durationMinutes: 30, bookingWindowDays: 365, places: ['zoom'], team: created.team.uuid });

let month = 0;
if (seed === 'calendar') {
  // 200 meetings over next month's working hours of the owner.
  const first = DateTime.now().setZone('Europe/Warsaw').plus({ months: 1 }).startOf('month');
  month = first.month + (first.year - DateTime.now().setZone('America/New_York').year) * 12;
  const meetings: Meeting[] = [];
  let inserted = 0;
  for (let day = 0; inserted < 200 && day < 31; day += 1) {
    const date = first.plus({ days: day });
    if (date.weekday > 5) continue;
    for (let hour = 9; hour < 17 && inserted < 200; hour += 1) {
      const start = date.set({ hour, minute: 0 }).toMillis();
      meetings.push(benchMeeting({ accountUuid: created.account.uuid, topicUuid: topic.uuid, teamUuid: created.team.uuid, host: created.owner, start, now: Date.now() }));
      inserted += 1;
    }
  }
  await insertMeetings(ctx.db, meetings);
}

if (seed === 'calendar') {
  const response = await fetch(`${server.url}/api/v1/calculate-schedule`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: created.owner.username, meetingTopic: topic.uuid, team: created.team.uuid, timezone: 'America/New_York', offset: 0, month }),
  });
  staticMonthBody = await response.text();
}
// BENCH_BACKGROUND=1: the outbox worker runs as in the server (bench/outbox.ts measures it).
const jobs = process.env.BENCH_BACKGROUND === '1' ? startBackgroundJobs(ctx) : null;
const databaseUrl = ctx.config.database.dialect === 'postgres' ? ctx.config.database.url : null;
const databaseFile = ctx.config.database.dialect === 'sqlite' ? ctx.config.database.filename : null;
console.log(
  `BENCH_INFO ${JSON.stringify({ url: server.url, apiKey: created.apiKey, topic: topic.uuid, team: created.team.uuid, usernames: topic.hosts.map((h) => h.username), month, databaseUrl, databaseFile })}`,
);
const stop = async () => {
  await jobs?.stop(1_000);
  await server.close();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
