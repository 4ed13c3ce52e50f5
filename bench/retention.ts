/**
 * Retention's cost (issue 39): an account keeping participants' data 365 days, with N past
 * meetings (default 100,000) that ended longer ago than that, each with its own participant.
 * Prints how long erasing them takes and, for bookings made meanwhile by the same process
 * (the background runs in the server's process), their p50/p99 latency against the same
 * bookings without a retention run, as a ratio. SQLite, and PostgreSQL when reachable.
 * Seeded meetings have no events, webhook deliveries or e-mails of their own, so each
 * erasure scrubs only the meeting row and looks for copies it does not find: real meetings
 * cost somewhat more per meeting.
 * Run: npx tsx bench/retention.ts [meetings] [bookings]
 */
import { writeAccountChanges } from '../src/db/repositories/accounts.js';
import { insertMeetings } from '../src/db/repositories/meetings.js';
import { applyRetention } from '../src/scheduling/participants/retention.js';
import { benchMeeting, createBenchTeam, createBenchTopic, formatNumber, postgresReachable, startBenchServer, type BenchDialect } from './support.js';

const MEETINGS = Number(process.argv[2] ?? 100_000);
const BOOKINGS = Number(process.argv[3] ?? 400);
const DAY = 86_400_000;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function run(dialect: BenchDialect) {
  const server = await startBenchServer(dialect);
  try {
    const { ctx, app } = server;
    const { created, headers, hosts } = await createBenchTeam(ctx, app, 'Retention', 10);
    const topic = await createBenchTopic(app, headers, { name: 'Team call', team: created.team.uuid });
    const now = Date.now();
    // N meetings, 10 hosts, all ended 400-800 days ago.
    const seeded = Array.from({ length: MEETINGS }, (_, i) => {
      const meeting = benchMeeting({
        accountUuid: created.account.uuid,
        topicUuid: topic.uuid,
        teamUuid: created.team.uuid,
        host: hosts[i % hosts.length]!,
        start: now - 800 * DAY + i * 60_000,
        now: now - 900 * DAY,
      });
      return {
        ...meeting,
        participant: { ...meeting.participant, name: `Participant ${i}`, email: `p${i}@bench.test`, phone: '+48600100200' },
        note: 'note',
        form: { company: `C${i}` },
      };
    });
    for (let i = 0; i < seeded.length; i += 500) await insertMeetings(ctx.db, seeded.slice(i, i + 500));
    await writeAccountChanges(ctx.db, created.account.uuid, { participantDataDays: 365 });

    // Bookings of distinct future half hours, round robin over the team, a few at a time.
    let slot = 0;
    const firstDay = Math.ceil(now / DAY) * DAY + DAY;
    // Each booking a distinct host and half hour 08:00-16:00 UTC (Warsaw 09:00-17:00) on a weekday.
    const weekdays = Array.from({ length: 400 }, (_, d) => firstDay + d * DAY).filter((day) => new Date(day).getUTCDay() % 6 !== 0);
    const nextBody = () => {
      const i = slot++;
      const host = hosts[i % hosts.length]!;
      const k = Math.floor(i / hosts.length);
      const start = new Date(weekdays[Math.floor(k / 16)]! + (16 + (k % 16)) * 30 * 60_000).toISOString();
      return JSON.stringify({
        dates: [{ start, username: host.username }],
        email: `b${i}@bench.test`,
        lang: 'en',
        name: 'B',
        place: 'zoom',
        meetingTopic: topic.uuid,
        team: created.team.uuid,
        timezone: 'UTC',
      });
    };
    const book = async (count: number, stop?: () => boolean) => {
      const latencies: number[] = [];
      const statuses = new Map<number, number>();
      const worker = async () => {
        while (latencies.length < count && !stop?.()) {
          const started = performance.now();
          const response = await app.inject({ method: 'POST', url: '/api/v1/schedule', headers, payload: nextBody() });
          latencies.push(performance.now() - started);
          statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
        }
      };
      await Promise.all(Array.from({ length: 4 }, worker));
      return { latencies, statuses };
    };

    await book(50); // warm-up
    const alone = await book(BOOKINGS);
    let done = false;
    const started = performance.now();
    const retention = applyRetention(ctx).finally(() => {
      done = true;
    });
    const during = await book(BOOKINGS, () => done);
    const result = await retention;
    const seconds = (performance.now() - started) / 1000;
    const erased = result.accounts.reduce((sum, account) => sum + account.erased, 0);
    const p = (values: number[], q: number) => percentile(values, q);
    console.log(
      `${dialect.padEnd(9)} erased ${formatNumber(erased)} meetings in ${formatNumber(seconds, 1)} s (${formatNumber(erased / seconds)}/s)`,
      `| bookings alone p50 ${formatNumber(p(alone.latencies, 50), 1)} ms p99 ${formatNumber(p(alone.latencies, 99), 1)} ms`,
      `| during retention (${during.latencies.length}) p50 ${formatNumber(p(during.latencies, 50), 1)} ms p99 ${formatNumber(p(during.latencies, 99), 1)} ms`,
      `| p99 ratio ${formatNumber(p(during.latencies, 99) / p(alone.latencies, 99), 2)}`,
      JSON.stringify({ alone: Object.fromEntries(alone.statuses), during: Object.fromEntries(during.statuses) }),
    );
  } finally {
    await server.close();
  }
}

console.log(`retention: ${MEETINGS} past meetings, bookings 4 at a time in the same process`);
await run('sqlite');
if (await postgresReachable()) await run('postgres');
