/**
 * What explaining one start costs next to computing that host's day (issue 29: "explaining
 * one start reads no more than computing that host's day"). In process, at the use-case
 * level, on SQLite and (when it answers) PostgreSQL: a host with 40 meetings in March 2027
 * (Mon–Fri 09:00–17:00 Europe/Warsaw, 30-minute topic); for each of SAMPLES starts on that
 * month's working days, alternately:
 * - explain: explainSchedule for the start, as the host's own key asks;
 * - one-day calculate: the topic read plus computeTopicSchedule for the start's local date
 *   with an empty schedule cache (a cold day, as a booking page's first look computes it).
 * Reads are counted per call: FastReads calls (prepared statements on SQLite) plus the
 * statements run through Kysely. Printed: mean/p50 ms and reads of each, then the ratio of
 * explain to one-day calculate (mean time) as the last line.
 *
 * Run: npx tsx bench/explain-cost.ts [sqlite|postgres|both]   EXPLAIN_SAMPLES=300 sets the samples.
 */
import { DateTime } from 'luxon';
import type { Kysely } from 'kysely';
import type { Database } from '../src/db/database.js';
import type { FastReads } from '../src/db/fast-reads.js';
import { insertMeetings } from '../src/db/repositories/meetings.js';
import { computeTopicSchedule } from '../src/scheduling/booking/calculate.js';
import { createAccount } from '../src/scheduling/account/create-account.js';
import { explainSchedule } from '../src/scheduling/booking/explain.js';
import { createMeetingTopic } from '../src/scheduling/topics/meeting-topics.js';
import { createScheduleCache } from '../src/scheduling/booking/cache.js';
import { benchMeeting, formatNumber, postgresReachable, startBenchServer, workingHalfHours, type BenchDialect } from './support.js';

const which = process.argv[2] ?? 'both';
const SAMPLES = Number(process.env.EXPLAIN_SAMPLES ?? 300);
const NOW = Date.parse('2027-02-20T10:00:00Z');
const ZONE = 'Europe/Warsaw';

const HALF_HOURS = workingHalfHours('2027-03-01', ZONE);

interface Measured {
  ms: number[];
  reads: number[];
}

async function runDialect(dialect: BenchDialect): Promise<{ explain: Measured; day: Measured }> {
  const server = await startBenchServer(dialect);
  const { ctx } = server;
  try {
    const created = await createAccount(ctx, {
      name: 'Explain',
      ownerEmail: 'owner@bench.test',
      ownerFirstName: 'Olga',
      ownerLastName: 'Owner',
      maxUsers: 2,
      timezone: ZONE,
      places: ['zoom'],
    });
    const principal = { keyUuid: '', userUuid: created.owner.uuid, accountUuid: created.account.uuid, username: created.owner.username };
    const topic = await createMeetingTopic({ ...ctx, now: () => NOW }, principal, { name: 'Consultation', durationMinutes: 30, bookingWindowDays: 120, places: ['zoom'] });
    const meetings = HALF_HOURS.filter((_, i) => i % 8 === 3).map((start) =>
      benchMeeting({ accountUuid: created.account.uuid, topicUuid: topic.uuid, teamUuid: null, host: created.owner, start, now: NOW }),
    );
    await insertMeetings(ctx.db, meetings);

    // Counting wrappers: every FastReads call and every statement Kysely runs.
    let reads = 0;
    const countedReads = new Proxy(ctx.reads, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        if (typeof value !== 'function' || name === 'close') return value;
        return (...args: unknown[]) => {
          reads += 1;
          return value.apply(target, args);
        };
      },
    }) as FastReads;
    const countedDb = ctx.db.withPlugin({
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        reads += 1;
        return args.result;
      },
    }) as Kysely<Database>;
    const counted = { now: () => NOW, db: countedDb, reads: countedReads };

    const explain: Measured = { ms: [], reads: [] };
    const day: Measured = { ms: [], reads: [] };
    const warm = Math.min(30, SAMPLES);
    for (let i = 0; i < SAMPLES + warm; i += 1) {
      const start = HALF_HOURS[(i * 37) % HALF_HOURS.length]!;
      const date = DateTime.fromMillis(start, { zone: ZONE }).toISODate()!;
      reads = 0;
      let began = performance.now();
      await explainSchedule(counted, principal, { username: created.owner.username, meetingTopic: topic.uuid, start: new Date(start).toISOString() });
      const explainMs = performance.now() - began;
      const explainReads = reads;
      reads = 0;
      began = performance.now();
      const found = await countedReads.findTopic(created.account.uuid, topic.uuid, created.owner.username);
      await computeTopicSchedule({ db: countedDb, scheduleCache: createScheduleCache() }, countedReads, found!, created.owner.username, ZONE, { from: date, to: date }, NOW);
      const dayMs = performance.now() - began;
      if (i < warm) continue;
      explain.ms.push(explainMs);
      explain.reads.push(explainReads);
      day.ms.push(dayMs);
      day.reads.push(reads);
    }
    return { explain, day };
  } finally {
    await server.close();
  }
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const p50 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const dialects: BenchDialect[] = which === 'both' ? ['sqlite', 'postgres'] : [which as BenchDialect];
console.log(`explain one start vs compute the host's day (cold), ${SAMPLES} samples each, Node ${process.version}`);
console.log('dialect    case                 mean ms   p50 ms   reads/call');
let ratio = Number.NaN;
for (const dialect of dialects) {
  if (dialect === 'postgres' && !(await postgresReachable())) {
    console.log('postgres   (not reachable: skipped)');
    continue;
  }
  const { explain, day } = await runDialect(dialect);
  for (const [name, measured] of [
    ['explain', explain],
    ['one-day calculate', day],
  ] as const) {
    console.log(
      `${dialect.padEnd(10)} ${name.padEnd(18)} ${formatNumber(mean(measured.ms), 3).padStart(9)} ${formatNumber(p50(measured.ms), 3).padStart(8)} ${formatNumber(mean(measured.reads), 1).padStart(12)}`,
    );
  }
  ratio = mean(explain.ms) / mean(day.ms);
  console.log(`${dialect.padEnd(10)} explain ÷ one-day: time ${ratio.toFixed(2)}×, reads ${(mean(explain.reads) / mean(day.reads)).toFixed(2)}×`);
}
console.log(`ratio explain/one-day calculate (last dialect, mean time): ${ratio.toFixed(2)}`);
