import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebhookVerificationError } from 'standardwebhooks';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { createContext, type AppContext } from '../../src/context.js';
import { createLogger } from '../../src/logging.js';
import type { RenderedMessage } from '../../src/mail/message.js';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { createApiKeyForUser } from '../../src/scheduling/account/api-keys.js';
import { DIALECTS, call, createClock, createTestAccount, createTestDatabase, expectProblem, runJobsCapturingMail, type TestDatabase } from '../helpers.js';
import { startReceiver, type Receiver } from '../net/receivers.js';
import { currentDocument } from '../client/generate.js';
import { stringHeaders, verifyAt } from './helpers.js';

// An integrator rotates a webhook's secret and switches its receiver over later: a receiver
// still verifying with the old secret (the standardwebhooks library) keeps accepting
// deliveries for 24 hours, one with the new secret accepts them at once.

const START = '2027-01-04T08:00:00.000Z';

async function documentedSignaturePattern(): Promise<string> {
  const doc = (await currentDocument()) as { webhooks: Record<string, { post: { parameters: { name: string; schema: { pattern: string } }[] } }> };
  return doc.webhooks['member.created']!.post.parameters.find((p) => p.name === 'webhook-signature')!.schema.pattern;
}
const HOUR = 60 * 60 * 1000;

