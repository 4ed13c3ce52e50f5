/**
 * HTTP throughput of POST /calculate-schedule (a week view, and a month view of a host with
 * 200 meetings that month) next to the same server's /healthz, in one run. The servers run
 * in their own processes; autocannon here. Run: npx tsx bench/http-throughput.ts [seconds] [dialect] [rounds]
 *
 * Goals: month view ≥ 0.5 × /healthz; the month view with the default logging
 * (LOG_LEVEL=info, one asynchronous line per request, read from a pipe) ≥ 0.9 × the same
 * view with logging off. For scale it also measures the month view's own body sent as a
 * constant string from the same server: no month view of that size can beat it.
 *
 * A shared machine's speed drifts by 2× within minutes, so the ratios are not taken from
 * cases measured minutes apart: both servers run side by side, and each round measures
 * /healthz, the quiet month view and the logged month view back to back. Each round gives
 * its own ratios; the median round is the figure.
 */
import autocannon from 'autocannon';
import { formatNumber, spawnBenchServer, type BenchDialect, type SpawnedBenchServer } from './support.js';

const seconds = Number(process.argv[2] ?? 5);
const dialect = (process.argv[3] ?? 'sqlite') as BenchDialect;
const rounds = Number(process.argv[4] ?? 3);

interface Case {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body: string | undefined;
}

function monthBody(info: SpawnedBenchServer['info'], extra: Record<string, unknown>): string {
  return JSON.stringify({ username: info.usernames[0], meetingTopic: info.topic, team: info.team, timezone: 'America/New_York', offset: 0, ...extra });
}

/** Requests per second (and p99, and the body's size) of one case; the case must answer 2xx. */
async function measure(server: SpawnedBenchServer, c: Case) {
  const url = `${server.info.url}${c.path}`;
  const check = await fetch(url, { method: c.method, headers: { 'content-type': 'application/json' }, body: c.body });
  const text = await check.text();
  if (!check.ok) throw new Error(`${c.name}: ${check.status} ${text}`);
  const before = await serverCpu(server);
  const result = await autocannon({ url, method: c.method, headers: { 'content-type': 'application/json' }, body: c.body, connections: 10, duration: seconds });
  const after = await serverCpu(server);
  const cpuMicros = (after.user - before.user + after.system - before.system) / Math.max(1, result.requests.total);
  return { rps: result.requests.average, p99: result.latency.p99, bytes: text.length, cpuMicros };
}

/** The server process's CPU time so far (bench-server.ts's /bench/cpu), in µs. */
async function serverCpu(server: SpawnedBenchServer): Promise<{ user: number; system: number }> {
  return (await fetch(`${server.info.url}/bench/cpu`)).json() as Promise<{ user: number; system: number }>;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const quiet = await spawnBenchServer({ BENCH_DIALECT: dialect, BENCH_SEED: 'calendar' });
// The bench server takes its service settings from BENCH_SERVER_ENV only: a LOG_LEVEL of its
// own environment left this "logged" server silent.
const logged = await spawnBenchServer({ BENCH_DIALECT: dialect, BENCH_SEED: 'calendar', BENCH_SERVER_ENV: JSON.stringify({ LOG_LEVEL: 'info' }) });
try {
  const healthz: Case = { name: 'GET /healthz', method: 'GET', path: '/healthz', body: undefined };
  const month = (server: SpawnedBenchServer): Case => ({
    name: 'calculate, month view (200 meetings)',
    method: 'POST',
    path: '/api/v1/calculate-schedule',
    body: monthBody(server.info, { month: server.info.month }),
  });
  console.log(`HTTP throughput, ${dialect}, servers and load generator in separate processes, 10 connections, ${seconds} s per case, Node ${process.version}`);

  // Once each, for scale: what a same-size constant body and a week view serve.
  const ceilingHealth = await measure(quiet, healthz);
  const scale = [
    { name: 'GET /healthz', ...ceilingHealth },
    { name: 'same-size constant body (ceiling)', ...(await measure(quiet, { name: 'constant body', method: 'POST', path: '/bench/static-month', body: '{}' })) },
    {
      name: 'calculate, week view',
      ...(await measure(quiet, { name: 'week view', method: 'POST', path: '/api/v1/calculate-schedule', body: monthBody(quiet.info, { offset: 28 }) })),
    },
  ];
  console.log('case'.padEnd(40), 'req/s'.padStart(9), 'p99 ms'.padStart(7), '× healthz'.padStart(10), 'body bytes'.padStart(11), 'CPU µs/req'.padStart(11));
  for (const r of scale)
    console.log(
      r.name.padEnd(40),
      formatNumber(r.rps).padStart(9),
      formatNumber(r.p99).padStart(7),
      formatNumber(r.rps / ceilingHealth.rps, 2).padStart(10),
      formatNumber(r.bytes).padStart(11),
      formatNumber(r.cpuMicros).padStart(11),
    );

  // Both servers warm up on the month view first: its first seconds run unoptimised code.
  for (const server of [quiet, logged])
    await autocannon({
      url: `${server.info.url}/api/v1/calculate-schedule`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: month(server).body,
      connections: 10,
      duration: 2,
    });

  // The logged server's warm-up requests must have left their lines, or its figures say nothing about logging.
  if (logged.loggedBytes() === 0) throw new Error('the logged server wrote no log lines during its warm-up');
  if (quiet.loggedBytes() !== 0) throw new Error(`the quiet server wrote ${quiet.loggedBytes()} bytes of log`);
  console.log();
  console.log(`The goals, ${rounds} rounds of three back-to-back cases each:`);
  console.log("(server CPU µs per request: what the server itself spent, which the machine's other load moves less than requests per second)");
  console.log(
    'round'.padEnd(7),
    'healthz/s'.padStart(10),
    'month/s'.padStart(9),
    'month logged/s'.padStart(15),
    'month ÷ healthz'.padStart(16),
    'logged ÷ quiet'.padStart(15),
    'p99 ms quiet/logged'.padStart(21),
    'CPU µs healthz/month/logged'.padStart(29),
  );
  const viewRatios: number[] = [];
  const logRatios: number[] = [];
  for (let round = 1; round <= rounds; round += 1) {
    const health = await measure(quiet, healthz);
    const view = await measure(quiet, month(quiet));
    const viewLogged = await measure(logged, month(logged));
    viewRatios.push(view.rps / health.rps);
    logRatios.push(viewLogged.rps / view.rps);
    console.log(
      String(round).padEnd(7),
      formatNumber(health.rps).padStart(10),
      formatNumber(view.rps).padStart(9),
      formatNumber(viewLogged.rps).padStart(15),
      formatNumber(view.rps / health.rps, 2).padStart(16),
      formatNumber(viewLogged.rps / view.rps, 2).padStart(15),
      `${formatNumber(view.p99)}/${formatNumber(viewLogged.p99)}`.padStart(21),
      `${formatNumber(health.cpuMicros)}/${formatNumber(view.cpuMicros)}/${formatNumber(viewLogged.cpuMicros)}`.padStart(29),
    );
  }
  console.log(`month view ÷ /healthz, median round: ${formatNumber(median(viewRatios), 2)} (goal ≥ 0.5)`);
  console.log(`month view with default logging ÷ logging off, median round: ${formatNumber(median(logRatios), 2)} (goal ≥ 0.9)`);
  console.log(`log written by the logged server: ${formatNumber(logged.loggedBytes() / 1e6, 1)} MB; by the quiet one: ${formatNumber(quiet.loggedBytes())} bytes`);
} finally {
  await Promise.all([quiet.stop(), logged.stop()]);
}
