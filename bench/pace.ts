/**
 * The pace, weighed (issue 44 item 5): what a 1,000-booking burst costs participants with the
 * outbox's pace on and off. Books `--bookings` (default 1,000) through 20 connections against a
 * server running its outbox worker and an SMTP server (bench/outbox-sinks.ts, its own process)
 * that accepts each message at once ("fast") or after 50 ms ("slow"), on SQLite and PostgreSQL
 * (when reachable). Per variant it prints the booking p50/p99 (request to answer), the burst's
 * duration, and when the last participant's confirmation was accepted, from the burst's start and
 * after the last booking answered. The machine is shared: the variants alternate in `--rounds`
 * rounds (default 3) within one run, each on a fresh server and database, and the medians and
 * spreads (min–max) are printed.
 * Variants: `--lags 300,0,default`: OUTBOX_PACE_LAG_MS per variant ("default": unset, the
 * shipped default).
 * Run: npx tsx bench/pace.ts [--bookings 1000] [--rounds 3] [--dialect sqlite|postgres] [--slow-ms 50] [--lags 300,0,default]
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import { formatNumber, median, postgresReachable, spawnBenchServer, type BenchDialect, type SpawnedBenchServer } from './support.js';

const argument = (name: string) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? undefined : process.argv[at + 1];
};
const BOOKINGS = Number(argument('bookings') ?? 1_000);
const ROUNDS = Number(argument('rounds') ?? 3);
const SLOW_MS = Number(argument('slow-ms') ?? 50);
const LAGS = (argument('lags') ?? '300,0,default').split(',');
const CONNECTIONS = 20;
const HOSTS = 100;
/** After the burst, how long at most the confirmations are waited for. */
const DRAIN_MS = 120_000;

interface Sinks {
  smtpPort: number;
  caFile: string;
  /** Per booking number, when its participant's message was accepted. */
  mail: Map<number, number>;
  stop(): void;
}

async function startSinks(delayMs: number): Promise<Sinks> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/outbox-sinks.ts'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, SINK_SMTP_DELAY_MS: String(delayMs) },
  });
  const mail = new Map<number, number>();
  let rest = '';
  let ready: (value: { smtpPort: number; caFile: string }) => void;
  const readyInfo = new Promise<{ smtpPort: number; caFile: string }>((resolve) => (ready = resolve));
  child.stdout.on('data', (chunk: Buffer) => {
    const lines = (rest + chunk.toString()).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      if (line.startsWith('SINKS_READY ')) {
        ready(JSON.parse(line.slice('SINKS_READY '.length)));
        continue;
      }
      const [what, n, ms] = line.split(' ');
      if (what === 'S' && n !== '-') mail.set(Number(n), Number(ms));
    }
  });
  const info = await readyInfo;
  return { ...info, mail, stop: () => child.kill('SIGTERM') };
}

/** Booking number n: its own slot (the hosts' 10:00–14:00 UTC weekday half-hours) and its own participant p-<n>@bench.test. */
function bookingBodies(info: SpawnedBenchServer['info'], count: number): string[] {
  const dayMs = 86_400_000;
  const firstDay = Math.ceil(Date.now() / dayMs) * dayMs + dayMs;
  const bodies: string[] = [];
  for (let day = 0; day < 300 && bodies.length < count; day += 1) {
    const date = new Date(firstDay + day * dayMs);
    if (date.getUTCDay() === 0 || date.getUTCDay() === 6) continue;
    for (let half = 20; half < 28; half += 1) {
      for (const username of info.usernames) {
        const n = bodies.length;
        const start = new Date(firstDay + day * dayMs + half * 30 * 60_000).toISOString();
        bodies.push(
          JSON.stringify({
            dates: [{ start, username }],
            email: `p-${n}@bench.test`,
            lang: 'en',
            name: 'P',
            place: 'zoom',
            meetingTopic: info.topic,
            team: info.team,
            timezone: 'UTC',
          }),
        );
      }
    }
  }
  return bodies.slice(0, count);
}

