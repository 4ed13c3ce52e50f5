/**
 * A 10-host collective topic's month view against a 10-host round-robin team view (issue 26).
 * One account of 10 hosts with a week of meetings each (other topics' bookings, spread over
 * March), two team topics on the same hosts: round robin (the reference) and collective. Prints
 * the median of each view through the use case (in process), computed afresh after one host's
 * calendar changed (its version moved, as after a booking), after all ten changed, and cached,
 * for both the team view and one host's own view of the collective topic. The last line is the
 * ratio collective / round robin, both computed afresh after one host changed.
 * Run: npx tsx bench/collective-view.ts [sqlite|postgres]
 */
import { bumpCalendarVersions } from '../src/db/repositories/busy-time.js';
import { calculateSchedule } from '../src/scheduling/booking/calculate.js';
import { scheduleMeetings } from '../src/scheduling/booking/schedule-meetings.js';
import { authenticate } from '../src/scheduling/authenticate.js';
import { createBenchTeam, createBenchTopic, formatNumber, startBenchServer, type BenchDialect, timeMedian } from './support.js';

const dialect = (process.argv[2] ?? 'sqlite') as BenchDialect;
const HOSTS = 10;
const MEETINGS_PER_HOST = 12;
const now = Date.parse('2027-02-20T10:00:00Z');

const server = await startBenchServer(dialect, { SCHEDULE_CACHE_MB: '256' });
const { ctx, app } = server;
(ctx as { now: () => number }).now = () => now;

const { created, headers, hosts } = await createBenchTeam(ctx, app, 'Bench collective', HOSTS);
const createTopic = (fields: Record<string, unknown>) => createBenchTopic(app, headers, fields);
const roundRobin = await createTopic({ name: 'Team call', team: created.team.uuid });
const collective = await createTopic({ name: 'Panel', team: created.team.uuid, assignment: 'collective' });
const busyTopic = await createTopic({ name: 'Other work', team: created.team.uuid });
const principal = await authenticate(ctx, created.apiKey);

const month = { timezone: 'America/New_York', offset: 0, month: 3, year: 2027 };
const teamInput = { meetingTopic: roundRobin.uuid, team: created.team.uuid, ...month };
const collectiveInput = { meetingTopic: collective.uuid, team: created.team.uuid, ...month };
const hostInput = { ...collectiveInput, username: hosts[3]!.username };
// Each host gets meetings of another topic at different times of March: the intersection has holes.
for (const [h, host] of hosts.entries()) {
  const own = (await calculateSchedule(ctx, null, { ...teamInput, meetingTopic: busyTopic.uuid, username: host.username })).days.flatMap((day) => day.slots);
  for (let m = 0; m < MEETINGS_PER_HOST; m += 1) {
    const slot = own[Math.floor(((m * HOSTS + h) * own.length) / (MEETINGS_PER_HOST * HOSTS))]!;
    await scheduleMeetings(ctx, principal, {
      dates: [{ start: slot.start, username: host.username }],
      email: `p${h}-${m}@example.com`,
      lang: 'en',
      name: `P ${h} ${m}`,
      place: 'zoom',
      meetingTopic: busyTopic.uuid,
      team: created.team.uuid,
      timezone: 'Europe/Warsaw',
    });
  }
}

const nothing = async () => undefined;
let turn = 0;
const oneHostChanged = async () => bumpCalendarVersions(ctx.db, [hosts[turn++ % HOSTS]!.uuid]);
const allChanged = async () =>
  bumpCalendarVersions(
    ctx.db,
    hosts.map((host) => host.uuid),
  );
const teamView = () => calculateSchedule(ctx, null, teamInput);
const collectiveView = () => calculateSchedule(ctx, null, collectiveInput);
const hostView = () => calculateSchedule(ctx, null, hostInput);

const teamSlots = (await teamView()).days.flatMap((day) => day.slots).length;
const collectiveSlots = (await collectiveView()).days.flatMap((day) => day.slots).length;
// Warm up the JIT before measuring.
await timeMedian(50, oneHostChanged, teamView);
await timeMedian(50, oneHostChanged, collectiveView);
await timeMedian(50, oneHostChanged, hostView);
const rows: [string, number][] = [
  [`round-robin team view, one host changed`, await timeMedian(200, oneHostChanged, teamView)],
  [`round-robin team view, all changed`, await timeMedian(40, allChanged, teamView)],
  ['round-robin team view, cached', await timeMedian(500, nothing, teamView)],
  [`collective team view, one host changed`, await timeMedian(200, oneHostChanged, collectiveView)],
  [`collective team view, all changed`, await timeMedian(40, allChanged, collectiveView)],
  ['collective team view, cached', await timeMedian(500, nothing, collectiveView)],
  ["collective host's view, one host changed", await timeMedian(200, oneHostChanged, hostView)],
  ["collective host's view, cached", await timeMedian(500, nothing, hostView)],
];
console.log(
  `month views [${dialect}]: ${HOSTS} hosts with ${MEETINGS_PER_HOST} meetings each; round robin offers ${teamSlots} slots, collective ${collectiveSlots}; zone America/New_York`,
);
for (const [name, ms] of rows) console.log(`${name.padEnd(44)} ${formatNumber(ms, 3).padStart(10)} ms`);
const ratio = rows[3]![1] / rows[0]![1];
console.log(`ratio collective / round-robin team view (both computed afresh, one host changed): ${formatNumber(ratio, 2)}`);
await server.close();
