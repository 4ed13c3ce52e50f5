import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackgroundJobs } from '../../src/background.js';
import type { RenderedMessage } from '../../src/mail/message.js';
import type { MailTransport } from '../../src/mail/transport.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, type TestApp } from '../helpers.js';
import { bookingBody, firstFreeSlots } from '../webhooks/helpers.js';

/**
 * An e-mail the SMTP server accepted is recorded as sent even if the database drops its
 * connections at that very moment (a failover, terminated backends): the completion is tried
 * again on a fresh connection, instead of leaving the job to run again after its lease and
 * send the message twice.
 */
describe.runIf(DIALECTS.includes('postgres'))('an e-mail accepted while the database drops its connections', () => {
  let t: TestApp;
  let admin: pg.Client;
  let databaseName: string;

  beforeAll(async () => {
    t = await createTestApp('postgres', createClock('2027-01-04T08:00:00.000Z'));
    const config = t.ctx.config.database;
    if (config.dialect !== 'postgres') throw new Error('expected PostgreSQL');
    databaseName = new URL(config.url).pathname.slice(1);
    const adminUrl = new URL(config.url);
    adminUrl.pathname = '/postgres';
    admin = new pg.Client({ connectionString: adminUrl.toString() });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await t?.close();
  });

  it('is sent once, not again when the job lease runs out', async () => {
    const acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['zoom'] });
    const topicUuid = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Intro', durationMinutes: 30, places: ['zoom'] })).json().uuid as string;
    const [slot] = await firstFreeSlots(t.app, acme.owner.username, topicUuid);
    expect((await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', bookingBody(topicUuid, slot!))).statusCode).toBe(201);

    const sent: { id: string; message: RenderedMessage }[] = [];
    let dropped = false;
    const transport: MailTransport = {
      async send(message, id) {
        sent.push({ id, message });
        if (!dropped) {
          // The SMTP server has the message; now the database ends every connection of the service.
          dropped = true;
          const ended = await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [databaseName]);
          expect(ended.rowCount).toBeGreaterThan(0);
        }
      },
      close: () => undefined,
      describe: () => 'capture',
    };
    const jobs = startBackgroundJobs(t.ctx, { transport, jobIntervalMs: 3_600_000, wakeOnBooking: false, maintenanceIntervalMs: 3_600_000 });
    try {
      await jobs.runOnce();
      expect(dropped).toBe(true);
      // Long after any lease: whatever is still claimed would be claimed and run again now.
      t.clock.advance(10 * 60_000);
      await jobs.runOnce();
      const ids = sent.map((entry) => entry.id);
      expect(ids.length).toBeGreaterThan(0);
      expect(new Set(ids).size, `sent ${ids.length} messages, ${new Set(ids).size} different`).toBe(ids.length);
      const pending = await t.ctx.db.selectFrom('outbox').select(['kind', 'status']).where('status', '<>', 'done').execute();
      expect(pending).toEqual([]);
    } finally {
      await jobs.stop(100);
    }
  }, 60_000);
});
