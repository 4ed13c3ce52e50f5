/**
 * The cold month view: POST /api/v1/calculate-schedule for one host's month that no cache
 * holds, next to the same host's cached (warm) month view, on SQLite and PostgreSQL.
 *
 * What "cold" is here: the first month view of a host in this process. Every host is
 * viewed cold exactly once, and no request has ever named its schedule-cache key (host,
 * topic rules, zone, month), so the lookup misses outright (not a stale entry after a
 * calendar-version bump); checked on every view through the cache's own lookup/store counts.
 * Process-wide state a running server has anyway stays warm: the JIT, the zone-offset cache
 * of America/New_York and Europe/Warsaw, prepared statements (a warm-up team is viewed first).
 * So a cold view here is: the topic and its hosts read (as on every view; with one-host teams
 * each view is also its topic's first, so the topic row is parsed too), the host's hours and
 * busy time read, the month's slots computed, the entry stored, the response serialised.
 * Entries live only for the minute they were computed in (validUntil in
 * src/scheduling/booking/calculate.ts), so a host viewed less than once a minute pays about
 * this on every view, not only on its first.
 *
 * "N distinct hosts": a team of N hosts with one team topic (all members host it), each
 * host's own month viewed by username, one host after another; teams of N are added until
 * every case has about SAMPLES cold views (1 host: 200 one-host accounts; 100 hosts: 2 teams).
 * Each host's month is realistic: default hours (Mon–Fri 09:00–17:00 Europe/Warsaw), 30-minute
 * topic, 40 confirmed meetings on distinct half hours spread over March 2027's working days;
 * the participant's zone is America/New_York (both zones change clocks in March), the clock
 * is fixed at 2027-02-20 10:00 UTC, so no entry expires during the run.
 *
 * Timing: in process, `app.inject` (routing, body validation, the use case with its
 * database reads, JSON serialisation; no socket), one view at a time. Right after each cold
 * view the same request is sent WARM_REPEATS more times: those are the warm samples.
 * Printed per case: mean, p50 and p99 in ms per view, cold and warm, and cold ÷ warm.
 *
 * Run: npx tsx bench/cold-month.ts [sqlite|postgres|both]   (default both; PostgreSQL is
 * skipped when BENCH_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/postgres, is
 * not reachable). COLD_SAMPLES=200 sets the cold views per case.
 */
import os from 'node:os';
import { insertMeetings } from '../src/db/repositories/meetings.js';
import { createAccount } from '../src/scheduling/account/create-account.js';
import { createMeetingTopic } from '../src/scheduling/topics/meeting-topics.js';
import { addTeamMember } from '../src/scheduling/account/teams.js';
import { benchMeeting, formatNumber, postgresReachable, startBenchServer, workingHalfHours, type BenchDialect } from './support.js';

const which = process.argv[2] ?? 'both';
const SAMPLES = Number(process.env.COLD_SAMPLES ?? 200);
const TEAM_SIZES = [1, 10, 100];
const MEETINGS_PER_HOST = 40;
const WARM_REPEATS = 5;
const WARMUP_HOSTS = 30;
const NOW = Date.parse('2027-02-20T10:00:00Z');
const HOST_ZONE = 'Europe/Warsaw';
const VIEW = { timezone: 'America/New_York', offset: 0, month: 3, year: 2027 };

interface Stats {
  mean: number;
  p50: number;
  p99: number;
}
interface CaseResult {
  hosts: number;
  views: number;
  slots: number;
  cold: Stats;
  warm: Stats;
}

function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
  return { mean: samples.reduce((sum, x) => sum + x, 0) / samples.length, p50: rank(0.5), p99: rank(0.99) };
}

/** A small deterministic generator, so every run seeds the same calendars. */
function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

// The host-local half hours of March 2027's working days (Mon–Fri 09:00–17:00 Warsaw).
const HALF_HOURS = workingHalfHours('2027-03-01', HOST_ZONE);

