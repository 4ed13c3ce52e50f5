import type http from 'node:http';
import { describe, expect, it } from 'vitest';
import { createWebhook } from '../../src/scheduling/webhooks/subscriptions.js';
import { book, createBookingFixture, freeSlots, type BookingFixture } from '../faults/booking.js';
import { startServer, stopServer, type ServerProcess } from '../process.js';
import { DIALECTS } from '../helpers.js';
import { startReceiver, type Receiver } from '../net/receivers.js';
import { eventually } from './helpers.js';
import { createOutbound } from '../../src/net/outbound-request.js';

/** Real server processes (src/server.ts) with their background jobs on their own timers. */

async function subscribe(fixture: BookingFixture, url: string) {
  const owner = { keyUuid: '', userUuid: fixture.account.owner.uuid, accountUuid: fixture.account.account.uuid, username: fixture.account.owner.username };
  const { webhook } = await createWebhook({ ...fixture.ctx, outbound: createOutbound({ allowPrivate: true }) }, owner, { url, events: ['meeting.scheduled'] });
  return webhook;
}

async function deliveriesOf(fixture: BookingFixture, webhookUuid: string) {
  return fixture.ctx.db.selectFrom('webhook_deliveries').select(['id', 'status', 'attempts']).where('subscription_id', '=', webhookUuid).execute();
}

describe('a server killed in the middle of a delivery', () => {
  for (const dialect of DIALECTS) {
    it(`delivers it after a restart, under the same webhook-id (${dialect})`, async () => {
      const fixture = await createBookingFixture(dialect);
      const servers: ServerProcess[] = [];
      let receiver: Receiver | undefined;
      try {
        // The first request is never answered: the process dies while it waits.
        const held: http.ServerResponse[] = [];
        receiver = await startReceiver((_req, res) => {
          if (receiver!.requests.length === 1) held.push(res);
          else res.writeHead(204).end();
        });
        const webhook = await subscribe(fixture, `${receiver.url}/hook`);
        // A short lease (the least allowed) so the takeover comes in seconds, not the default minute.
        const env = { ...fixture.serverEnv, ALLOW_PRIVATE_URLS: 'true', OUTBOX_LEASE_MS: '10000' };
        servers.push(await startServer(env));
        const [slot] = await freeSlots(servers[0]!.url, fixture, 1);
        expect((await book(servers[0]!.url, fixture, slot!, 0)).status).toBe(201);
        await eventually(async () => receiver!.requests.length === 1, 20_000, 'the first attempt');

        servers[0]!.child.kill('SIGKILL');
        expect(await servers[0]!.exited).toBe('SIGKILL');
        expect(await deliveriesOf(fixture, webhook.uuid)).toMatchObject([{ status: 'pending', attempts: 0 }]);

        // Another process takes the job over once the dead one's lease (10 s here) runs out.
        servers.push(await startServer(env));
        const [delivery] = await eventually(
          async () => {
            const rows = await deliveriesOf(fixture, webhook.uuid);
            return rows[0]?.status === 'delivered' ? rows : undefined;
          },
          100_000,
          'the delivery after the restart',
        );
        expect(delivery).toMatchObject({ status: 'delivered', attempts: 1 });
        expect(receiver.requests.map((r) => r.headers['webhook-id'])).toEqual([delivery!.id, delivery!.id]);
        expect(receiver.requests[1]!.body).toBe(receiver.requests[0]!.body);
      } finally {
        await receiver?.close();
        for (const server of servers) await stopServer(server);
        await fixture.close();
      }
    }, 150_000);
  }
});

describe.runIf(DIALECTS.includes('postgres'))('two server processes on one PostgreSQL database', () => {
  it('never deliver one event twice at once, and deliver every event', async () => {
    const fixture = await createBookingFixture('postgres');
    const servers: ServerProcess[] = [];
    let receiver: Receiver | undefined;
    try {
      const inFlight = new Map<string, number>();
      let overlaps = 0;
      // A slow receiver widens the window in which both instances could pick the same delivery.
      receiver = await startReceiver((req, res) => {
        const id = String(req.headers['webhook-id']);
        const now = (inFlight.get(id) ?? 0) + 1;
        inFlight.set(id, now);
        if (now > 1) overlaps += 1;
        setTimeout(() => {
          inFlight.set(id, (inFlight.get(id) ?? 1) - 1);
          res.writeHead(200).end();
        }, 150);
      });
      const webhook = await subscribe(fixture, `${receiver.url}/hook`);
      const env = { ...fixture.serverEnv, ALLOW_PRIVATE_URLS: 'true' };
      servers.push(...(await Promise.all([startServer(env), startServer(env)])));
      const slots = await freeSlots(servers[0]!.url, fixture, 24);
      const outcomes = await Promise.all(slots.map((slot, i) => book(servers[i % 2]!.url, fixture, slot, i)));
      expect(outcomes.map((o) => o.status)).toEqual(Array(24).fill(201));

      const delivered = await eventually(
        async () => {
          const rows = await deliveriesOf(fixture, webhook.uuid);
          return rows.length === 24 && rows.every((row) => row.status === 'delivered') ? rows : undefined;
        },
        60_000,
        'every delivery',
      );
      expect(overlaps).toBe(0);
      // Exactly once here (no process died): one request per delivery.
      expect(receiver.requests).toHaveLength(24);
      expect(new Set(receiver.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set(delivered.map((row) => row.id)));
    } finally {
      await receiver?.close();
      for (const server of servers) await stopServer(server);
      await fixture.close();
    }
  }, 120_000);
});
