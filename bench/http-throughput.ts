/**
 * HTTP throughput of POST /calculate-schedule (a week view, and a month view of a host with
 * 200 meetings that month) next to the same server's /healthz, in one run. The server runs
 * in its own process; autocannon here. Run: npx tsx bench/http-throughput.ts [seconds] [dialect]
 * Goal: month view ≥ 0.5 × /healthz. For scale it also measures the month view's own body
 * sent as a constant string from the same server: no month view of that size can beat it.
 * Then the month view again on a server with the default logging (LOG_LEVEL=info, one
 * asynchronous line per request): goal ≥ 0.9 × the same view with logging off.
 */
import autocannon from 'autocannon';
import { formatNumber, spawnBenchServer, type BenchDialect } from './support.js';

const seconds = Number(process.argv[2] ?? 5);
const dialect = (process.argv[3] ?? 'sqlite') as BenchDialect;
let monthViewRps = 0;
const server = await spawnBenchServer({ BENCH_DIALECT: dialect, BENCH_SEED: 'calendar' });
try {
  const { url, topic, team, usernames, month } = server.info;
  const body = (extra: Record<string, unknown>) => JSON.stringify({ username: usernames[0], meetingTopic: topic, team, timezone: 'America/New_York', offset: 0, ...extra });
  const cases = [
    { name: 'GET /healthz', method: 'GET' as const, path: '/healthz', body: undefined },
    { name: 'same-size constant body (ceiling)', method: 'POST' as const, path: '/bench/static-month', body: '{}' },
    { name: 'calculate, week view', method: 'POST' as const, path: '/api/v1/calculate-schedule', body: body({ offset: 28 }) },
    { name: 'calculate, month view (200 meetings)', method: 'POST' as const, path: '/api/v1/calculate-schedule', body: body({ month }) },
  ];
  const results: { name: string; rps: number; p99: number; bytes: number }[] = [];
  for (const c of cases) {
    const check = await fetch(`${url}${c.path}`, { method: c.method, headers: { 'content-type': 'application/json' }, body: c.body });
    const text = await check.text();
    if (!check.ok) throw new Error(`${c.name}: ${check.status} ${text}`);
    const result = await autocannon({ url: `${url}${c.path}`, method: c.method, headers: { 'content-type': 'application/json' }, body: c.body, connections: 10, duration: seconds });
    results.push({ name: c.name, rps: result.requests.average, p99: result.latency.p99, bytes: text.length });
  }
  const healthz = results[0]!.rps;
  monthViewRps = results[3]!.rps;
  console.log(`HTTP throughput, ${dialect}, server and load generator in separate processes, 10 connections, ${seconds} s per case, Node ${process.version}`);
  console.log('case'.padEnd(40), 'req/s'.padStart(9), 'p99 ms'.padStart(7), '× healthz'.padStart(10), 'body bytes'.padStart(11));
  for (const r of results) {
    console.log(r.name.padEnd(40), formatNumber(r.rps).padStart(9), formatNumber(r.p99).padStart(7), formatNumber(r.rps / healthz, 2).padStart(10), formatNumber(r.bytes).padStart(11));
  }
} finally {
  await server.stop();
}

// The same month view with the service's default logging on.
const logged = await spawnBenchServer({ BENCH_DIALECT: dialect, BENCH_SEED: 'calendar', LOG_LEVEL: 'info' });
try {
  const { url, topic, team, usernames, month } = logged.info;
  const body = JSON.stringify({ username: usernames[0], meetingTopic: topic, team, timezone: 'America/New_York', offset: 0, month });
  const check = await fetch(`${url}/api/v1/calculate-schedule`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  if (!check.ok) throw new Error(`logged month view: ${check.status}`);
  const result = await autocannon({ url: `${url}/api/v1/calculate-schedule`, method: 'POST', headers: { 'content-type': 'application/json' }, body, connections: 10, duration: seconds });
  const quiet = monthViewRps;
  console.log('calculate, month view, LOG_LEVEL=info'.padEnd(40), formatNumber(result.requests.average).padStart(9), formatNumber(result.latency.p99).padStart(7), `${formatNumber(result.requests.average / quiet, 2)} × the same view with logging off`);
} finally {
  await logged.stop();
}
