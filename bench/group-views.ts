/**
 * A 1000-seat topic's month view against today's team view (issue 26, goal: within 2×).
 * One account, a 10-host team topic (round robin, the reference) and a 1000-seat group
 * topic of the owner with 400 participants held in 40 groups over the month. Prints the
 * median of each case through the use case (in process), each computed afresh (the host's
 * calendar version moved first, as after a booking), then cached; the last line is the ratio
 * of the seated view to the team view, computed afresh.
 * A 10-host collective topic's view: bench/collective-view.ts.
 * Run: npx tsx bench/group-views.ts [sqlite|postgres]
 */
import { bumpCalendarVersions } from '../src/db/repositories/busy-time.js';
import { calculateSchedule } from '../src/scheduling/booking/calculate.js';
import { scheduleMeetings } from '../src/scheduling/booking/schedule-meetings.js';
import { authenticate } from '../src/scheduling/authenticate.js';
import { createBenchTeam, createBenchTopic, formatNumber, startBenchServer, type BenchDialect, timeMedian } from './support.js';

const dialect = (process.argv[2] ?? 'sqlite') as BenchDialect;
const HOSTS = 10;
const GROUPS = 40;
const PER_GROUP = 10;
const now = Date.parse('2027-02-20T10:00:00Z');

const server = await startBenchServer(dialect, { SCHEDULE_CACHE_MB: '256' });
const { ctx, app } = server;
(ctx as { now: () => number }).now = () => now;

const { created, headers, hostUuids } = await createBenchTeam(ctx, app, 'Bench groups', HOSTS);
const createTopic = (fields: Record<string, unknown>) => createBenchTopic(app, headers, fields);
const team = await createTopic({ name: 'Team call', team: created.team.uuid });
const seated = await createTopic({ name: 'Webinar', seats: 1000 });
const principal = await authenticate(ctx, created.apiKey);

const month = { timezone: 'America/New_York', offset: 0, month: 3, year: 2027 };
const teamInput = { meetingTopic: team.uuid, team: created.team.uuid, ...month };
const seatedInput = { meetingTopic: seated.uuid, username: created.owner.username, ...month };
// 400 participants in 40 groups spread over March.
const offered = (await calculateSchedule(ctx, null, seatedInput)).days.flatMap((day) => day.slots);
for (let g = 0; g < GROUPS; g += 1) {
  const slot = offered[Math.floor((g * offered.length) / GROUPS)]!;
  for (let p = 0; p < PER_GROUP; p += 1) {
    await scheduleMeetings(ctx, principal, {
      dates: [{ start: slot.start, username: slot.username }],
      email: `p${g}-${p}@example.com`,
      lang: 'en',
      name: `P ${g} ${p}`,
      place: 'zoom',
      meetingTopic: seated.uuid,
      timezone: 'Europe/Warsaw',
    });
  }
}

const nothing = async () => undefined;
let turn = 0;
const oneTeamHostChanged = async () => bumpCalendarVersions(ctx.db, [hostUuids[turn++ % HOSTS]!]);
const ownerChanged = async () => bumpCalendarVersions(ctx.db, [created.owner.uuid]);
const teamView = () => calculateSchedule(ctx, null, teamInput);
const seatedView = () => calculateSchedule(ctx, null, seatedInput);

const seatedSlots = (await seatedView()).days.flatMap((day) => day.slots);
const held = seatedSlots.filter((slot) => slot.seatsLeft !== undefined && slot.seatsLeft < 1000).length;
// Warm up the JIT before measuring.
await timeMedian(50, oneTeamHostChanged, teamView);
await timeMedian(50, ownerChanged, seatedView);
const rows: [string, number][] = [
  [`team view, ${HOSTS} hosts, one host changed`, await timeMedian(200, oneTeamHostChanged, teamView)],
  [`team view, ${HOSTS} hosts, all changed`, await timeMedian(50, async () => bumpCalendarVersions(ctx.db, hostUuids), teamView)],
  ['team view, cached', await timeMedian(500, nothing, teamView)],
  ['1000-seat view, changed', await timeMedian(200, ownerChanged, seatedView)],
  ['1000-seat view, cached', await timeMedian(500, nothing, seatedView)],
];
console.log(`month views [${dialect}]: ${seatedSlots.length} seated slots offered (${held} partly held, ${GROUPS * PER_GROUP} participants), zone America/New_York`);
for (const [name, ms] of rows) console.log(`${name.padEnd(40)} ${formatNumber(ms, 3).padStart(10)} ms`);
const ratio = rows[3]![1] / rows[0]![1];
console.log(`ratio 1000-seat view / team view (both computed afresh, one host changed): ${formatNumber(ratio, 2)} (goal ≤ 2)`);
await server.close();
