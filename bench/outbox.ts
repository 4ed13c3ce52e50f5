/**
 * Do confirmations keep pace with bookings? Books as fast as 20 connections go (as
 * bench/bookings.ts does) for `--duration` seconds (default 180) against a server running its
 * outbox worker, an SMTP server offering STARTTLS and 5 webhook receivers
 * (bench/outbox-sinks.ts, its own process), on SQLite and PostgreSQL (when reachable). Prints
 * bookings/s, messages/s, webhook deliveries/s, and the p50/p99 delay from a booking's commit
 * (its 201 arriving) to its participant's confirmation being accepted by the SMTP server, and to
 * each webhook's delivery, for the first and the last fifth of the bookings. A
 * message still missing a while after the load stops counts as infinitely late.
 * Goal (issue 24): p99 ≤ 5 s at the end as at the start. Last line: the verdict.
 * Run: npx tsx bench/outbox.ts [--duration 180] [--drain 60: at most this long for the backlog after the load] [--dialect sqlite|postgres] [--baseline: one connection per message, one at a time] [--timeline: p50/p99 per 10 s]
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import { formatNumber, postgresReachable, spawnBenchServer, type BenchDialect, type SpawnedBenchServer } from './support.js';

const argument = (name: string) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? undefined : process.argv[at + 1];
};
const seconds = Number(argument('duration') ?? 180);
// After the load, how long at most the backlog is waited for: a backlog that grew for minutes drains
// for minutes, and what is still missing then counts as never arriving (the verdict is a FAIL either way).
const drainSeconds = Number(argument('drain') ?? 60);
// --baseline: as before issue 24, one e-mail at a time, a new connection (and TLS handshake) for each.
const baseline = process.argv.includes('--baseline');
const timeline = process.argv.includes('--timeline');
const CONNECTIONS = 20;
const HOSTS = 100;
const RECEIVERS = 5;
const GOAL_P99_MS = 5_000;
/** After the load, how long missing messages are waited for once nothing more arrives. */
const QUIET_MS = 15_000;

interface Sinks {
  smtpPort: number;
  webhookPorts: number[];
  caFile: string;
  /** Per booking number, when its participant's message was accepted. */
  mail: Map<number, number>;
  /** Per booking number, when each of its webhook deliveries arrived. */
  hooks: Map<number, number[]>;
  messages: number[];
  deliveries: number[];
  stop(): void;
}

async function startSinks(): Promise<Sinks> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/outbox-sinks.ts'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const mail = new Map<number, number>();
  const hooks = new Map<number, number[]>();
  const messages: number[] = [];
  const deliveries: number[] = [];
  let rest = '';
  let ready: (value: { smtpPort: number; webhookPorts: number[]; caFile: string }) => void;
  const readyInfo = new Promise<{ smtpPort: number; webhookPorts: number[]; caFile: string }>((resolve) => (ready = resolve));
  child.stdout.on('data', (chunk: Buffer) => {
    const lines = (rest + chunk.toString()).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      if (line.startsWith('SINKS_READY ')) {
        ready(JSON.parse(line.slice('SINKS_READY '.length)));
        continue;
      }
      const [what, n, ms] = line.split(' ');
      const at = Number(ms);
      if (what === 'S') {
        messages.push(at);
        if (n !== '-') mail.set(Number(n), at);
      } else if (what === 'W') {
        deliveries.push(at);
        if (n !== '-') hooks.set(Number(n), [...(hooks.get(Number(n)) ?? []), at]);
      }
    }
  });
  const info = await readyInfo;
  return { ...info, mail, hooks, messages, deliveries, stop: () => child.kill('SIGTERM') };
}

/** Distinct free slots across the hosts (as bench/bookings.ts): the hosts' 10:00–14:00 UTC half-hours on weekdays, interleaved. */
function freeSlots(info: SpawnedBenchServer['info']): { start: string; username: string }[] {
  const dayMs = 86_400_000;
  const firstDay = Math.ceil(Date.now() / dayMs) * dayMs + dayMs;
  const slots: { start: string; username: string }[] = [];
  for (let day = 0; day < 300 && slots.length < 100_000; day += 1) {
    const date = new Date(firstDay + day * dayMs);
    if (date.getUTCDay() === 0 || date.getUTCDay() === 6) continue;
    // 10:00–14:00 UTC lies inside 09:00–17:00 Warsaw in winter and in summer.
    for (let half = 20; half < 28; half += 1) {
      for (const username of info.usernames) slots.push({ start: new Date(firstDay + day * dayMs + half * 30 * 60_000).toISOString(), username });
    }
  }
  return slots;
}

