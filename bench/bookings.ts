/**
 * Bookings per second and latency of POST /schedule for distinct free slots across 100
 * hosts, on SQLite and on PostgreSQL (when reachable). Every request books a slot, so this
 * is the full path: auth, validation, host lock, calendar read, slot check, insert, outbox.
 * The server runs in its own process. Run: npx tsx bench/bookings.ts [seconds-per-dialect]
 */
import autocannon from 'autocannon';
import pg from 'pg';
import { formatNumber, spawnBenchServer, type BenchDialect } from './support.js';

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
  const server = await spawnBenchServer({ BENCH_DIALECT: dialect, BENCH_SEED: 'none', BENCH_HOSTS: String(HOSTS) });
  try {
    const { url, apiKey, topic, team, usernames } = server.info;
    // Distinct free slots: the hosts' working half-hours (09:00–17:00 Warsaw) over the coming weeks, interleaved across hosts.
    const dayMs = 86_400_000;
    const firstDay = Math.ceil(Date.now() / dayMs) * dayMs + dayMs;
    const bodies: string[] = [];
    for (let day = 0; day < 300 && bodies.length < 100_000; day += 1) {
      const date = new Date(firstDay + day * dayMs);
      if (date.getUTCDay() === 0 || date.getUTCDay() === 6) continue;
      // 10:00–14:00 UTC lies inside 09:00–17:00 Warsaw in winter and in summer.
      for (let half = 20; half < 28; half += 1) {
        for (const username of usernames) {
          const start = new Date(firstDay + day * dayMs + half * 30 * 60_000).toISOString();
          bodies.push(JSON.stringify({ dates: [{ start, username }], email: 'p@bench.test', lang: 'en', name: 'P', place: 'zoom', meetingTopic: topic, team, timezone: 'UTC' }));
        }
      }
    }
    let next = 0;
    const statuses = new Map<number, number>();
    const result = await autocannon({
      url: `${url}/api/v1/schedule`,
      method: 'POST',
      connections: 20,
      duration: seconds,
      headers: { 'content-type': 'application/json', 'x-service-api-key': apiKey },
      requests: [{ setupRequest: (request: autocannon.Request) => ({ ...request, body: bodies[next++ % bodies.length] }) }],
      setupClient: (client: autocannon.Client) => client.on('response', (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1)),
    } as autocannon.Options);
    return { dialect, rps: (statuses.get(201) ?? 0) / seconds, p50: result.latency.p50, p99: result.latency.p99, statuses: Object.fromEntries(statuses) };
  } finally {
    await server.stop();
  }
}

const dialects: BenchDialect[] = (await postgresReachable()) ? ['sqlite', 'postgres'] : ['sqlite'];
console.log(`POST /schedule, distinct slots across ${HOSTS} hosts, 20 connections, ${seconds} s per dialect, server in its own process, Node ${process.version}`);
console.log('dialect'.padEnd(10), 'bookings/s'.padStart(11), 'p50 ms'.padStart(8), 'p99 ms'.padStart(8), '  statuses');
for (const dialect of dialects) {
  const r = await run(dialect);
  console.log(r.dialect.padEnd(10), formatNumber(r.rps).padStart(11), formatNumber(r.p50).padStart(8), formatNumber(r.p99).padStart(8), ' ', JSON.stringify(r.statuses));
}
if (!dialects.includes('postgres')) console.log('PostgreSQL not reachable: skipped.');
