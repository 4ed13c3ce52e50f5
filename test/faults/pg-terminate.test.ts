import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers.js';
import { book, createBookingFixture, freeSlots, missingMeetings, type BookingFixture, type BookingOutcome } from './booking.js';
import { fetchStatus, startServer, stopServer, type ServerProcess } from '../process.js';

/**
 * PostgreSQL ends connections the service is using (pg_terminate_backend, as a failover or a
 * restart would) while bookings arrive: the process stays up, the requests caught in it get
 * 503, later requests succeed on fresh connections, and every booking acknowledged with 201
 * is in the database.
 */
describe.runIf(DIALECTS.includes('postgres'))('PostgreSQL backends terminated under booking load', () => {
  let fixture: BookingFixture;
  let server: ServerProcess;
  let admin: pg.Client;
  let databaseName: string;

  beforeAll(async () => {
    fixture = await createBookingFixture('postgres');
    const config = fixture.database.config.database;
    if (config.dialect !== 'postgres') throw new Error('expected PostgreSQL');
    databaseName = new URL(config.url).pathname.slice(1);
    const adminUrl = new URL(config.url);
    adminUrl.pathname = '/postgres';
    admin = new pg.Client({ connectionString: adminUrl.toString() });
    await admin.connect();
    server = await startServer({ ...fixture.serverEnv, DATABASE_POOL_SIZE: '6', DATABASE_CONNECT_TIMEOUT_MS: '2000' });
  }, 60_000);

  afterAll(async () => {
    if (server) await stopServer(server);
    await admin?.end();
    await fixture?.close();
  });

  it('stays up, answers 503 for the requests it loses, recovers, and keeps every acknowledged booking', async () => {
    const slots = await freeSlots(server.url, fixture, 170);
    const loadSlots = slots.slice(0, 150);
    const recoverySlots = slots.slice(150);

    let killing = true;
    let terminated = 0;
    const killer = (async () => {
      while (killing) {
        const result = await admin.query<{ pid: number }>('select pg_terminate_backend(pid) as pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [
          databaseName,
        ]);
        terminated += result.rowCount ?? 0;
        await new Promise((resolve) => setTimeout(resolve, 15));
      }
    })();

    const outcomes: BookingOutcome[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (next < loadSlots.length) {
          const i = next++;
          outcomes.push(await book(server.url, fixture, loadSlots[i]!, i));
        }
      }),
    );
    killing = false;
    await killer;

    expect(server.child.exitCode).toBeNull();
    expect(terminated).toBeGreaterThan(0);
    const statuses = outcomes.map((outcome) => outcome.status);
    // Only a booking or "the database is unavailable, retry": no 500, no dropped connection.
    expect(statuses.filter((status) => status !== 201 && status !== 503)).toEqual([]);
    expect(statuses.filter((status) => status === 503).length).toBeGreaterThan(0);

    // The pool reconnects: with the database left alone, /readyz and then bookings succeed again.
    // A probe in the first moments may still draw a pooled connection the last termination
    // killed (it is discarded by that failure), as a load balancer's next probe would not.
    await expect.poll(() => fetchStatus(`${server.url}/readyz`), { timeout: 5_000, interval: 250 }).toBe(200);
    const recovered = await Promise.all(recoverySlots.map((slot, i) => book(server.url, fixture, slot, 1000 + i)));
    expect(recovered.map((outcome) => outcome.status)).toEqual(recoverySlots.map(() => 201));

    const acknowledged = [...outcomes, ...recovered].flatMap((outcome) => outcome.meetingUuids);
    expect(await missingMeetings(fixture, acknowledged)).toEqual([]);
  }, 90_000);
});
