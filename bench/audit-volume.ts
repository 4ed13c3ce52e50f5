/**
 * How much does the audit log grow per 1,000 bookings? A typical mix through the API: 1,000
 * bookings (which write no audit entry), 10% of them cancelled by the host and 10% moved, and
 * a handful of admin changes (a topic created and updated, a webhook, a key). Prints the audit
 * rows and their bytes (the rows' own payload, and on SQLite the pages of the table and its
 * two indexes), beside the events table (the meetings' history) for scale, and checks that no
 * participant's e-mail, name or phone reached the log.
 * Run: npx tsx bench/audit-volume.ts [bookings] [dialect: sqlite|postgres|both]
 */
import { sql } from 'kysely';
import { DateTime } from 'luxon';
import type { FastifyInstance } from 'fastify';
import { createAccount } from '../src/scheduling/account/create-account.js';
import { formatNumber, postgresReachable, startBenchServer, workingHalfHours, type BenchDialect } from './support.js';

const bookings = Number(process.argv[2] ?? 1000);
const which = process.argv[3] ?? 'both';

async function api(app: FastifyInstance, key: string, method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown) {
  const response = await app.inject({
    method,
    url,
    headers: { accept: 'application/json', 'x-service-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  if (response.statusCode >= 300) throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`);
  return response.json();
}

/** Working half hours of the months from `first` on, until there are `count` of them. */
function starts(first: DateTime, count: number): number[] {
  const all: number[] = [];
  for (let month = first; all.length < count; month = month.plus({ months: 1 })) all.push(...workingHalfHours(month.toISODate()!, 'Europe/Warsaw'));
  return all.slice(0, count);
}

async function run(dialect: BenchDialect) {
  const server = await startBenchServer(dialect);
  const { app, ctx } = server;
  try {
    const created = await createAccount(ctx, {
      name: 'Audit bench',
      ownerEmail: 'owner@bench.test',
      ownerFirstName: 'Olga',
      ownerLastName: 'Owner',
      maxUsers: 10,
      timezone: 'Europe/Warsaw',
      places: ['offline', 'phone-call'],
    });
    const key = created.apiKey;
    const host = created.owner.username;
    // Admin changes an account makes now and then.
    const topic = await api(app, key, 'POST', '/api/v1/meeting-topics', { name: 'Consultation', durationMinutes: 30, places: ['phone-call'], bookingWindowDays: 730 });
    await api(app, key, 'PATCH', `/api/v1/meeting-topics/${topic.uuid}`, { description: 'Thirty minutes on the phone' });
    await api(app, key, 'POST', '/api/v1/api-keys', { name: 'Booking site' });

    const nextMonth = DateTime.now().setZone('Europe/Warsaw').startOf('month').plus({ months: 1 });
    const bookAt = starts(nextMonth, bookings);
    const moveTo = starts(nextMonth.plus({ months: Math.ceil(bookings / 300) + 1 }), Math.ceil(bookings / 10));
    const booked: string[] = [];
    for (const [i, start] of bookAt.entries()) {
      const body = await api(app, key, 'POST', '/api/v1/schedule', {
        dates: [{ start: new Date(start).toISOString(), username: host }],
        meetingTopic: topic.uuid,
        name: `Participant Number${i}`,
        email: `participant${i}@customers.example`,
        phone: `+486001${String(i).padStart(5, '0')}`,
        lang: 'pl',
        place: 'phone-call',
        timezone: 'Europe/Warsaw',
      });
      booked.push(body.meetings[0].uuid);
    }
    let moved = 0;
    let cancelled = 0;
    for (const [i, uuid] of booked.entries()) {
      if (i % 10 === 3) {
        await api(app, key, 'POST', `/api/v1/meetings/${uuid}/cancel`, { reason: 'The participant called to cancel' });
        cancelled += 1;
      } else if (i % 10 === 7 && moved < moveTo.length) {
        await api(app, key, 'POST', `/api/v1/meetings/${uuid}/reschedule`, { start: new Date(moveTo[moved]!).toISOString() });
        moved += 1;
      }
    }

    const rows = Number(
      (
        await ctx.db
          .selectFrom('audit_events')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
    const events = Number(
      (
        await ctx.db
          .selectFrom('events')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
    const payload = async (table: 'audit_events' | 'events') => {
      if (dialect === 'postgres') {
        const result = await sql<{ bytes: string }>`select coalesce(sum(pg_column_size(t.*)), 0) as bytes from ${sql.table(table)} t`.execute(ctx.db);
        return Number(result.rows[0]!.bytes);
      }
      const columns =
        table === 'audit_events'
          ? sql`length(id) + length(account_id) + 8 + length(action) + length(actor_type) + coalesce(length(actor_user_id), 0) + length(actor_via) + length(target_type) + length(target_id) + length(details)`
          : sql`length(id) + length(account_id) + length(type) + length(subject_id) + 8 + length(data)`;
      const result = await sql<{ bytes: number }>`select coalesce(sum(${columns}), 0) as bytes from ${sql.table(table)}`.execute(ctx.db);
      return Number(result.rows[0]!.bytes);
    };
    const stored = async (): Promise<string> => {
      if (dialect === 'postgres') {
        const result = await sql<{ bytes: string }>`select pg_total_relation_size('audit_events') as bytes`.execute(ctx.db);
        return `${formatNumber(Number(result.rows[0]!.bytes))} bytes on disk with indexes (8 KiB pages: coarse at this size)`;
      }
      try {
        const result = await sql<{ name: string; bytes: number }>`select name, sum(pgsize) as bytes from dbstat where name like '%audit_events%' group by name`.execute(ctx.db);
        const total = result.rows.reduce((sum, row) => sum + Number(row.bytes), 0);
        return `${formatNumber(total)} bytes in pages (${result.rows.map((row) => `${row.name} ${formatNumber(Number(row.bytes))}`).join(', ')})`;
      } catch {
        return 'page sizes unavailable (SQLite built without dbstat)';
      }
    };
    const auditBytes = await payload('audit_events');
    const eventBytes = await payload('events');
    const dump = JSON.stringify(await ctx.db.selectFrom('audit_events').selectAll().execute());
    const leaks = booked.filter((_, i) => dump.includes(`participant${i}@`) || dump.includes(`Number${i}"`) || dump.includes(`+486001${String(i).padStart(5, '0')}`)).length;
    const per1000 = (value: number) => formatNumber((value * 1000) / bookings);
    const byAction = await ctx.db
      .selectFrom('audit_events')
      .select((eb) => ['action', eb.fn.countAll().as('n')])
      .groupBy('action')
      .orderBy('action')
      .execute();

    console.log(`\n${dialect}: ${bookings} bookings, ${cancelled} cancelled, ${moved} moved, plus 3 admin changes`);
    console.log(`  audit rows      ${formatNumber(rows).padStart(8)}   per 1,000 bookings ${per1000(rows)}   (${byAction.map((row) => `${row.action} ${row.n}`).join(', ')})`);
    console.log(
      `  audit payload   ${formatNumber(auditBytes).padStart(8)} B   per 1,000 bookings ${per1000(auditBytes)} B   ${formatNumber(auditBytes / Math.max(1, rows))} B a row`,
    );
    console.log(`  audit stored    ${await stored()}`);
    console.log(`  events (scale)  ${formatNumber(events).padStart(8)} rows, ${formatNumber(eventBytes)} B payload   per 1,000 bookings ${per1000(eventBytes)} B`);
    console.log(`  participant data in the log: ${leaks === 0 ? 'none' : `${leaks} participants' data FOUND`}`);
  } finally {
    await server.close();
  }
}

console.log(`Audit log volume, Node ${process.version}`);
if (which !== 'postgres') await run('sqlite');
if (which !== 'sqlite') {
  if (await postgresReachable()) await run('postgres');
  else console.log('\npostgres: not reachable (BENCH_POSTGRES_URL), skipped');
}
process.exit(0);