for (const dialect of DIALECTS) {
  describe(`rotating a webhook's secret (${dialect})`, () => {
    const clock = createClock(START);
    const logLines: string[] = [];
    const mail: RenderedMessage[] = [];
    let database: TestDatabase;
    let ctx: AppContext;
    let app: FastifyInstance;
    let acme: CreatedAccount;
    let receiver: Receiver | undefined;

    beforeAll(async () => {
      database = await createTestDatabase(dialect, { ALLOW_PRIVATE_URLS: 'true', LOG_LEVEL: 'trace' });
      const sink = new Writable({
        write(chunk: Buffer, _encoding, done) {
          logLines.push(chunk.toString());
          done();
        },
      });
      ctx = await createContext(database.config, { now: clock.now, log: createLogger(database.config, sink) });
      app = await buildApp(ctx);
      await app.ready();
      acme = await createTestAccount(ctx);
    });
    afterAll(async () => {
      await app.close();
      await ctx.close();
      await database.drop();
    });
    afterEach(async () => {
      await receiver?.close();
      receiver = undefined;
    });

    let memberCount = 0;
    /** Adds a member (a `member.created` event), delivers it, and returns what the receiver got. */
    async function deliverAnEvent() {
      memberCount += 1;
      const before = receiver!.requests.length;
      const added = await call(app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, {
        firstName: 'Anna',
        lastName: `Nowak ${memberCount}`,
        email: `anna${memberCount}.${dialect}@example.com`,
      });
      expect(added.statusCode).toBe(201);
      await runJobsCapturingMail(ctx, mail);
      expect(receiver!.requests).toHaveLength(before + 1);
      const request = receiver!.requests.at(-1)!;
      return { body: request.body, headers: stringHeaders(request.headers) };
    }

    function acceptedBy(secret: string, delivery: { body: string; headers: Record<string, string> }): boolean {
      try {
        verifyAt(clock.now(), secret, delivery.body, delivery.headers);
        return true;
      } catch (error) {
        if (error instanceof WebhookVerificationError) return false;
        throw error;
      }
    }

    it('signs with both secrets for 24 hours, then with the new one only; the secrets never reach the logs', async () => {
      clock.set(START);
      receiver = await startReceiver((_req, res) => res.writeHead(204).end());
      const created = await call(app, acme.apiKey, 'POST', '/api/v1/webhooks', { url: `${receiver.url}/hooks`, events: ['member.created'] });
      expect(created.statusCode).toBe(201);
      const webhook = created.json() as { uuid: string; secret: string };
      const oldSecret = webhook.secret;
      expect(acceptedBy(oldSecret, await deliverAnEvent())).toBe(true);

      const rotated = await call(app, acme.apiKey, 'POST', `/api/v1/webhooks/${webhook.uuid}/rotate-secret`);
      expect(rotated.statusCode).toBe(200);
      const newSecret = rotated.json().secret as string;
      expect(rotated.json()).toMatchObject({ uuid: webhook.uuid, url: `${receiver.url}/hooks`, events: ['member.created'], enabled: true });
      expect(newSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(newSecret).not.toBe(oldSecret);
      // Shown once, like on creation.
      const shown = await call(app, acme.apiKey, 'GET', `/api/v1/webhooks/${webhook.uuid}`);
      expect(shown.json()).not.toHaveProperty('secret');
      expect(shown.body).not.toContain(newSecret);

      // Right after the rotation: two signatures, either receiver accepts.
      const atOnce = await deliverAnEvent();
      expect(atOnce.headers['webhook-signature']!.split(' ')).toHaveLength(2);
      // As the document's webhooks section describes the header.
      expect(atOnce.headers['webhook-signature']).toMatch(new RegExp(await documentedSignaturePattern()));
      expect(acceptedBy(newSecret, atOnce)).toBe(true);
      expect(acceptedBy(oldSecret, atOnce)).toBe(true);

      // A minute before the 24 hours are up, the old secret still verifies.
      clock.set(Date.parse(START) + 24 * HOUR - 60_000);
      const lateInTheDay = await deliverAnEvent();
      expect(acceptedBy(oldSecret, lateInTheDay)).toBe(true);
      expect(acceptedBy(newSecret, lateInTheDay)).toBe(true);

      // After them, only the new one.
      clock.set(Date.parse(START) + 24 * HOUR + 60_000);
      const nextDay = await deliverAnEvent();
      expect(nextDay.headers['webhook-signature']!.split(' ')).toHaveLength(1);
      expect(acceptedBy(newSecret, nextDay)).toBe(true);
      expect(acceptedBy(oldSecret, nextDay)).toBe(false);

      const logged = logLines.join('');
      expect(logged).toContain('rotate-secret');
      for (const secret of [oldSecret, newSecret]) {
        expect(logged).not.toContain(secret);
        expect(logged).not.toContain(secret.slice('whsec_'.length));
      }
      await call(app, acme.apiKey, 'DELETE', `/api/v1/webhooks/${webhook.uuid}`);
    });

    it('rotating twice within the day retires the first secret at once', async () => {
      clock.set(START);
      receiver = await startReceiver((_req, res) => res.writeHead(204).end());
      const created = await call(app, acme.apiKey, 'POST', '/api/v1/webhooks', { url: `${receiver.url}/twice`, events: ['member.created'] });
      const webhook = created.json() as { uuid: string; secret: string };
      const second = (await call(app, acme.apiKey, 'POST', `/api/v1/webhooks/${webhook.uuid}/rotate-secret`)).json().secret as string;
      clock.advance(HOUR);
      const third = (await call(app, acme.apiKey, 'POST', `/api/v1/webhooks/${webhook.uuid}/rotate-secret`)).json().secret as string;

      const delivery = await deliverAnEvent();
      expect(acceptedBy(third, delivery)).toBe(true);
      expect(acceptedBy(second, delivery)).toBe(true);
      expect(acceptedBy(webhook.secret, delivery)).toBe(false);
      await call(app, acme.apiKey, 'DELETE', `/api/v1/webhooks/${webhook.uuid}`);
    });

    it("is the account admins' alone: another account gets 404, a member who is no admin 403, and the secret stays", async () => {
      clock.set(START);
      receiver = await startReceiver((_req, res) => res.writeHead(204).end());
      const created = await call(app, acme.apiKey, 'POST', '/api/v1/webhooks', { url: `${receiver.url}/theirs`, events: ['member.created'] });
      const webhook = created.json() as { uuid: string; secret: string };

      const other = await createTestAccount(ctx);
      expectProblem(await call(app, other.apiKey, 'POST', `/api/v1/webhooks/${webhook.uuid}/rotate-secret`), 404, 'NOT_FOUND');
      const member = await call(app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, {
        firstName: 'Piotr',
        lastName: 'Nowak',
        email: `piotr.${dialect}@example.com`,
      });
      const memberKey = await createApiKeyForUser(ctx, member.json().uuid);
      expectProblem(await call(app, memberKey.apiKey, 'POST', `/api/v1/webhooks/${webhook.uuid}/rotate-secret`), 403, 'FORBIDDEN');
      expectProblem(await call(app, acme.apiKey, 'POST', '/api/v1/webhooks/0b7e2c1a-9d5b-4f3e-8a61-2c4d5e6f7a8b/rotate-secret'), 404, 'NOT_FOUND');
      await runJobsCapturingMail(ctx, mail);
      receiver.requests.length = 0;

      // Neither attempt changed how deliveries are signed.
      const delivery = await deliverAnEvent();
      expect(delivery.headers['webhook-signature']!.split(' ')).toHaveLength(1);
      expect(acceptedBy(webhook.secret, delivery)).toBe(true);
      await call(app, acme.apiKey, 'DELETE', `/api/v1/webhooks/${webhook.uuid}`);
    });
  });
}
