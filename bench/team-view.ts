/**
 * The team view of POST /calculate-schedule on the server: a 50-host team topic, a month
 * in the participant's zone, 200 meetings booked across the team. Goal: ≤ 10 ms per team
 * month view. Prints the median of each case (in process, through the use case and through
 * `app.inject`, which adds routing, validation and serialisation):
 *   - cached: every host's entry and the merged view still valid (what most calls are);
 *   - one host changed: one host's calendar version moved (a booking), so one entry is
 *     computed again and the team view is merged again;
 *   - cold: every host's calendar version moved, so 50 host-months are computed and merged.
 * Run: npx tsx bench/team-view.ts [sqlite|postgres]
 */
import { bumpCalendarVersions } from '../src/db/repositories/busy-time.js';
import { calculateSchedule, findHostEntry, slotRulesOf } from '../src/scheduling/booking/calculate.js';
import { teamScheduleDays } from '../src/scheduling/booking/team-schedule.js';
import { resolveScheduleRange } from '../src/domain/schedule-range.js';
import { createKyselyReads } from '../src/db/fast-reads.js';
import { scheduleMeetings } from '../src/scheduling/booking/schedule-meetings.js';
import { authenticate } from '../src/scheduling/authenticate.js';
import { createBenchTeam, formatNumber, startBenchServer, type BenchDialect, timeMedian } from './support.js';

const dialect = (process.argv[2] ?? 'sqlite') as BenchDialect;
const HOSTS = 50;
const MEETINGS = 200;
const now = Date.parse('2027-02-20T10:00:00Z');

const server = await startBenchServer(dialect, { SCHEDULE_CACHE_MB: '256' });
const { ctx, app } = server;
const clock = now;
(ctx as { now: () => number }).now = () => clock;

const { created, headers, hostUuids } = await createBenchTeam(ctx, app, 'Bench team', HOSTS);
const topic = (
  await app.inject({
    method: 'POST',
    url: '/api/v1/meeting-topics',
    headers,
    payload: JSON.stringify({ name: 'Team call', durationMinutes: 30, team: created.team.uuid, places: ['zoom'], bookingWindowDays: 120 }),
  })
).json();
const principal = await authenticate(ctx, created.apiKey);

const input = { meetingTopic: topic.uuid as string, team: created.team.uuid, timezone: 'America/New_York', offset: 0, month: 3, year: 2027 };
// 200 meetings spread over the team's March, booked on the slots the team view names.
const march = await calculateSchedule(ctx, null, input);
const offered = march.days.flatMap((day) => day.slots);
for (let i = 0; i < MEETINGS; i += 1) {
  const slot = offered[Math.floor((i * offered.length) / MEETINGS)]!;
  await scheduleMeetings(ctx, principal, {
    dates: [slot],
    email: `p${i}@example.com`,
    lang: 'en',
    name: `P ${i}`,
    place: 'zoom',
    meetingTopic: topic.uuid,
    team: created.team.uuid,
    timezone: 'Europe/Warsaw',
  });
}

const nothing = async () => undefined;
let turn = 0;
const oneHostChanged = async () => {
  await bumpCalendarVersions(ctx.db, [hostUuids[turn++ % HOSTS]!]);
};
const allChanged = async () => {
  await bumpCalendarVersions(ctx.db, hostUuids);
};
const useCase = () => calculateSchedule(ctx, null, input);
const http = async () => {
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/calculate-schedule',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    payload: JSON.stringify(input),
  });
  if (response.statusCode !== 200) throw new Error(response.body);
};

const view = await useCase();
const slots = view.days.reduce((sum, day) => sum + day.slots.length, 0);
// The merge alone, on the 50 host entries the view was served from.
const reads = ctx.reads ?? createKyselyReads(ctx.db);
const found = (await reads.findTopic(null, topic.uuid))!;
const range = resolveScheduleRange({ now: clock, timezone: input.timezone, offset: 0, month: input.month, year: input.year });
const entries = await Promise.all(found.hosts.map((host) => findHostEntry(ctx, reads, host, slotRulesOf(found), input.timezone, range, clock)));
// Warm up the JIT before measuring.
await timeMedian(50, oneHostChanged, useCase);
const single = { ...input, username: created.owner.username };
const singleHttp = async () => {
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/calculate-schedule',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    payload: JSON.stringify(single),
  });
  if (response.statusCode !== 200) throw new Error(response.body);
};
const rows: [string, number, number][] = [
  ['one host, cached (ref.)', await timeMedian(500, nothing, () => calculateSchedule(ctx, null, single)), await timeMedian(500, nothing, singleHttp)],
  [
    'one host, changed (ref.)',
    await timeMedian(
      200,
      async () => bumpCalendarVersions(ctx.db, [created.owner.uuid]),
      () => calculateSchedule(ctx, null, single),
    ),
    await timeMedian(200, async () => bumpCalendarVersions(ctx.db, [created.owner.uuid]), singleHttp),
  ],
  ['merge only (50 entries)', await timeMedian(200, nothing, async () => teamScheduleDays(entries, range)), Number.NaN],
  ['cached', await timeMedian(500, nothing, useCase), await timeMedian(500, nothing, http)],
  ['one host changed', await timeMedian(200, oneHostChanged, useCase), await timeMedian(200, oneHostChanged, http)],
  ['cold (50 hosts changed)', await timeMedian(30, allChanged, useCase), await timeMedian(30, allChanged, http)],
];
console.log(`team month view [${dialect}]: ${HOSTS} hosts, ${MEETINGS} meetings, ${slots} slots offered, zone America/New_York`);
console.log('case                       use case (ms)   HTTP inject (ms)   goal ≤ 10 ms');
for (const [name, direct, viaHttp] of rows) {
  console.log(
    `${name.padEnd(26)} ${formatNumber(direct, 3).padStart(13)}   ${(Number.isNaN(viaHttp) ? '–' : formatNumber(viaHttp, 3)).padStart(16)}   ${Number.isNaN(viaHttp) ? '' : viaHttp <= 10 ? 'met' : 'missed'}`,
  );
}
await server.close();
