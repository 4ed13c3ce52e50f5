/**
 * Is a cached month view near the cost of its bytes? One server with the default logging
 * (LOG_LEVEL=info, a line per request, read from a pipe) serves POST /calculate-schedule for a
 * month of a host with 200 meetings (from its cache after the first request) and, beside it,
 * the very same body as a constant string (/bench/static-month). Each round measures both back
 * to back; the figure is the server's own CPU µs per request (what the machine's other load
 * moves least), and the ratio month ÷ constant of the median round. Goal (issue 24): ≤ 1.2.
 * Run: npx tsx bench/month-bytes.ts [seconds-per-case] [dialect] [rounds]
 */
import os from 'node:os';
import autocannon from 'autocannon';
import { formatNumber, spawnBenchServer, type SpawnedBenchServer } from './support.js';

const seconds = Number(process.argv[2] ?? 5);
const dialect = process.argv[3] ?? 'sqlite';
const rounds = Number(process.argv[4] ?? 3);

async function serverCpu(server: SpawnedBenchServer): Promise<number> {
  const usage = (await (await fetch(`${server.info.url}/bench/cpu`)).json()) as { user: number; system: number };
  return usage.user + usage.system;
}

async function measure(server: SpawnedBenchServer, path: string, body: string) {
  const before = await serverCpu(server);
  const result = await autocannon({ url: `${server.info.url}${path}`, method: 'POST', headers: { 'content-type': 'application/json' }, body, connections: 10, duration: seconds });
  const cpu = (await serverCpu(server)) - before;
  if (result.non2xx > 0) throw new Error(`${path}: ${result.non2xx} answers were not 2xx`);
  return { rps: result.requests.average, cpuMicros: cpu / Math.max(1, result.requests.total) };
}

const server = await spawnBenchServer({ BENCH_DIALECT: dialect, BENCH_SEED: 'calendar', BENCH_SERVER_ENV: JSON.stringify({ LOG_LEVEL: 'info' }) });
try {
  const { info } = server;
  const month = JSON.stringify({ username: info.usernames[0], meetingTopic: info.topic, team: info.team, timezone: 'America/New_York', offset: 0, month: info.month });
  const view = await fetch(`${info.url}/api/v1/calculate-schedule`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: month });
  const bytes = (await view.text()).length;
  console.log(
    `Month view (${formatNumber(bytes)} bytes, 200 meetings) vs the same body as a constant, ${dialect}, LOG_LEVEL=info, 10 connections, ${seconds} s per case, Node ${process.version}, load ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  // Warm-up: the first seconds run unoptimised code.
  await measure(server, '/api/v1/calculate-schedule', month);
  await measure(server, '/bench/static-month', '{}');
  console.log('round'.padEnd(7), 'month req/s'.padStart(12), 'const req/s'.padStart(12), 'month CPU µs'.padStart(13), 'const CPU µs'.padStart(13), 'ratio'.padStart(7));
  const ratios: number[] = [];
  for (let round = 1; round <= rounds; round += 1) {
    const view = await measure(server, '/api/v1/calculate-schedule', month);
    const constant = await measure(server, '/bench/static-month', '{}');
    ratios.push(view.cpuMicros / constant.cpuMicros);
    console.log(
      String(round).padEnd(7),
      formatNumber(view.rps).padStart(12),
      formatNumber(constant.rps).padStart(12),
      formatNumber(view.cpuMicros).padStart(13),
      formatNumber(constant.cpuMicros).padStart(13),
      formatNumber(ratios.at(-1)!, 2).padStart(7),
    );
  }
  const median = [...ratios].sort((a, b) => a - b)[Math.floor(ratios.length / 2)]!;
  console.log(`cached month view ÷ constant body, CPU per request, median round: ${formatNumber(median, 2)}× (goal ≤ 1.2) ${median <= 1.2 ? 'PASS' : 'FAIL'}`);
} finally {
  await server.stop();
}
