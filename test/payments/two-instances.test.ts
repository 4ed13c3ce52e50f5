import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext, type AppContext } from '../../src/context.js';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { startFakeStripe, type FakeStripe } from '../fakes/stripe-gateway.js';
import { DIALECTS, createTestAccount, createTestDatabase, freePort, type TestDatabase } from '../helpers.js';

/**
 * Two real server processes on one PostgreSQL database receive the same Stripe notification
 * at the same moment: the payment is confirmed once and the participant gets one
 * confirmation. Both share the data directory, so they share the secret key that sealed
 * the account's Stripe credentials (as instances share TERMIN_SECRET_KEY in production).
 */
async function startServer(database: TestDatabase, stripeUrl: string): Promise<{ child: ChildProcess; url: string }> {
  if (database.config.database.dialect !== 'postgres') throw new Error('expected PostgreSQL');
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: {
      ...process.env,
      DATABASE_URL: database.config.database.url,
      DATA_DIR: database.config.dataDir,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      TERMIN_DEMO: 'false',
      STRIPE_API_URL: stripeUrl,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  // Generous: tsx compiles the server on start, and the machine may be busy.
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${url}/readyz`)).ok) return { child, url };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill();
  throw new Error(`server on ${url} did not become ready`);
}

describe.runIf(DIALECTS.includes('postgres'))('one Stripe notification received by two instances at once', () => {
  let database: TestDatabase;
  let ctx: AppContext;
  let acme: CreatedAccount;
  let stripe: FakeStripe;
  const servers: { child: ChildProcess; url: string }[] = [];

  beforeAll(async () => {
    stripe = await startFakeStripe();
    database = await createTestDatabase('postgres');
    ctx = await createContext(database.config, { log: pino({ level: 'silent' }) });
    acme = await createTestAccount(ctx, { timezone: 'UTC', places: ['zoom'] });
    servers.push(...(await Promise.all([startServer(database, stripe.baseUrl), startServer(database, stripe.baseUrl)])));
  }, 200_000);

  afterAll(async () => {
    for (const server of servers) server.child.kill('SIGTERM');
    await Promise.all(servers.map((server) => new Promise((resolve) => (server.child.exitCode !== null ? resolve(null) : server.child.once('exit', resolve)))));
    await ctx?.close();
    await database?.drop();
    await stripe?.close();
  });

  const api = async (method: string, url: string, body?: unknown) => {
    const response = await fetch(`${servers[0]!.url}/api/v1${url}`, {
      method,
      headers: { 'content-type': 'application/json', 'x-service-api-key': acme.apiKey },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };

  it('confirms once and sends one confirmation', async () => {
    expect((await api('PATCH', '/account', { gateways: { stripe: { ...stripe.credentials.secrets } } })).status).toBe(200);
    const topic = (await api('POST', '/meeting-topics', { name: 'Paid race', durationMinutes: 30, places: ['zoom'], price: { amount: 15000, currency: 'PLN' } })).body;
    const schedule = (await api('POST', '/calculate-schedule', { username: acme.owner.username, meetingTopic: topic.uuid, timezone: 'UTC', offset: 7 })).body;
    const slot = (schedule.days as { slots: { start: string; username: string }[] }[]).flatMap((day) => day.slots)[0]!;
    const booked = await api('POST', '/schedule', {
      dates: [slot],
      email: 'racer@example.com',
      lang: 'en',
      name: 'Racer',
      place: 'zoom',
      meetingTopic: topic.uuid,
      timezone: 'UTC',
      gateway: 'stripe',
    });
    expect(booked.status).toBe(201);
    const paymentUuid = booked.body.payment.uuid as string;

    const pay = await fetch(`${servers[1]!.url}/pay/${paymentUuid}`, { redirect: 'manual' });
    expect(pay.status).toBe(303);
    const sessionId = [...stripe.sessions.values()].find((session) => session.client_reference_id === paymentUuid)!.id;
    const notification = stripe.notificationFor(sessionId);
    const answers = await Promise.all(
      servers.map((server) =>
        fetch(`${server.url}/api/v1/payments/stripe/notifications/${acme.account.uuid}`, {
          method: 'POST',
          headers: notification.headers as Record<string, string>,
          body: notification.rawBody,
        }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);

    // Both instances run the outbox: wait until every job is done, then count what happened.
    const outbox = path.join(database.config.dataDir, 'outbox');
    const deadline = Date.now() + 60_000;
    const mails = () =>
      fs.existsSync(outbox)
        ? fs
            .readdirSync(outbox)
            .filter((name) => name.endsWith('.eml'))
            .map((name) => fs.readFileSync(path.join(outbox, name), 'utf8').replace(/=\r?\n/g, ''))
        : [];
    // Subjects may be encoded (a narrow space in "9:00 AM"): the bodies' lead lines tell the messages apart.
    const confirmation = 'your meeting is confirmed.';
    for (;;) {
      const pending = await ctx.db.selectFrom('outbox').select('id').where('status', '=', 'pending').execute();
      if (pending.length === 0 && mails().some((mail) => mail.includes(confirmation))) break;
      if (Date.now() > deadline) {
        const left = await ctx.db.selectFrom('outbox').select(['kind', 'attempts', 'last_error']).where('status', '=', 'pending').execute();
        throw new Error(`the outbox did not drain: ${JSON.stringify(left)}; ${mails().length} e-mails`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const events = await ctx.db.selectFrom('events').select('type').where('type', 'in', ['payment.paid', 'meeting.confirmed']).execute();
    expect(events.map((event) => event.type).sort()).toEqual(['meeting.confirmed', 'payment.paid']);
    expect(mails().filter((mail) => mail.includes(confirmation))).toHaveLength(1);
    expect(mails().filter((mail) => mail.includes('a meeting has been booked with you.'))).toHaveLength(1);
    expect(mails().filter((mail) => mail.includes('Paid: PLN=C2=A0150.00'))).toHaveLength(2);
    const meeting = await api('GET', `/meetings/${booked.body.meetings[0].uuid}`);
    expect(meeting.body).toMatchObject({ status: 'confirmed', payment: { status: 'paid', amount: 15000 } });
  }, 120_000);
});
