/**
 * Bookings per second and latency of POST /schedule for distinct slots across 100 hosts,
 * on SQLite and on PostgreSQL (when reachable). Every request books a free slot, so this
 * measures the full path: auth, validation, host lock, calendar read, slot check, insert,
 * outbox. Run: npx tsx bench/bookings.ts [seconds-per-dialect]
 */
import autocannon from 'autocannon';
import pg from 'pg';
import { createAccount } from '../src/scheduling/create-account.js';
import { createMeetingTopic } from '../src/scheduling/meeting-topics.js';
import { addTeamMember } from '../src/scheduling/teams.js';
import { formatNumber, startBenchServer, type BenchDialect } from './support.js';

const seconds = Number(process.argv[2] ?? 5);
const HOSTS = 100;

async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function run(dialect: BenchDialect) {
  const server = await startBenchServer(dialect);
  try {
    const { ctx } = server;
    const created = await createAccount(ctx, { name: 'Bench', ownerEmail: 'owner@bench.test', ownerFirstName: 'Owner', ownerLastName: 'Bench', maxUsers: HOSTS + 1, timezone: 'UTC', places: ['zoom'] });
    const owner = { keyUuid: '', userUuid: created.owner.uuid, accountUuid: created.account.uuid, username: created.owner.username };
    for (let i = 0; i < HOSTS - 1; i += 1) {
      await addTeamMember(ctx, owner, created.team.uuid, { firstName: 'Host', lastName: `Number ${i}`, email: `host${i}@bench.test` });
    }
    const topic = await createMeetingTopic(ctx, owner, { name: 'Bench', durationMinutes: 30, bookingWindowDays: 365, places: ['zoom'], team: created.team.uuid });
    const usernames = topic.hosts.map((host) => host.username);

    // Distinct free slots: each host's working half-hours over the coming weeks, interleaved across hosts.
    const dayMs = 86_400_000;
    const firstDay = Math.ceil(Date.now() / dayMs) * dayMs + dayMs;
    const bodies: string[] = [];
    for (let day = 0; day < 200 && bodies.length < 200_000; day += 1) {
      const date = new Date(firstDay + day * dayMs);
      if (date.getUTCDay() === 0 || date.getUTCDay() === 6) continue;
      for (let half = 18; half < 34; half += 1) {
        for (const username of usernames) {
          const start = new Date(firstDay + day * dayMs + half * 30 * 60_000).toISOString();
          bodies.push(JSON.stringify({ dates: [{ start, username }], email: 'p@bench.test', lang: 'en', name: 'P', place: 'zoom', meetingTopic: topic.uuid, team: created.team.uuid, timezone: 'UTC' }));
        }
      }
    }
    let next = 0;
    const statuses = new Map<number, number>();
    const result = await autocannon({
      url: `${server.url}/api/v1/schedule`,
      method: 'POST',
      connections: 20,
      duration: seconds,
      headers: { 'content-type': 'application/json', 'x-service-api-key': created.apiKey },
      requests: [{ setupRequest: (request) => ({ ...request, body: bodies[next++ % bodies.length] }) }],
      setupClient: (client) => client.on('response', (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1)),
    } as autocannon.Options);
    const booked = statuses.get(201) ?? 0;
    return { dialect, rps: booked / seconds, p50: result.latency.p50, p99: result.latency.p99, statuses: Object.fromEntries(statuses) };
  } finally {
    await server.close();
  }
}

const dialects: BenchDialect[] = (await postgresReachable()) ? ['sqlite', 'postgres'] : ['sqlite'];
console.log(`POST /schedule, distinct slots across ${HOSTS} hosts, 20 connections, ${seconds} s per dialect, Node ${process.version}`);
console.log('dialect'.padEnd(10), 'bookings/s'.padStart(11), 'p50 ms'.padStart(8), 'p99 ms'.padStart(8), '  statuses');
for (const dialect of dialects) {
  const r = await run(dialect);
  console.log(r.dialect.padEnd(10), formatNumber(r.rps).padStart(11), formatNumber(r.p50).padStart(8), formatNumber(r.p99).padStart(8), ' ', JSON.stringify(r.statuses));
}
if (!dialects.includes('postgres')) console.log('PostgreSQL not reachable: skipped.');
