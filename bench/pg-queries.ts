/**
 * What one PostgreSQL round trip costs the service's own process, through the `pg` driver
 * the service uses: client CPU time per query for a small parameterised select, unnamed
 * (parsed and planned on every run) and named (prepared once per connection, as the service
 * does unless DATABASE_PREPARED_STATEMENTS=false), 20 connections in parallel as in
 * bench/bookings.ts. A booking on PostgreSQL is eight round trips (bench/README.md), so
 * eight times this is the driver's share of bench/bookings.ts's "CPU µs/book".
 * Run: npx tsx bench/pg-queries.ts [queries=20000]
 */
import os from 'node:os';
import pg from 'pg';

const queries = Number(process.argv[2] ?? 20_000);
const url = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const pool = new pg.Pool({ connectionString: url, max: 20 });
try {
  await pool.query('select 1');
} catch (error) {
  console.log(`PostgreSQL not reachable at ${url}: ${(error as Error).message}`);
  await pool.end();
  process.exit(0);
}
console.log(`pg driver, ${queries} queries over 20 connections, Node ${process.version}, ${os.cpus().length} CPUs`);
console.log('statement'.padEnd(10), 'queries/s'.padStart(10), 'client CPU µs/query'.padStart(20), 'of which system'.padStart(16), '× 8 (a booking)'.padStart(16));
for (const named of [false, true]) {
  // Every connection opened (and, when named, the statement prepared) before timing.
  await Promise.all(
    Array.from({ length: 20 }, async () => {
      const client = await pool.connect();
      try {
        await client.query(query(named));
      } finally {
        client.release();
      }
    }),
  );
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let sent = 0;
  await Promise.all(
    Array.from({ length: 20 }, async () => {
      const client = await pool.connect();
      try {
        while (sent < queries) {
          sent += 1;
          await client.query(query(named));
        }
      } finally {
        client.release();
      }
    }),
  );
  const cpu = process.cpuUsage(cpuBefore);
  const perQuery = (cpu.user + cpu.system) / sent;
  console.log(
    (named ? 'named' : 'unnamed').padEnd(10),
    Math.round(sent / ((performance.now() - started) / 1000))
      .toLocaleString('en-US')
      .padStart(10),
    perQuery.toFixed(1).padStart(20),
    (cpu.system / sent).toFixed(1).padStart(16),
    Math.round(perQuery * 8)
      .toLocaleString('en-US')
      .padStart(16),
  );
}
await pool.end();

function query(named: boolean): pg.QueryConfig {
  const text = 'select $1::text as a, $2::int as b, now() as c';
  return named ? { name: 'bench_pg_queries', text, values: ['x', 1] } : { text, values: ['x', 1] };
}
