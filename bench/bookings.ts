/**
 * Bookings per second and latency of POST /schedule for distinct free slots across 100
 * hosts, on SQLite and on PostgreSQL (when reachable). Every request books a slot, so this
 * is the full path: auth, validation, host lock, calendar read, slot check, insert, outbox.
 * The server runs in its own process. On PostgreSQL, also two instances on one database, and
 * the ratio of the two to one. Each run first measures the same server's /healthz, and every
 * figure is printed with its ratio to it, so runs on machines (or moments) of different speed
 * compare. Run: npx tsx bench/bookings.ts [seconds-per-run]
 */
import autocannon from 'autocannon';
import os from 'node:os';
import { bookingBodies, formatNumber, postgresReachable, spawnBenchServer, type BenchDialect } from './support.js';

const seconds = Number(process.argv[2] ?? 5);
const HOSTS = 100;

interface Load {
  created: number;
  /** The servers' own CPU time per created booking, in µs (see serverCpu). */
  cpuPerBooking: number;
  latencies: { p50: number; p99: number }[];
  statuses: Map<number, number>;
}

/** Books from `bodies` (each taken once, shared by all targets) against every url at once, `connections` each. */
async function book(urls: string[], apiKey: string, bodies: string[], connections: number): Promise<Load> {
  let next = 0;
  const statuses = new Map<number, number>();
  const cpuBefore = await Promise.all(urls.map(serverCpu));
  const results = await Promise.all(
    urls.map((url) =>
      autocannon({
        url: `${url}/api/v1/schedule`,
        method: 'POST',
        connections,
        duration: seconds,
        headers: { 'content-type': 'application/json', 'x-service-api-key': apiKey },
        requests: [{ setupRequest: (request: autocannon.Request) => ({ ...request, body: bodies[next++ % bodies.length] }) }],
        setupClient: (client: autocannon.Client) => client.on('response', (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1)),
      } as autocannon.Options),
    ),
  );
  const cpuAfter = await Promise.all(urls.map(serverCpu));
  const created = statuses.get(201) ?? 0;
  const cpu = cpuAfter.reduce((sum, after, i) => sum + after.user + after.system - cpuBefore[i]!.user - cpuBefore[i]!.system, 0);
  return { created, cpuPerBooking: cpu / Math.max(1, created), latencies: results.map((result) => ({ p50: result.latency.p50, p99: result.latency.p99 })), statuses };
}

/**
 * A server process's CPU time so far (bench-server.ts's /bench/cpu), in µs. Per booking it
 * is a steadier figure than bookings per second on a shared machine, where the load
 * generator and PostgreSQL take the same cores; PostgreSQL's own work is not in it.
 */
async function serverCpu(url: string): Promise<{ user: number; system: number }> {
  return (await fetch(`${url}/bench/cpu`)).json() as Promise<{ user: number; system: number }>;
}

/** The same server's GET /healthz: what this machine serves at all, right now (the bookings are judged against it). */
async function healthz(url: string): Promise<number> {
  const result = await autocannon({ url: `${url}/healthz`, connections: 20, duration: Math.min(seconds, 5) });
  return result.requests.average;
}

function line(label: string, rps: number, health: number, load: Load) {
  const p50 = Math.max(...load.latencies.map((l) => l.p50));
  const p99 = Math.max(...load.latencies.map((l) => l.p99));
  console.log(
    label.padEnd(22),
    formatNumber(rps).padStart(10),
    formatNumber(health).padStart(12),
    formatNumber(rps / health, 3).padStart(9),
    formatNumber(p50).padStart(7),
    formatNumber(p99).padStart(7),
    formatNumber(load.cpuPerBooking).padStart(12),
    ' ',
    JSON.stringify(Object.fromEntries(load.statuses)),
  );
}

async function runOne(dialect: BenchDialect, label = `${dialect}, one instance`, serverEnv: Record<string, string> = {}): Promise<number> {
  const server = await spawnBenchServer({ BENCH_DIALECT: dialect, BENCH_SEED: 'none', BENCH_HOSTS: String(HOSTS), BENCH_SERVER_ENV: JSON.stringify(serverEnv) });
  try {
    const health = await healthz(server.info.url);
    const load = await book([server.info.url], server.info.apiKey, bookingBodies(server.info), 20);
    const rps = load.created / seconds;
    line(label, rps, health, load);
    return rps;
  } finally {
    await server.stop();
  }
}

/** Two instances on one PostgreSQL database, each taking 20 connections, behind no balancer but the load generator. */
async function runTwo(oneInstance: number) {
  const first = await spawnBenchServer({ BENCH_DIALECT: 'postgres', BENCH_SEED: 'none', BENCH_HOSTS: String(HOSTS) });
  try {
    const second = await spawnBenchServer({ BENCH_DIALECT: 'postgres', BENCH_ATTACH_URL: first.info.databaseUrl! });
    try {
      const health = await healthz(first.info.url);
      const load = await book([first.info.url, second.info.url], first.info.apiKey, bookingBodies(first.info), 20);
      const rps = load.created / seconds;
      line('postgres, two instances', rps, health, load);
      console.log(`two instances / one: ${formatNumber(rps / oneInstance, 2)}× (the issue's goal: ≥ 1.6×)`);
    } finally {
      await second.stop();
    }
  } finally {
    await first.stop();
  }
}

const dialects: BenchDialect[] = (await postgresReachable()) ? ['sqlite', 'postgres'] : ['sqlite'];
console.log(
  `POST /schedule, distinct slots across ${HOSTS} hosts, 20 connections per instance, ${seconds} s per run, servers in their own processes, Node ${process.version}, ${os.cpus().length} CPUs`,
);
console.log(
  "bookings/healthz: bookings per second over the same server's /healthz requests per second, measured just before: how close a booking comes to the cheapest request this machine serves at that moment.",
);
console.log("CPU µs/book: the service processes' own CPU time per booking (PostgreSQL's not included), steadier than the rate when other processes share the cores.");
console.log(
  'run'.padEnd(22),
  'bookings/s'.padStart(10),
  'healthz/s'.padStart(12),
  'ratio'.padStart(9),
  'p50 ms'.padStart(7),
  'p99 ms'.padStart(7),
  'CPU µs/book'.padStart(12),
  '  statuses',
);
for (const dialect of dialects) {
  const one = await runOne(dialect);
  // The default syncs every (group) commit; the operator may trade that for speed.
  if (dialect === 'sqlite') await runOne(dialect, 'sqlite, sync=normal', { SQLITE_SYNCHRONOUS: 'normal' });
  if (dialect === 'postgres') await runTwo(one);
}
if (!dialects.includes('postgres')) console.log('PostgreSQL not reachable: skipped.');
