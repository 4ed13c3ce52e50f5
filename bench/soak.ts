/**
 * Soak: mixed traffic at high concurrency against a server in its own process, for a
 * while, printing throughput, p99, error counts and the server's RSS over time (read from
 * its own /metrics, so the figure is the server's, not this load generator's).
 * Run: npx tsx bench/soak.ts [seconds=120] [dialect=sqlite] [connections=200]  (at most 600 s)
 *
 * The mix, per round of requests on each connection: calculate a week view (a different
 * offset each time) and a month view, book a slot (each free slot once, taken from month
 * views computed beforehand; when they run out, a taken slot: 409), list meetings, and a
 * request with a made-up key (401, and 429 once the address's failure allowance is spent).
 */
import autocannon from 'autocannon';
import { formatNumber, spawnBenchServer, type BenchDialect } from './support.js';

const seconds = Math.min(600, Math.max(5, Number(process.argv[2] ?? 120)));
const dialect = (process.argv[3] ?? 'sqlite') as BenchDialect;
const connections = Number(process.argv[4] ?? 200);
const SAMPLE_EVERY_MS = Math.max(5_000, Math.round((seconds * 1000) / 12));

// Made-up keys would come from many addresses in life; from this one address they would
// trip the per-address failure limit and lock the valid key out too, so that limit is off.
const server = await spawnBenchServer({ BENCH_DIALECT: dialect, BENCH_SEED: 'calendar', BENCH_SERVER_ENV: JSON.stringify({ AUTH_FAILURES_PER_MINUTE: '0' }) });
try {
  const { url, apiKey, topic, team, usernames, month } = server.info;
  const json = { 'content-type': 'application/json', accept: 'application/json' };
  const calculateBody = (extra: Record<string, unknown>) => JSON.stringify({ username: usernames[0], meetingTopic: topic, team, timezone: 'Europe/Warsaw', offset: 0, ...extra });

  // Free slots to book, each once: the next months' month views.
  const slots: { start: string; username: string }[] = [];
  for (let m = month; m < month + 4; m += 1) {
    const response = await fetch(`${url}/api/v1/calculate-schedule`, { method: 'POST', headers: json, body: calculateBody({ month: m }) });
    const body = (await response.json()) as { days: { slots: { start: string; username: string }[] }[] };
    slots.push(...body.days.flatMap((day) => day.slots));
  }
  let nextSlot = 0;
  let week = 0;

  const rss: { at: number; mb: number }[] = [];
  const sampleRss = async () => {
    const text = await (await fetch(`${url}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith('process_resident_memory_bytes '));
    if (line) rss.push({ at: Math.round((Date.now() - started) / 1000), mb: Number(line.split(' ')[1]) / 1024 / 1024 });
  };
  const started = Date.now();
  await sampleRss();
  const sampler = setInterval(() => void sampleRss().catch(() => undefined), SAMPLE_EVERY_MS);

  const statuses = new Map<string, Map<number, number>>();
  const count = (name: string, status: number) => {
    const byStatus = statuses.get(name) ?? new Map<number, number>();
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    statuses.set(name, byStatus);
  };
  const requests: autocannon.Request[] = [
    {
      method: 'POST',
      path: '/api/v1/calculate-schedule',
      headers: json,
      setupRequest: (r) => ({ ...r, body: calculateBody({ offset: 7 * (week++ % 40) }) }),
      onResponse: (s) => count('calculate week', s),
    },
    { method: 'POST', path: '/api/v1/calculate-schedule', headers: json, body: calculateBody({ month }), onResponse: (s) => count('calculate month', s) },
    {
      method: 'POST',
      path: '/api/v1/schedule',
      headers: { ...json, 'x-service-api-key': apiKey },
      setupRequest: (r) => {
        const slot = slots[nextSlot % Math.max(1, slots.length)];
        nextSlot += 1;
        return {
          ...r,
          body: JSON.stringify({ dates: [slot], email: 'soak@example.com', lang: 'en', name: 'Soak', place: 'zoom', meetingTopic: topic, team, timezone: 'Europe/Warsaw' }),
        };
      },
      onResponse: (s) => count('book', s),
    },
    { method: 'GET', path: '/api/v1/meetings?limit=50', headers: { accept: 'application/json', 'x-service-api-key': apiKey }, onResponse: (s) => count('list meetings', s) },
    { method: 'GET', path: '/api/v1/teams', headers: { accept: 'application/json', 'x-service-api-key': 'tk_not_a_real_key_0000' }, onResponse: (s) => count('bad key', s) },
  ];

  const result = await autocannon({ url, connections, duration: seconds, requests });
  clearInterval(sampler);
  await sampleRss();

  console.log(`Soak, ${dialect}, ${connections} connections, ${seconds} s, server in its own process, Node ${process.version}; ${slots.length} free slots to book`);
  console.log(
    `throughput ${formatNumber(result.requests.average)} req/s (${formatNumber(result.requests.total)} requests), latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms`,
  );
  console.log(`errors: ${result.errors} socket errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx answers`);
  console.log('request'.padEnd(18), 'answers by status');
  for (const [name, byStatus] of statuses) {
    console.log(
      name.padEnd(18),
      [...byStatus]
        .sort(([a], [b]) => a - b)
        .map(([status, n]) => `${status}: ${formatNumber(n)}`)
        .join('  '),
    );
  }
  console.log('server RSS over time:', rss.map((s) => `${s.at}s ${formatNumber(s.mb)} MB`).join(' · '));
} finally {
  await server.stop();
}