function post(agent: http.Agent, url: URL, apiKey: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { agent, hostname: url.hostname, port: url.port, path: '/api/v1/schedule', method: 'POST', headers: { 'content-type': 'application/json', 'x-service-api-key': apiKey } },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

interface Figures {
  p50: number;
  p99: number;
  burstMs: number;
  /** From the burst's start to the last confirmation accepted (Infinity: some never arrived). */
  lastMailMs: number;
  /** From the last booking's answer to the last confirmation accepted. */
  mailAfterMs: number;
  refused: number;
}

async function runOnce(dialect: BenchDialect, smtpDelayMs: number, lag: string): Promise<Figures> {
  const sinks = await startSinks(smtpDelayMs);
  const server = await spawnBenchServer({
    BENCH_DIALECT: dialect,
    BENCH_SEED: 'none',
    BENCH_HOSTS: String(HOSTS),
    BENCH_BACKGROUND: '1',
    NODE_EXTRA_CA_CERTS: sinks.caFile,
    BENCH_SERVER_ENV: JSON.stringify({
      SMTP_URL: `smtp://127.0.0.1:${sinks.smtpPort}`,
      ...(lag === 'default' ? {} : { OUTBOX_PACE_LAG_MS: lag }),
    }),
  });
  try {
    const { url, apiKey } = server.info;
    const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    const target = new URL(url);
    const bodies = bookingBodies(server.info, BOOKINGS);
    const latencies: number[] = [];
    const committed: number[] = [];
    let refused = 0;
    let next = 0;
    const began = Date.now();
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (next < bodies.length) {
          const n = next++;
          const sent = Date.now();
          const status = await post(agent, target, apiKey, bodies[n]!);
          latencies.push(Date.now() - sent);
          if (status === 201) committed.push(n);
          else refused += 1;
        }
      }),
    );
    const ended = Date.now();
    agent.destroy();
    const deadline = Date.now() + DRAIN_MS;
    while (committed.some((n) => !sinks.mail.has(n)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const lastMail = committed.every((n) => sinks.mail.has(n)) ? Math.max(...committed.map((n) => sinks.mail.get(n)!)) : Number.POSITIVE_INFINITY;
    latencies.sort((a, b) => a - b);
    return {
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      burstMs: ended - began,
      lastMailMs: lastMail - began,
      mailAfterMs: lastMail - ended,
      refused,
    };
  } finally {
    await server.stop();
    sinks.stop();
  }
}

const spread = (values: number[]) => {
  const finite = (v: number) => (Number.isFinite(v) ? formatNumber(v) : '∞');
  return `${finite(median(values))} (${finite(Math.min(...values))}–${finite(Math.max(...values))})`;
};

const only = argument('dialect') as BenchDialect | undefined;
const dialects: BenchDialect[] = only ? [only] : (await postgresReachable()) ? ['sqlite', 'postgres'] : ['sqlite'];
const smtps = [
  ['fast', 0],
  ['slow', SLOW_MS],
] as const;
console.log(
  `The pace, weighed: ${BOOKINGS} bookings through ${CONNECTIONS} connections, SMTP fast (0 ms) and slow (${SLOW_MS} ms per message), OUTBOX_PACE_LAG_MS ${LAGS.join(' / ')}, ${ROUNDS} rounds, Node ${process.version}, ${os.cpus().length} CPUs, load ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
for (const dialect of dialects) {
  const results = new Map<string, Figures[]>();
  // Rounds outermost: each round runs every variant once, so a busy minute on the shared machine falls on all of them.
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [smtpName, delay] of smtps) {
      for (const lag of LAGS) {
        const key = `${smtpName} SMTP, lag ${lag}`;
        const figures = await runOnce(dialect, delay, lag);
        results.set(key, [...(results.get(key) ?? []), figures]);
        console.error(`  ${dialect} round ${round + 1}, ${key}: p99 ${figures.p99} ms, burst ${figures.burstMs} ms, last mail ${figures.lastMailMs} ms`);
      }
    }
  }
  console.log(`${dialect}: median (min–max) of ${ROUNDS} rounds, ms`);
  for (const [key, runs] of results) {
    const field = (name: keyof Figures) => spread(runs.map((run) => run[name]));
    console.log(
      `${dialect}, ${key.padEnd(24)}: booking p50 ${field('p50')}, p99 ${field('p99')}; burst ${field('burstMs')}; last confirmation ${field('lastMailMs')} after the start, ${field('mailAfterMs')} after the last booking; refused ${runs.reduce((sum, run) => sum + run.refused, 0)}`,
    );
  }
}