/** Booking number n: its own slot, and its own participant p-<n>@bench.test, by which the sinks tell its messages apart. */
function bookingBody(info: SpawnedBenchServer['info'], slots: { start: string; username: string }[], n: number): string {
  return JSON.stringify({
    dates: [slots[n % slots.length]],
    email: `p-${n}@bench.test`,
    lang: 'en',
    name: 'P',
    place: 'zoom',
    meetingTopic: info.topic,
    team: info.team,
    timezone: 'UTC',
  });
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

const ms = (value: number) => (Number.isFinite(value) ? `${formatNumber(value)} ms` : 'never');

async function runDialect(dialect: BenchDialect): Promise<{ startP99: number; endP99: number }> {
  const sinks = await startSinks();
  const server = await spawnBenchServer({
    BENCH_DIALECT: dialect,
    BENCH_SEED: 'none',
    BENCH_HOSTS: String(HOSTS),
    BENCH_BACKGROUND: '1',
    NODE_EXTRA_CA_CERTS: sinks.caFile,
    BENCH_SERVER_ENV: JSON.stringify({
      SMTP_URL: `smtp://127.0.0.1:${sinks.smtpPort}${baseline ? '/?pool=false' : ''}`,
      ALLOW_PRIVATE_URLS: 'true',
      ...(baseline ? { OUTBOX_EMAIL_CONCURRENCY: '1', OUTBOX_EVENT_CONCURRENCY: '1' } : {}),
      // The operator's knobs, when set for this run (OUTBOX_EMAIL_CONCURRENCY=20 npx tsx bench/outbox.ts).
      ...Object.fromEntries(Object.entries(process.env).filter(([key]) => /^(OUTBOX_|SMTP_MAX_|LOG_LEVEL$)/.test(key))),
    }),
  });
  try {
    const { url, apiKey } = server.info;
    for (const port of sinks.webhookPorts) {
      const response = await fetch(`${url}/api/v1/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-api-key': apiKey },
        body: JSON.stringify({ url: `http://127.0.0.1:${port}/hook`, events: ['meeting.scheduled'] }),
      });
      if (response.status !== 201) throw new Error(`creating a webhook answered ${response.status}: ${await response.text()}`);
    }
    const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    const target = new URL(url);
    const slots = freeSlots(server.info);
    const committed = new Map<number, number>();
    const statuses = new Map<number, number>();
    let next = 0;
    const began = Date.now();
    const until = began + seconds * 1000;
    const cpuBefore = await serverCpu(url);
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (Date.now() < until) {
          const n = next++;
          const status = await post(agent, target, apiKey, bookingBody(server.info, slots, n));
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          if (status === 201) committed.set(n, Date.now());
        }
      }),
    );
    const ended = Date.now();
    const cpuAfter = await serverCpu(url);
    agent.destroy();
    const missingMail = () => [...committed.keys()].filter((n) => !sinks.mail.has(n)).length;
    const backlogAtEnd = missingMail();
    const dueAtEnd = await (await fetch(`${url}/bench/outbox`)).json();
    // Waits for the backlog to drain, as long as something still arrives.
    let last = sinks.messages.length + sinks.deliveries.length;
    let quietSince = Date.now();
    const drainUntil = Date.now() + drainSeconds * 1000;
    while (
      Date.now() - quietSince < QUIET_MS &&
      Date.now() < drainUntil &&
      (missingMail() > 0 || [...committed.keys()].some((n) => (sinks.hooks.get(n)?.length ?? 0) < RECEIVERS))
    ) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      const now = sinks.messages.length + sinks.deliveries.length;
      if (now !== last) {
        last = now;
        quietSince = Date.now();
      }
    }
    const duration = (ended - began) / 1000;
    // The first and the last fifth of the bookings, in the order they committed.
    const order = [...committed].sort((a, b) => a[1] - b[1]);
    const fifth = Math.max(1, Math.floor(order.length / 5));
    const delays = (bookings: [number, number][]) => {
      const mail: number[] = [];
      const hooks: number[] = [];
      for (const [n, at] of bookings) {
        const sent = sinks.mail.get(n);
        mail.push(sent === undefined ? Number.POSITIVE_INFINITY : Math.max(0, sent - at));
        const arrived = sinks.hooks.get(n) ?? [];
        for (let i = 0; i < RECEIVERS; i += 1) hooks.push(arrived[i] === undefined ? Number.POSITIVE_INFINITY : Math.max(0, arrived[i]! - at));
      }
      return { mail: mail.sort((a, b) => a - b), hooks: hooks.sort((a, b) => a - b) };
    };
    const start = delays(order.slice(0, fifth));
    const end = delays(order.slice(-fifth));
    const inLoad = (times: number[]) => times.filter((t) => t >= began && t <= ended).length / duration;
    const cpu = cpuAfter.user + cpuAfter.system - cpuBefore.user - cpuBefore.system;
    console.log(
      `${dialect}: ${formatNumber(committed.size / duration, 1)} bookings/s, ${formatNumber(inLoad(sinks.messages), 1)} messages/s, ${formatNumber(inLoad(sinks.deliveries), 1)} webhook deliveries/s during the load; ` +
        `server CPU ${formatNumber(cpu / Math.max(1, committed.size))} µs/booking (jobs included); statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
    );
    console.log(
      `${dialect}: participant confirmations not yet accepted when the load stopped: ${backlogAtEnd}; still missing after draining: ${missingMail()}; outbox jobs due then, by kind: ${JSON.stringify(dueAtEnd)}`,
    );
    for (const [label, window] of [
      ['start', start],
      ['end', end],
    ] as const) {
      console.log(
        `${dialect}, ${label.padEnd(5)} (${window.mail.length} bookings): commit → SMTP p50 ${ms(percentile(window.mail, 50))}, p99 ${ms(percentile(window.mail, 99))}; ` +
          `commit → webhook p50 ${ms(percentile(window.hooks, 50))}, p99 ${ms(percentile(window.hooks, 99))}`,
      );
    }
    // --timeline: the same figures per 10 s of commits, to see how the delay moves (a start-up wave, an oscillating pace).
    if (timeline) {
      for (let from = began; from < ended; from += 10_000) {
        const window = delays(order.filter(([, at]) => at >= from && at < from + 10_000));
        console.log(
          `${dialect}, ${formatNumber((from - began) / 1000).padStart(3)}–${formatNumber((from - began) / 1000 + 10)} s (${window.mail.length} bookings): ` +
            `SMTP p50 ${ms(percentile(window.mail, 50))}, p99 ${ms(percentile(window.mail, 99))}; webhook p50 ${ms(percentile(window.hooks, 50))}, p99 ${ms(percentile(window.hooks, 99))}`,
        );
      }
    }
    const p99 = (window: typeof start) => Math.max(percentile(window.mail, 99), percentile(window.hooks, 99));
    return { startP99: p99(start), endP99: p99(end) };
  } finally {
    await server.stop();
    sinks.stop();
  }
}

async function serverCpu(url: string): Promise<{ user: number; system: number }> {
  return (await fetch(`${url}/bench/cpu`)).json() as Promise<{ user: number; system: number }>;
}

const only = argument('dialect') as BenchDialect | undefined;
const dialects: BenchDialect[] = only ? [only] : (await postgresReachable()) ? ['sqlite', 'postgres'] : ['sqlite'];
console.log(
  `Outbox under load${baseline ? ' (baseline: unpooled SMTP, one e-mail at a time)' : ''}: ${CONNECTIONS} connections booking for ${seconds} s, SMTP with STARTTLS + ${RECEIVERS} webhook receivers, Node ${process.version}, ${os.cpus().length} CPUs, load ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
const verdicts: string[] = [];
for (const dialect of dialects) {
  const { startP99, endP99 } = await runDialect(dialect);
  const pass = endP99 <= GOAL_P99_MS && startP99 <= GOAL_P99_MS;
  verdicts.push(`${dialect} p99 start ${ms(startP99)}, end ${ms(endP99)}, end/start ${formatNumber(endP99 / startP99, 2)}× ${pass ? 'PASS' : 'FAIL'}`);
}
if (!only && !dialects.includes('postgres')) verdicts.push('PostgreSQL not reachable: skipped');
console.log(`goal p99 ≤ 5 s at the end as at the start (commit → SMTP and → webhook): ${verdicts.join('; ')}`);
