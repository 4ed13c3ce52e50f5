import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { runCli } from '../../src/cli/main.js';
import type { Secrets } from '../../src/config.js';
import { createContext, type AppContext } from '../../src/context.js';
import { insertAppSession } from '../../src/db/repositories/app-sessions.js';
import { storeConnected } from '../../src/db/repositories/connections.js';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { createManageToken } from '../../src/scheduling/meetings/manage-token.js';
import { sealSecret } from '../../src/secrets/secret-box.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, type TestApp } from '../helpers.js';

/**
 * The operator changes TERMIN_SECRET_KEY. Key A sealed a Zoom connection's tokens, an OAuth
 * authorization in progress, the Zoom app's and Stripe's credentials, a CalDAV password and a
 * feed address, and signed a manage link and a form's CSRF token. With key B alone, each of
 * those is unusable on its own (409 SECRET_UNREADABLE, `status: error`, a clear page) and never
 * a 500, while the rest works; with B and TERMIN_SECRET_KEY_PREVIOUS=A everything works; after
 * `cli secrets reseal`, B alone opens everything. With a key that opens nothing, entering the
 * secrets again mends each thing, and a connection is removed without opening its tokens.
 */
const PUBLIC_URL = 'http://termin.test';

for (const dialect of DIALECTS) {
  describe(`a rotated secret key [${dialect}]`, () => {
    let t: TestApp;
    let acme: CreatedAccount;
    let keyA: Buffer;
    const keyB = randomBytes(32);
    const started: { ctx: AppContext; app: FastifyInstance }[] = [];
    let connectionUuid: string;
    let pendingState: string;
    let calendarUuid: string;
    let feedUrl: string;
    let manageLink: string;
    let sessionCookie: string;
    let csrfUnderA: string;

    /** The same database, served by an instance started with these secrets. */
    async function serveWith(secrets: Secrets): Promise<FastifyInstance> {
      const ctx = await createContext(t.ctx.config, { now: t.clock.now, log: pino({ level: 'silent' }), secrets });
      const app = await buildApp(ctx);
      await app.ready();
      started.push({ ctx, app });
      return app;
    }

    const page = (app: FastifyInstance, url: string) => app.inject({ method: 'GET', url, headers: { accept: 'text/html', cookie: sessionCookie } });
    const form = (app: FastifyInstance, url: string, csrf: string) =>
      app.inject({
        method: 'POST',
        url,
        headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded', cookie: sessionCookie },
        payload: new URLSearchParams({ csrf }).toString(),
      });
    const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)![1]!;
    const connection = async (app: FastifyInstance) => (await call(app, acme.apiKey, 'GET', `/api/v1/users/${acme.owner.uuid}/connections/${connectionUuid}`)).json();
    const sync = async (app: FastifyInstance) => (await call(app, acme.apiKey, 'POST', `/api/v1/users/${acme.owner.uuid}/calendars/${calendarUuid}/sync`)).json();
    const gateways = async (app: FastifyInstance) => (await call(app, acme.apiKey, 'GET', '/api/v1/account')).json();

    async function reseal(current: Buffer, previous: Buffer[]) {
      const out: string[] = [];
      const err: string[] = [];
      const { config } = t.ctx;
      const env = {
        DATA_DIR: config.dataDir,
        TERMIN_DEMO: 'false',
        ...(config.database.dialect === 'postgres' ? { DATABASE_URL: config.database.url } : {}),
        TERMIN_SECRET_KEY: current.toString('hex'),
        TERMIN_SECRET_KEY_PREVIOUS: previous.map((key) => key.toString('hex')).join(','),
      };
      const code = await runCli(['secrets', 'reseal', '--json'], { out: { write: (text) => out.push(text) }, err: { write: (text) => err.push(text) } }, env);
      expect(code, err.join('')).toBe(0);
      return JSON.parse(out.join('')) as { changedRows: number; unreadable: string[] };
    }

    /** Everything key A sealed or signed works through `app`. */
    async function expectAllWorks(app: FastifyInstance) {
      expect(await connection(app)).toMatchObject({ status: 'connected', lastError: null });
      expect((await call(app, acme.apiKey, 'GET', `/api/v1/users/${acme.owner.uuid}/feed`)).json()).toEqual({ url: feedUrl });
      expect((await gateways(app)).gateways).toEqual([expect.objectContaining({ code: 'stripe', configured: true })]);
      expect((await gateways(app)).integrations).toEqual([expect.objectContaining({ provider: 'zoom', configured: true })]);
      expect((await sync(app)).lastError).not.toMatch(/password/);
      expect((await app.inject({ method: 'GET', url: manageLink, headers: { accept: 'text/html' } })).statusCode).toBe(200);
      const connections = await page(app, '/app/connections');
      expect(connections.statusCode).toBe(200);
      expect(connections.body).toContain(feedUrl);
    }

    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'), { PUBLIC_URL, ALLOW_PRIVATE_URLS: 'true' });
      keyA = t.ctx.secretKey.current;
      acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['offline', 'zoom'] });
      const user = acme.owner.uuid;
      const patched = await call(t.app, acme.apiKey, 'PATCH', '/api/v1/account', {
        gateways: { stripe: { secretKey: 'sk_test_rotation', webhookSecret: 'whsec_rotation' } },
        integrations: { zoom: { clientId: 'zoom-client', clientSecret: 'zoom-secret' } },
      });
      expect(patched.statusCode, patched.body).toBe(200);

      // A Zoom connection with tokens, and an authorization still in progress (its state in the URL).
      const start = await call(t.app, acme.apiKey, 'POST', `/api/v1/users/${user}/connections`, { provider: 'zoom' });
      expect(start.statusCode, start.body).toBe(201);
      connectionUuid = start.json().uuid;
      pendingState = new URL(start.json().authorizeUrl).searchParams.get('state')!;
      const tokens = {
        accessTokenSealed: sealSecret(t.ctx.secretKey, 'zoom-access'),
        refreshTokenSealed: sealSecret(t.ctx.secretKey, 'zoom-refresh'),
        accessExpiresAt: t.clock.now() + 3_600_000,
      };
      await storeConnected(t.ctx.db, connectionUuid, { accountEmail: 'zed@zoom.test', tokens }, t.clock.now());

      // A CalDAV calendar (its server is down: only its password matters here), the feed, a booked meeting's manage link.
      const calendar = await call(t.app, acme.apiKey, 'POST', `/api/v1/users/${user}/calendars`, {
        type: 'caldav',
        url: 'http://127.0.0.1:1/cal/',
        username: 'olga',
        password: 'caldav-password',
      });
      expect(calendar.statusCode, calendar.body).toBe(201);
      calendarUuid = calendar.json().uuid;
      feedUrl = (await call(t.app, acme.apiKey, 'GET', `/api/v1/users/${user}/feed`)).json().url;
      await call(t.app, acme.apiKey, 'PUT', `/api/v1/users/${user}/availability`, {
        timezone: 'Europe/Warsaw',
        weekly: Object.fromEntries(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((day) => [day, [{ start: '08:00', end: '18:00' }]])),
        overrides: [],
      });
      const topic = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Consultation', durationMinutes: 30, places: ['offline'] })).json();
      const booked = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
        dates: [{ start: '2027-01-06T09:00:00.000Z', username: acme.owner.username }],
        email: 'jan@example.com',
        lang: 'en',
        name: 'Jan Kowalski',
        place: 'offline',
        meetingTopic: topic.uuid,
        timezone: 'Europe/Warsaw',
      });
      expect(booked.statusCode, booked.body).toBe(201);
      manageLink = `/booking/${createManageToken(t.ctx.secretKey, booked.json().meetings[0].uuid)}`;

      // Signed in to the web app, with a form token made under key A.
      const token = randomBytes(32).toString('base64url');
      await insertAppSession(t.ctx.db, {
        uuid: crypto.randomUUID(),
        tokenHash: createHash('sha256').update(token).digest('hex'),
        userUuid: user,
        now: t.clock.now(),
        expiresAt: t.clock.now() + 86_400_000,
      });
      sessionCookie = `termin_session=${token}`;
      csrfUnderA = csrfOf((await page(t.app, '/app/connections')).body);

      await expectAllWorks(t.app);
    }, 90_000);

    afterAll(async () => {
      for (const { ctx, app } of started) {
        await app.close();
        await ctx.close();
      }
      await t?.close();
    });

    it('with the new key alone: each sealed thing says what to enter again (409, status error, pages), never a 500; the rest works', async () => {
      const app = await serveWith({ secretKey: keyB });
      const user = acme.owner.uuid;

      expect(await connection(app)).toMatchObject({ status: 'error', lastError: expect.stringMatching(/Zoom connection's tokens.*connect Zoom again/) });
      const listed = (await call(app, acme.apiKey, 'GET', `/api/v1/users/${user}/connections`)).json();
      expect(listed.connections).toEqual([expect.objectContaining({ uuid: connectionUuid, status: 'error' })]);

      const feed = expectProblem(await call(app, acme.apiKey, 'GET', `/api/v1/users/${user}/feed`), 409, 'SECRET_UNREADABLE');
      expect(feed.detail).toMatch(/feed's address.*new feed address/);
      expect(feed.detail).not.toContain(new URL(feedUrl).pathname.slice(7, 30));
      // Calendar apps subscribed to the address keep reading it: it is found by its hash.
      expect((await app.inject({ method: 'GET', url: new URL(feedUrl).pathname })).statusCode).toBe(200);

      const reconnect = expectProblem(await call(app, acme.apiKey, 'POST', `/api/v1/users/${user}/connections`, { provider: 'zoom' }), 409, 'SECRET_UNREADABLE');
      expect(reconnect.detail).toMatch(/Zoom app credentials.*integrations\.zoom/);
      expect((await gateways(app)).gateways).toEqual([expect.objectContaining({ code: 'stripe', configured: false, reason: expect.stringMatching(/secret key/) })]);
      expect((await gateways(app)).integrations).toEqual([expect.objectContaining({ provider: 'zoom', configured: false })]);

      expect(await sync(app)).toMatchObject({ status: 'error', lastError: expect.stringMatching(/CalDAV calendar's password.*add it again/) });

      const callback = await app.inject({ method: 'GET', url: `/oauth/zoom/callback?state=${pendingState}&code=abc`, headers: { accept: 'text/html' } });
      expect(callback.statusCode).toBe(400);
      expect(callback.body).toMatch(/secret key changed/);

      const connections = await page(app, '/app/connections');
      expect(connections.statusCode).toBe(200);
      expect(connections.body).toMatch(/connect Zoom again/);
      expect(connections.body).toMatch(/private feed&#39;s address|private feed's address/);
      const connect = await form(app, '/app/connections/zoom', csrfOf(connections.body));
      expect(connect.statusCode).toBe(409);
      expect(connect.body).toMatch(/Zoom app credentials/);

      // Links signed with the old key are no longer this server's; nothing breaks.
      expect((await app.inject({ method: 'GET', url: manageLink, headers: { accept: 'text/html' } })).statusCode).toBe(404);
      expect((await form(app, '/app/connections/feed', csrfUnderA)).statusCode).toBe(403);

      // Everything else works.
      expect((await call(app, acme.apiKey, 'GET', '/api/v1/teams')).statusCode).toBe(200);
      expect((await call(app, acme.apiKey, 'GET', `/api/v1/users/${user}/calendars`)).statusCode).toBe(200);
      expect((await call(app, null, 'POST', '/api/v1/calculate-schedule', { username: acme.owner.username, timezone: 'UTC', offset: 0 })).statusCode).not.toBe(500);
    });

    it('with TERMIN_SECRET_KEY_PREVIOUS naming the old key, everything works; after `secrets reseal` the new key alone opens it all', async () => {
      const both = await serveWith({ secretKey: keyB, previousSecretKeys: [keyA] });
      await expectAllWorks(both);
      // A form rendered before the change is still accepted.
      expect((await form(both, '/app/connections/feed', csrfUnderA)).statusCode).toBe(303);
      feedUrl = (await call(both, acme.apiKey, 'GET', `/api/v1/users/${acme.owner.uuid}/feed`)).json().url;

      const first = await reseal(keyB, [keyA]);
      expect(first.unreadable).toEqual([]);
      // The Stripe and Zoom apps, the connection, the calendar, the feed (rotated under B: already current), the authorization in progress.
      expect(first.changedRows).toBe(5);
      expect((await reseal(keyB, [keyA])).changedRows).toBe(0);

      const alone = await serveWith({ secretKey: keyB });
      expect(await connection(alone)).toMatchObject({ status: 'connected' });
      expect((await call(alone, acme.apiKey, 'GET', `/api/v1/users/${acme.owner.uuid}/feed`)).json()).toEqual({ url: feedUrl });
      expect((await gateways(alone)).gateways).toEqual([expect.objectContaining({ code: 'stripe', configured: true })]);
      expect((await gateways(alone)).integrations).toEqual([expect.objectContaining({ provider: 'zoom', configured: true })]);
      expect((await sync(alone)).lastError).not.toMatch(/password/);
    });

    it('with a key that opens nothing: reseal names what is lost; entering it again mends each thing, and the connection is removed without its tokens', async () => {
      const lost = randomBytes(32);
      const report = await reseal(lost, []);
      expect(report.changedRows).toBe(0);
      const user = acme.owner.uuid;
      expect(report.unreadable).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/stripe gateway's credentials/),
          expect.stringMatching(/zoom app's credentials/),
          expect.stringMatching(new RegExp(`zoom connection ${connectionUuid} of user ${user}.*connects again`)),
          expect.stringMatching(new RegExp(`calendar ${calendarUuid} of user ${user}.*password`)),
          expect.stringMatching(new RegExp(`user ${user}: the private feed's address`)),
        ]),
      );
      expect(report.unreadable.join('\n')).not.toMatch(/zoom-secret|sk_test|caldav-password|zoom-refresh/);
      const app = await serveWith({ secretKey: lost });

      // Entering the app's credentials again does not make the connection's tokens readable; removing it still works.
      expect((await call(app, acme.apiKey, 'PATCH', '/api/v1/account', { integrations: { zoom: { clientId: 'zoom-client', clientSecret: 'zoom-secret-2' } } })).statusCode).toBe(
        200,
      );
      expect((await call(app, acme.apiKey, 'POST', `/api/v1/users/${user}/connections`, { provider: 'zoom' })).statusCode).toBe(200);
      expect(await connection(app)).toMatchObject({ status: 'error' });
      expect((await call(app, acme.apiKey, 'DELETE', `/api/v1/users/${user}/connections/${connectionUuid}`)).statusCode).toBe(204);

      expectProblem(await call(app, acme.apiKey, 'GET', `/api/v1/users/${user}/feed`), 409, 'SECRET_UNREADABLE');
      const rotated = (await call(app, acme.apiKey, 'POST', `/api/v1/users/${user}/feed/rotate`)).json().url;
      expect((await call(app, acme.apiKey, 'GET', `/api/v1/users/${user}/feed`)).json()).toEqual({ url: rotated });

      expect((await call(app, acme.apiKey, 'PATCH', '/api/v1/account', { gateways: { stripe: { secretKey: 'sk_test_again', webhookSecret: 'whsec_again' } } })).statusCode).toBe(
        200,
      );
      expect((await gateways(app)).gateways).toEqual([expect.objectContaining({ code: 'stripe', configured: true })]);
    });
  });
}
