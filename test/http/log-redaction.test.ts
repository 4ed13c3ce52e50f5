import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createContext, type AppContext } from '../../src/context.js';
import { createLogger, redactUrl } from '../../src/logging.js';
import type { FastifyInstance } from 'fastify';
import type { RenderedMessage } from '../../src/mail/message.js';
import { requestSignInLink } from '../../src/scheduling/host-app/sign-in.js';
import { createTestAccount, createTestDatabase, runJobsCapturingMail, type TestDatabase } from '../helpers.js';

/** A log destination that keeps each line written to it in `lines`. */
function lineSink(lines: string[]): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(
        ...chunk
          .toString()
          .split('\n')
          .filter((line) => line !== ''),
      );
      done();
    },
  });
}

describe('request logs never carry an API key', () => {
  const lines: string[] = [];
  let database: TestDatabase;
  let ctx: AppContext;
  let app: FastifyInstance;
  beforeAll(async () => {
    database = await createTestDatabase('sqlite', { LOG_LEVEL: 'info' });
    ctx = await createContext(database.config, { log: createLogger(database.config, lineSink(lines)) });
    app = await buildApp(ctx);
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await ctx.close();
    await database.drop();
  });

  it('redacts key-bearing query parameters in the logged URL, and the header', async () => {
    const secret = 'tmn_AAAAAAAAAAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB';
    for (const name of ['api_key', 'apiKey', 'key', 'x-service-api-key', 'API_KEY']) {
      const response = await app.inject({ method: 'GET', url: `/api/v1/teams?${name}=${secret}&page=2`, headers: { 'x-service-api-key': secret } });
      expect(response.statusCode).toBe(401);
    }
    const logged = lines.join('\n');
    expect(logged).toContain('/api/v1/teams?api_key=[redacted]&page=2');
    expect(logged).toContain('?apiKey=[redacted]');
    expect(logged).not.toContain('BBBBBBBBBBBBBBBB');
    expect(logged).not.toContain('AAAAAAAAAAAAAAAA');
  });

  it('leaves other parameters alone', () => {
    expect(redactUrl('/a?month=3&keyword=x')).toBe('/a?month=3&keyword=x');
    expect(redactUrl('/a?Key=s3cret')).toBe('/a?Key=[redacted]');
    expect(redactUrl('/a?api%5Fkey=s3cret&b')).toBe('/a?api%5Fkey=[redacted]&b');
    expect(redactUrl('/a')).toBe('/a');
  });
});

/**
 * The real server listening on a port, its log written into a buffer: every URL that carries a
 * bearer secret is requested for real (a sign-in link e-mailed to a member, opened and
 * confirmed; an OAuth callback; a feed; manage links and their API twin), and the log holds
 * none of the secrets, only `[redacted]` where each was.
 */
describe('request logs never carry a sign-in link, an OAuth code or state, a feed or manage token', () => {
  const lines: string[] = [];
  let database: TestDatabase;
  let ctx: AppContext;
  let app: FastifyInstance;
  let base = '';
  beforeAll(async () => {
    database = await createTestDatabase('sqlite', { LOG_LEVEL: 'debug' });
    ctx = await createContext(database.config, { log: createLogger(database.config, lineSink(lines)) });
    app = await buildApp(ctx);
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app.close();
    await ctx.close();
    await database.drop();
  });

  it('redacts each secret from the logged URL of every request that carried it', async () => {
    const acme = await createTestAccount(ctx);
    await requestSignInLink(ctx, acme.owner.email, 'en');
    const sent: RenderedMessage[] = [];
    await runJobsCapturingMail(ctx, sent);
    const link = new URL(/https?:\/\/\S+\/app\/login\/[A-Za-z0-9_-]+/.exec(sent[0]!.text)![0]);
    const signInToken = link.pathname.split('/').pop()!;
    const secret = (label: string) => `${label}SECRET${'x'.repeat(24)}`;

    // The sign-in link: opened (its page), looked at by a scanner (HEAD), confirmed.
    const page = await fetch(`${base}${link.pathname}`);
    expect(page.status).toBe(200);
    const cookie = page.headers.get('set-cookie')!.split(';')[0]!;
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())![1]!;
    expect((await fetch(`${base}${link.pathname}`, { method: 'HEAD' })).status).toBe(200);
    const confirmed = await fetch(`${base}${link.pathname}?lang=en`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin: base },
      body: new URLSearchParams({ csrf }).toString(),
    });
    expect(confirmed.status).toBe(303);
    const requested = [
      `/oauth/zoom/callback?code=${secret('code')}&state=${secret('state')}&scope=meeting`,
      `/oauth/google/callback?state=${secret('gstate')}&code=${secret('gcode')}`,
      `/app/oauth/zoom/callback?code=${secret('appcode')}&state=${secret('appstate')}`,
      `/feeds/${secret('feed')}.ics`,
      `/booking/${secret('manage')}?lang=pl`,
      `/booking/${secret('invite')}/invitation.ics`,
      `/api/v1/public/bookings/${secret('api')}`,
      `/app/login/${secret('signin')}`,
      `/pay/00000000-0000-4000-8000-000000000000/return?token=${secret('paypal')}&PayerID=P1`,
    ];
    for (const url of requested) await (await fetch(`${base}${url}`)).text();

    const logged = lines.join('\n');
    expect(logged).not.toContain(signInToken);
    expect(logged).not.toContain('SECRET');
    for (const url of [
      '/app/login/[redacted]"',
      '/app/login/[redacted]?lang=en"',
      '/oauth/zoom/callback?code=[redacted]&state=[redacted]&scope=meeting"',
      '/oauth/google/callback?state=[redacted]&code=[redacted]"',
      '/app/oauth/zoom/callback?code=[redacted]&state=[redacted]"',
      '/feeds/[redacted].ics"',
      '/booking/[redacted]?lang=pl"',
      '/booking/[redacted]/invitation.ics"',
      '/api/v1/public/bookings/[redacted]"',
      '?token=[redacted]&PayerID=P1"',
    ])
      expect(logged).toContain(url);
    // Both the incoming line (LOG_LEVEL=debug) and the request's own line, for the confirmation.
    expect(lines.filter((line) => line.includes('"method":"POST"') && line.includes('/app/login/[redacted]')).length).toBeGreaterThanOrEqual(2);
  });

  it('redacts the sign-in token, OAuth code and state, and bearer-token parameters in any case, and nothing else', () => {
    expect(redactUrl('/APP/Login/abc?x=1')).toBe('/APP/Login/[redacted]?x=1');
    expect(redactUrl('/oauth/zoom/callback?CODE=a&State=b&error=access_denied')).toBe('/oauth/zoom/callback?CODE=[redacted]&State=[redacted]&error=access_denied');
    // code and state are the OAuth callback's secrets only; elsewhere they are ordinary words.
    expect(redactUrl('/api/v1/discount-codes?code=SPRING&state=active')).toBe('/api/v1/discount-codes?code=SPRING&state=active');
    expect(redactUrl('/x?access_token=a&id_token=b&refresh_token=c&tokens=d')).toBe('/x?access_token=[redacted]&id_token=[redacted]&refresh_token=[redacted]&tokens=d');
    expect(redactUrl('/app/login')).toBe('/app/login');
  });
});
