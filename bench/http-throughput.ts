/**
 * HTTP throughput of the calculate endpoint (a week view and a month view of a host with
 * 200 meetings in the month) next to the same server's /healthz, measured with autocannon
 * in one run on this machine. Run: npx tsx bench/http-throughput.ts [seconds-per-case]
 * Goal: month view ≥ 0.5 × /healthz.
 */
import autocannon from 'autocannon';
import { DateTime } from 'luxon';
import { insertMeeting } from '../src/db/repositories/meetings.js';
import { newId } from '../src/ids.js';
import { createMeetingTopic } from '../src/scheduling/meeting-topics.js';
import { createAccount } from '../src/scheduling/create-account.js';
import { formatNumber, startBenchServer } from './support.js';

const seconds = Number(process.argv[2] ?? 5);
const server = await startBenchServer('sqlite');
try {
  const { ctx } = server;
  const created = await createAccount(ctx, { name: 'Bench', ownerEmail: 'o@bench.test', ownerFirstName: 'Bench', ownerLastName: 'Host', maxUsers: 5, timezone: 'Europe/Warsaw', places: ['zoom'] });
  const owner = { keyUuid: '', userUuid: created.owner.uuid, accountUuid: created.account.uuid, username: created.owner.username };
  const topic = await createMeetingTopic(ctx, owner, { name: 'Bench', durationMinutes: 30, bookingWindowDays: 120, places: ['zoom'] });

  // 200 meetings spread over next month's working hours.
  const nextMonth = DateTime.now().setZone('Europe/Warsaw').plus({ months: 1 }).startOf('month');
  let inserted = 0;
  for (let day = 0; inserted < 200 && day < 31; day += 1) {
    const date = nextMonth.plus({ days: day });
    if (date.weekday > 5) continue;
    for (let hour = 9; hour < 17 && inserted < 200; hour += 1) {
      const start = date.set({ hour, minute: 0 }).toMillis();
      await insertMeeting(ctx.db, {
        uuid: newId(), accountUuid: created.account.uuid, topicUuid: topic.uuid, teamUuid: null, hostUuid: created.owner.uuid,
        hostUsername: created.owner.username, bookingUuid: newId(), start, end: start + 30 * 60_000, status: 'confirmed', holdExpiresAt: null,
        place: 'zoom', participant: { name: 'P', email: 'p@x.test', phone: null, timezone: 'UTC', lang: 'en' }, note: null,
        priceVariantUuid: null, form: {}, metadata: {}, invoice: null, sequence: 0, createdAt: Date.now(), updatedAt: Date.now(), cancelledAt: null, cancelReason: null,
      });
      inserted += 1;
    }
  }

  const body = (extra: Record<string, unknown>) =>
    JSON.stringify({ username: created.owner.username, meetingTopic: topic.uuid, timezone: 'America/New_York', offset: 0, ...extra });
  const cases = [
    { name: 'GET /healthz', method: 'GET' as const, path: '/healthz', body: undefined },
    { name: 'calculate week view', method: 'POST' as const, path: '/api/v1/calculate-schedule', body: body({ offset: 28 }) },
    { name: 'calculate month view (200 meetings)', method: 'POST' as const, path: '/api/v1/calculate-schedule', body: body({ month: nextMonth.month + (nextMonth.year - DateTime.now().setZone('America/New_York').year) * 12 }) },
  ];
  const results: { name: string; rps: number; p99: number }[] = [];
  for (const c of cases) {
    const check = await fetch(`${server.url}${c.path}`, { method: c.method, headers: { 'content-type': 'application/json' }, body: c.body });
    if (!check.ok) throw new Error(`${c.name}: ${check.status} ${await check.text()}`);
    const result = await autocannon({
      url: `${server.url}${c.path}`,
      method: c.method,
      headers: { 'content-type': 'application/json' },
      body: c.body,
      connections: 20,
      duration: seconds,
    });
    results.push({ name: c.name, rps: result.requests.average, p99: result.latency.p99 });
  }
  const healthz = results[0]!.rps;
  console.log(`HTTP throughput, SQLite, 20 connections, ${seconds} s per case, Node ${process.version}`);
  console.log('case'.padEnd(40), 'req/s'.padStart(10), 'p99 ms'.padStart(8), '× healthz'.padStart(10));
  for (const r of results) console.log(r.name.padEnd(40), formatNumber(r.rps).padStart(10), formatNumber(r.p99).padStart(8), formatNumber(r.rps / healthz, 2).padStart(10));
} finally {
  await server.close();
}