async function runDialect(dialect: BenchDialect): Promise<{ results: CaseResult[]; setupMs: number }> {
  const server = await startBenchServer(dialect);
  const { ctx, app } = server;
  (ctx as { now: () => number }).now = () => NOW;
  const cache = ctx.scheduleCache!;
  let seedNumber = 1;
  let teamNumber = 0;

  /** A new account whose team of `size` hosts has one team topic; each host gets its month of meetings. */
  async function createTeam(size: number) {
    teamNumber += 1;
    const created = await createAccount(ctx, {
      name: `Cold ${teamNumber}`,
      ownerEmail: `owner${teamNumber}@bench.test`,
      ownerFirstName: 'Olga',
      ownerLastName: `Owner ${teamNumber}`,
      maxUsers: size + 1,
      timezone: HOST_ZONE,
      places: ['zoom'],
    });
    const owner = { keyUuid: '', userUuid: created.owner.uuid, accountUuid: created.account.uuid, username: created.owner.username };
    for (let i = 1; i < size; i += 1)
      await addTeamMember(ctx, owner, created.team.uuid, { firstName: 'Host', lastName: `Number ${i}`, email: `host${i}.team${teamNumber}@bench.test` });
    const topic = await createMeetingTopic(ctx, owner, { name: 'Consultation', durationMinutes: 30, bookingWindowDays: 120, places: ['zoom'], team: created.team.uuid });
    if (topic.hosts.length !== size) throw new Error(`team of ${size} has ${topic.hosts.length} hosts`);
    for (const host of topic.hosts) {
      const next = random(seedNumber++);
      const picked = new Set<number>();
      while (picked.size < MEETINGS_PER_HOST) picked.add(HALF_HOURS[Math.floor(next() * HALF_HOURS.length)]!);
      const meetings = [...picked]
        .sort((a, b) => a - b)
        .map((start) => benchMeeting({ accountUuid: created.account.uuid, topicUuid: topic.uuid, teamUuid: created.team.uuid, host, start, now: NOW }));
      await insertMeetings(ctx.db, meetings);
    }
    return { team: created.team.uuid, topic: topic.uuid, usernames: topic.hosts.map((host) => host.username) };
  }

  const headers = { 'content-type': 'application/json', accept: 'application/json' };
  /** One month view through the whole HTTP stack in process: its time in ms and its slot count. */
  async function view(payload: string): Promise<{ ms: number; slots: number }> {
    const start = performance.now();
    const response = await app.inject({ method: 'POST', url: '/api/v1/calculate-schedule', headers, payload });
    const ms = performance.now() - start;
    if (response.statusCode !== 200) throw new Error(`${response.statusCode} ${response.body}`);
    const slots = (response.body.match(/"start"/g) ?? []).length;
    return { ms, slots };
  }
  /** Views every host of the team: cold once, then warm; checks each was the miss or hit it should be. */
  async function measureTeam(team: Awaited<ReturnType<typeof createTeam>>, cold: number[], warm: number[]): Promise<number> {
    let slots = 0;
    for (const username of team.usernames) {
      const payload = JSON.stringify({ username, meetingTopic: team.topic, team: team.team, ...VIEW });
      const before = cache.traffic!();
      const first = await view(payload);
      const after = cache.traffic!();
      if (after.lookups - before.lookups !== 1 || after.stores - before.stores !== 1) throw new Error('a cold view did not miss the schedule cache');
      cold.push(first.ms);
      slots += first.slots;
      for (let i = 0; i < WARM_REPEATS; i += 1) {
        const again = await view(payload);
        if (again.slots !== first.slots) throw new Error('the warm view differs from the cold one');
        warm.push(again.ms);
      }
      const end = cache.traffic!();
      if (end.stores !== after.stores) throw new Error('a warm view missed the schedule cache');
    }
    return slots;
  }

  const setupStart = performance.now();
  const plans = TEAM_SIZES.map((size) => ({ size, teams: [] as Awaited<ReturnType<typeof createTeam>>[] }));
  const warmupTeam = await createTeam(WARMUP_HOSTS);
  for (const plan of plans) for (let i = 0; i < Math.ceil(SAMPLES / plan.size); i += 1) plan.teams.push(await createTeam(plan.size));
  const setupMs = performance.now() - setupStart;

  // Warm-up: JIT, prepared statements, the zone-offset caches, as on a server already running.
  await measureTeam(warmupTeam, [], []);
  const results: CaseResult[] = [];
  for (const plan of plans) {
    const cold: number[] = [];
    const warm: number[] = [];
    let slots = 0;
    for (const team of plan.teams) slots += await measureTeam(team, cold, warm);
    results.push({ hosts: plan.size, views: cold.length, slots: Math.round(slots / cold.length), cold: stats(cold), warm: stats(warm) });
  }
  await server.close();
  return { results, setupMs };
}

const dialects: BenchDialect[] = which === 'both' ? ['sqlite', 'postgres'] : [which as BenchDialect];
console.log(
  `cold vs warm month view, POST /api/v1/calculate-schedule timed in process with app.inject (routing, validation, use case, database reads, serialisation; no socket), Node ${process.version}`,
);
// p99 and the means follow the machine's load (a descheduled view counts whole): compare runs by p50, and by the load printed here.
const load = () => `load average ${formatNumber(os.loadavg()[0]!, 1)} on ${os.cpus().length} CPUs`;
console.log(`${load()} at start`);
console.log(
  `each host: ${MEETINGS_PER_HOST} meetings in March 2027 (Mon–Fri 09–17 ${HOST_ZONE}), viewed in ${VIEW.timezone}; cold = the host's first view (a schedule-cache miss), warm = the next ${WARM_REPEATS} identical views (hits)`,
);
const header = `${'dialect'.padEnd(9)}${'hosts'.padStart(6)}${'views'.padStart(7)}${'slots'.padStart(7)}  ${'cold ms: mean'.padStart(13)}${'p50'.padStart(8)}${'p99'.padStart(8)}  ${'warm ms: mean'.padStart(13)}${'p50'.padStart(8)}${'p99'.padStart(8)}  ${'cold/warm: mean'.padStart(15)}${'p50'.padStart(7)}${'p99'.padStart(7)}`;
let printedHeader = false;
for (const dialect of dialects) {
  if (dialect === 'postgres' && !(await postgresReachable())) {
    console.log('postgres: not reachable, skipped');
    continue;
  }
  const { results, setupMs } = await runDialect(dialect);
  if (!printedHeader) console.log(header);
  printedHeader = true;
  for (const r of results) {
    const ms = (value: number, width: number) => formatNumber(value, 3).padStart(width);
    const ratio = (value: number, width: number) => `${formatNumber(value, 1)}×`.padStart(width);
    console.log(
      `${dialect.padEnd(9)}${String(r.hosts).padStart(6)}${String(r.views).padStart(7)}${String(r.slots).padStart(7)}  ${ms(r.cold.mean, 13)}${ms(r.cold.p50, 8)}${ms(r.cold.p99, 8)}  ${ms(r.warm.mean, 13)}${ms(r.warm.p50, 8)}${ms(r.warm.p99, 8)}  ${ratio(r.cold.mean / r.warm.mean, 15)}${ratio(r.cold.p50 / r.warm.p50, 7)}${ratio(r.cold.p99 / r.warm.p99, 7)}`,
    );
  }
  console.log(`${dialect.padEnd(9)}(setup: ${formatNumber(setupMs / 1000, 1)} s to seed the teams; ${load()})`);
}
