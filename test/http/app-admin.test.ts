import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertDeliveries } from '../../src/db/repositories/webhooks.js';
import { newId } from '../../src/ids.js';
import { publicUrlProblem } from '../../src/scheduling/integrations/apps.js';
import { Browser, csrfOf, sessionBrowser } from './app-browser.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, runJobsCapturingMail, type TestApp } from '../helpers.js';

const ADMIN_PAGES = ['/app/keys', '/app/integrations', '/app/webhooks', '/app/account'];

for (const dialect of DIALECTS) {
  describe(`the host's web app: the admin's pages [${dialect}]`, () => {
    let t: TestApp;
    beforeAll(async () => {
      // A local webhook receiver is a private address: allowed here as an operator may allow it.
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'), { ALLOW_PRIVATE_URLS: 'true', MAX_API_KEYS_PER_USER: '3' });
    });
    afterAll(async () => t.close());

    const signIn = (email: string, lang = 'en') => sessionBrowser(t, email, lang);

    async function plainMemberOf(acme: Awaited<ReturnType<typeof createTestAccount>>) {
      const email = `pat.${acme.account.uuid.slice(-8)}@acme.test`;
      const created = await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, { firstName: 'Pat', lastName: 'Plain', email });
      expect(created.statusCode).toBe(201);
      return { uuid: created.json().uuid as string, email };
    }

    it('gives the pages and their links to an admin only: a plain member gets 403 pages and can change nothing', async () => {
      const acme = await createTestAccount(t.ctx);
      const pat = await plainMemberOf(acme);
      const member = await signIn(pat.email);
      const home = await member.get('/app');
      expect(home.statusCode).toBe(200);
      for (const path of ADMIN_PAGES) {
        expect(home.body).not.toContain(`href="${path}"`);
        const page = await member.get(path);
        expect(page.statusCode).toBe(403);
        expect(page.headers['content-type']).toContain('text/html');
      }
      const csrf = csrfOf(home.body);
      expect((await member.post('/app/keys', { csrf, name: 'Mine' })).statusCode).toBe(403);
      expect((await member.post('/app/integrations/zoom', { csrf, clientId: 'x', clientSecret: 'y' })).statusCode).toBe(403);
      expect((await member.post('/app/webhooks', { csrf, url: 'https://example.com/hook', events: 'member.created' })).statusCode).toBe(403);
      expect((await member.post('/app/account/general', { csrf, name: 'Taken over', timezone: 'UTC', places: 'offline' })).statusCode).toBe(403);
      const account = (await call(t.app, acme.apiKey, 'GET', '/api/v1/account')).json();
      expect(account.name).toBe(acme.account.name);
      expect(account.integrations).toEqual([]);
      expect((await call(t.app, acme.apiKey, 'GET', '/api/v1/webhooks')).json().webhooks).toEqual([]);

      const admin = await signIn(acme.owner.email);
      const adminHome = await admin.get('/app');
      for (const path of ADMIN_PAGES) {
        expect(adminHome.body).toContain(`href="${path}"`);
        expect((await admin.get(path)).statusCode).toBe(200);
      }
    });

    it('refuses each admin form without its CSRF token (403), changing nothing', async () => {
      const acme = await createTestAccount(t.ctx);
      const admin = await signIn(acme.owner.email);
      const keysBefore = (await call(t.app, acme.apiKey, 'GET', '/api/v1/api-keys')).json();
      for (const [path, form] of [
        ['/app/keys', { name: 'Forged' }],
        ['/app/integrations/zoom', { clientId: 'forged', clientSecret: 'forged' }],
        ['/app/webhooks', { url: 'https://example.com/hook', events: 'member.created' }],
        ['/app/account/general', { name: 'Forged', timezone: 'UTC', places: 'offline' }],
      ] as const) {
        const refused = await admin.post(path, form);
        expect(refused.statusCode, path).toBe(403);
        expect((await admin.post(path, { ...form, csrf: 'forged' })).statusCode, path).toBe(403);
      }
      expect((await call(t.app, acme.apiKey, 'GET', '/api/v1/api-keys')).json()).toEqual(keysBefore);
      const account = (await call(t.app, acme.apiKey, 'GET', '/api/v1/account')).json();
      expect(account).toMatchObject({ name: acme.account.name, integrations: [] });
      expect((await call(t.app, acme.apiKey, 'GET', '/api/v1/webhooks')).json().webhooks).toEqual([]);
    });

    it('API keys: made with a label, the secret shown once (never cached, never again), working on the API until revoked', async () => {
      const acme = await createTestAccount(t.ctx);
      const admin = await signIn(acme.owner.email);
      const page = await admin.get('/app/keys');
      expect(page.headers['cache-control']).toBe('no-store');
      const csrf = csrfOf(page.body);

      const created = await admin.post('/app/keys', { csrf, name: 'Website form' });
      expect(created.statusCode).toBe(200);
      expect(created.headers['cache-control']).toBe('no-store');
      const secret = /id="new-key" value="(tmn_[^"]+)"/.exec(created.body)![1]!;
      expect(created.body).toContain('it will not be shown again');
      const listed = (await call(t.app, acme.apiKey, 'GET', '/api/v1/api-keys')).json().apiKeys as { uuid: string; name: string }[];
      const key = listed.find((candidate) => candidate.name === 'Website form')!;
      expect(key).toBeDefined();

      // The key calls the API as the admin; the page shows it by label and id, never its secret.
      expect((await call(t.app, secret, 'GET', '/api/v1/account')).statusCode).toBe(200);
      const after = await admin.get('/app/keys');
      expect(after.body).toContain('Website form');
      expect(after.body).toContain(key.uuid);
      expect(after.body).not.toContain(secret);
      expect(after.body).not.toContain(secret.split('_')[2]!);

      // The per-user limit (3 here: the owner's first key, this one, one more) as the API has it, said on the page.
      expect((await admin.post('/app/keys', { csrf, name: 'Third' })).statusCode).toBe(200);
      const over = await admin.post('/app/keys', { csrf, name: 'Fourth' });
      expect(over.statusCode).toBe(403);
      expect(over.body).toContain('revoke one before creating another');
      expect(over.body).not.toMatch(/id="new-key"/);

      // Revoke asks first; then the key stops working at once.
      const confirm = await admin.get(`/app/keys/${key.uuid}/revoke`);
      expect(confirm.statusCode).toBe(200);
      expect(confirm.body).toContain('Programs using it stop working at once');
      const revoked = await admin.post(`/app/keys/${key.uuid}/revoke`, { csrf });
      expect(revoked.statusCode).toBe(303);
      expect((await call(t.app, secret, 'GET', '/api/v1/account')).statusCode).toBe(401);
      expect((await admin.get('/app/keys?done=revoked')).body).not.toContain('Website form');
    });

    it('API keys: a blank label comes back with the problem next to the field, in the page’s language', async () => {
      const acme = await createTestAccount(t.ctx);
      const admin = await signIn(acme.owner.email, 'pl');
      const csrf = csrfOf((await admin.get('/app/keys')).body);
      const refused = await admin.post('/app/keys', { csrf, name: '   ' });
      expect(refused.statusCode).toBe(400);
      expect(refused.body).toMatch(/<input type="text" id="f-key-name"[^>]* aria-invalid="true" aria-describedby="f-key-name-error f-key-name-hint">/);
      expect(refused.body).toContain('<p class="field-error" id="f-key-name-error">Podaj etykietę (najwyżej 200 znaków).</p>');
      expect(refused.body).not.toContain('must be');
      expect(refused.body).not.toMatch(/id="new-key"/);
    });

    it('integrations: the redirect URI and the PUBLIC_URL warning; the Zoom app saved here is what Connect uses; the secret never shown', async () => {
      const acme = await createTestAccount(t.ctx);
      const admin = await signIn(acme.owner.email);
      const page = await admin.get('/app/integrations');
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain(`value="${t.ctx.config.publicUrl}/oauth/zoom/callback"`);
      expect(page.body).toContain(`value="${t.ctx.config.publicUrl}/oauth/microsoft/callback"`);
      // The test server's PUBLIC_URL is http on 127.0.0.1: the page warns.
      expect(page.body).toContain('id="public-url-warning"');
      const csrf = csrfOf(page.body);

      // Before the app: Connect is off and says why (and the server refuses it anyway).
      const before = await admin.get('/app/connections');
      expect(before.body).toMatch(/<button type="button" disabled aria-describedby="hp-zoom why-zoom">Connect<\/button>/);
      expect(before.body).toContain('your business has no app for this provider');

      const saved = await admin.post('/app/integrations/zoom', { csrf, clientId: 'zoom-app-id', clientSecret: 'zoom-very-secret' });
      expect(saved.statusCode).toBe(303);
      const shown = await admin.get('/app/integrations?done=saved');
      expect(shown.body).toContain('value="zoom-app-id"');
      expect(shown.body).not.toContain('zoom-very-secret');
      expect(shown.body).toContain('A secret is set');
      expect((await call(t.app, acme.apiKey, 'GET', '/api/v1/account')).json().integrations).toEqual([
        { provider: 'zoom', configured: true, settings: { clientId: 'zoom-app-id' } },
      ]);

      // The connect flow now runs with that app.
      const connections = await admin.get('/app/connections');
      expect(connections.body).toContain('action="/app/connections/zoom"');
      const started = await admin.post('/app/connections/zoom', { csrf });
      expect(started.statusCode).toBe(200);
      const authorize = new URL(/id="authorize" class="primary" href="([^"]+)"/.exec(started.body)![1]!.replaceAll('&#38;', '&').replaceAll('&amp;', '&'));
      expect(authorize.searchParams.get('client_id')).toBe('zoom-app-id');
      expect(authorize.searchParams.get('redirect_uri')).toBe(`${t.ctx.config.publicUrl}/oauth/zoom/callback`);

      // A new client id with the secret field left empty keeps the secret.
      expect((await admin.post('/app/integrations/zoom', { csrf, clientId: 'zoom-app-2', clientSecret: '' })).statusCode).toBe(303);
      expect((await call(t.app, acme.apiKey, 'GET', '/api/v1/account')).json().integrations[0]).toMatchObject({ configured: true, settings: { clientId: 'zoom-app-2' } });
      // Google without a secret stored: refused next to the secret field, nothing stored.
      const noSecret = await admin.post('/app/integrations/google', { csrf, clientId: 'g-app', clientSecret: '' });
      expect(noSecret.statusCode).toBe(400);
      expect(noSecret.body).toContain('<p class="field-error" id="f-google-clientSecret-error">Enter the client secret');
      expect(noSecret.body).toContain('value="g-app"');
      // A tenant that cannot be one: next to the tenant field, in Polish on the Polish page.
      const pl = new Browser(t.app, 'pl');
      pl.cookies.set('termin_session', admin.cookies.get('termin_session')!);
      const badTenant = await pl.post('/app/integrations/microsoft', { csrf, clientId: 'ms-app', clientSecret: 'ms-secret', tenant: 'a/b' });
      expect(badTenant.statusCode).toBe(400);
      expect(badTenant.body).toContain('<p class="field-error" id="f-microsoft-tenant-error">Podaj common, organizations, consumers');
      expect(badTenant.body).not.toContain('ms-secret');
      expect((await call(t.app, acme.apiKey, 'GET', '/api/v1/account')).json().integrations.map((i: { provider: string }) => i.provider)).toEqual(['zoom']);

      // Removing the app switches Connect off again.
      expect((await admin.post('/app/integrations/zoom/remove', { csrf })).statusCode).toBe(303);
      expect((await call(t.app, acme.apiKey, 'GET', '/api/v1/account')).json().integrations).toEqual([]);
      expect((await admin.get('/app/connections')).body).toContain('aria-describedby="hp-zoom why-zoom"');
    });

    it('webhooks: added with its secret shown once; the delivery log with status and attempts; Retry sends it again to the receiver', async () => {
      const received: { id: string; type: string }[] = [];
      let answer = 500;
      const receiver = http.createServer((request, response) => {
        let body = '';
        request.on('data', (chunk) => (body += chunk));
        request.on('end', () => {
          received.push({ id: String(request.headers['webhook-id']), type: JSON.parse(body).type });
          response.writeHead(answer).end();
        });
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
      try {
        const acme = await createTestAccount(t.ctx);
        const admin = await signIn(acme.owner.email);
        const csrf = csrfOf((await admin.get('/app/webhooks')).body);

        const refused = await admin.post('/app/webhooks', { csrf, url: 'not a url', events: [] });
        expect(refused.statusCode).toBe(400);
        expect(refused.body).toContain('id="f-wh-url-error"');
        expect(refused.body).toContain('<p class="field-error" id="f-wh-events-error">Choose at least one event.</p>');

        const created = await admin.post('/app/webhooks', { csrf, url, events: ['member.created', 'member.deleted'], description: 'CRM' });
        expect(created.statusCode).toBe(200);
        const secret = /id="new-secret" value="(whsec_[^"]+)"/.exec(created.body)![1]!;
        const [webhook] = (await call(t.app, acme.apiKey, 'GET', '/api/v1/webhooks')).json().webhooks as { uuid: string; events: string[] }[];
        expect(webhook!.events).toEqual(['member.created', 'member.deleted']);
        const list = await admin.get('/app/webhooks');
        expect(list.body).toContain(url);
        expect(list.body).not.toContain(secret);

        // An event; the receiver answers 500: the log says so, with a Retry.
        await plainMemberOf(acme);
        await runJobsCapturingMail(t.ctx, []);
        expect(received.map((r) => r.type)).toEqual(['member.created']);
        const failed = await admin.get(`/app/webhooks/${webhook!.uuid}`);
        expect(failed.statusCode).toBe(200);
        expect(failed.body).not.toContain(secret);
        const row = /<tr id="d-([^"]+)">([\s\S]*?)<\/tr>/.exec(failed.body)!;
        expect(row[2]).toContain('member.created');
        expect(row[2]).toContain('<td class="delivery-status">Pending</td><td>1</td>');
        expect(row[2]).toContain('<td>500</td>');
        expect(row[2]).toContain('>Retry</button>');

        answer = 204;
        const retried = await admin.post(`/app/webhooks/${webhook!.uuid}/deliveries/${row[1]}/retry`, { csrf });
        expect(retried.statusCode).toBe(303);
        await runJobsCapturingMail(t.ctx, []);
        expect(received).toHaveLength(2);
        expect(received[1]!.id).toBe(received[0]!.id);
        const delivered = await admin.get(`/app/webhooks/${webhook!.uuid}?done=retried`);
        expect(delivered.body).toContain('<td class="delivery-status">Delivered</td><td>1</td>');
        expect(delivered.body).toContain('queued again');

        // Edit (switched off, one event fewer), then delete after the confirmation page.
        expect((await admin.post(`/app/webhooks/${webhook!.uuid}`, { csrf, url, events: 'member.deleted', description: '' })).statusCode).toBe(303);
        expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/webhooks/${webhook!.uuid}`)).json()).toMatchObject({
          enabled: false,
          events: ['member.deleted'],
          description: null,
        });
        expect((await admin.get(`/app/webhooks/${webhook!.uuid}/delete`)).body).toContain('Delete this webhook?');
        expect((await admin.post(`/app/webhooks/${webhook!.uuid}/delete`, { csrf })).statusCode).toBe(303);
        expect((await call(t.app, acme.apiKey, 'GET', '/api/v1/webhooks')).json().webhooks).toEqual([]);
      } finally {
        await new Promise((resolve) => receiver.close(resolve));
      }
    });

    it('webhooks: the delivery log pages with "Older" and "Newest", 25 at a time, newest first', async () => {
      const acme = await createTestAccount(t.ctx);
      const made = await call(t.app, acme.apiKey, 'POST', '/api/v1/webhooks', { url: 'https://hooks.example.com/termin', events: ['member.created'] });
      expect(made.statusCode).toBe(201);
      const webhook = made.json().uuid as string;
      // 27 deliveries logged a minute apart (as the outbox logs them; not sent here), the newest last.
      const logged = Array.from({ length: 27 }, (_, i) => ({
        uuid: newId(t.clock.now() + i * 60_000),
        subscriptionUuid: webhook,
        accountUuid: acme.account.uuid,
        eventUuid: newId(t.clock.now() + i * 60_000),
        eventType: 'member.created' as const,
        body: '{}',
        jobUuid: newId(t.clock.now()),
        createdAt: t.clock.now() - (27 - i) * 60_000,
      }));
      await insertDeliveries(t.ctx.db, logged);
      const newestFirst = logged.map((delivery) => delivery.uuid).reverse();
      const rows = (body: string) => [...body.matchAll(/<tr id="d-([^"]+)">/g)].map((match) => match[1]);

      const admin = await signIn(acme.owner.email);
      const first = await admin.get(`/app/webhooks/${webhook}`);
      expect(rows(first.body)).toEqual(newestFirst.slice(0, 25));
      expect(first.body).not.toContain('>Newest</a>');
      const older = /<a href="([^"]+)" rel="next">Older<\/a>/.exec(first.body)![1]!.replace(/&amp;/g, '&');
      expect(older).toMatch(new RegExp(`^/app/webhooks/${webhook}\\?cursor=[^#]+#deliveries$`));
      const second = await admin.get(older.split('#')[0]!);
      expect(second.statusCode).toBe(200);
      expect(rows(second.body)).toEqual(newestFirst.slice(25));
      expect(second.body).toContain(`<a href="/app/webhooks/${webhook}#deliveries">Newest</a>`);
      expect(second.body).not.toContain('rel="next"');
      expect((await admin.get(`/app/webhooks/${webhook}?lang=pl`)).body).toContain('rel="next">Starsze</a>');
    });

    it('account: name, time zone and places saved as PATCH /account saves them; problems next to their field in Polish', async () => {
      const acme = await createTestAccount(t.ctx);
      const admin = await signIn(acme.owner.email);
      const page = await admin.get('/app/account');
      expect(page.body).toContain(`value="${acme.account.name}"`);
      const csrf = csrfOf(page.body);
      const saved = await admin.post('/app/account/general', { csrf, name: 'Acme Garden', timezone: 'Europe/Berlin', places: ['offline', 'zoom'] });
      expect(saved.statusCode).toBe(303);
      expect((await call(t.app, acme.apiKey, 'GET', '/api/v1/account')).json()).toMatchObject({ name: 'Acme Garden', timezone: 'Europe/Berlin', places: ['offline', 'zoom'] });
      expect((await admin.get('/app/account?done=saved')).body).toContain('The account was saved.');

      const pl = new Browser(t.app, 'pl');
      pl.cookies.set('termin_session', admin.cookies.get('termin_session')!);
      const refused = await pl.post('/app/account/general', { csrf, name: 'Acme Garden', timezone: 'Mars/Olympus' });
      expect(refused.statusCode).toBe(400);
      expect(refused.body).toContain('<p class="field-error" id="f-acc-timezone-error">Wybierz strefę czasową.</p>');
      expect(refused.body).toContain('<p class="field-error" id="f-acc-places-error">Wybierz co najmniej jedno miejsce.</p>');
      expect((await call(t.app, acme.apiKey, 'GET', '/api/v1/account')).json()).toMatchObject({ timezone: 'Europe/Berlin', places: ['offline', 'zoom'] });
    });
  });
}

describe('whether PUBLIC_URL can be a redirect URI the providers take', () => {
  it.each([
    ['https://termin.example.com', null],
    ['https://book.acme.pl:8443/base', null],
    ['https://203.0.114.7', null],
    ['http://termin.example.com', 'not-https'],
    ['http://127.0.0.1:3000', 'not-https'],
    ['https://localhost:3000', 'not-public'],
    ['https://app.localhost', 'not-public'],
    ['https://127.0.0.1', 'not-public'],
    ['https://10.1.2.3', 'not-public'],
    ['https://192.168.1.5', 'not-public'],
    ['https://172.20.0.1', 'not-public'],
    ['https://[::1]', 'not-public'],
    ['https://[fd00::1]', 'not-public'],
    ['https://intranet', 'not-public'],
  ])('%s → %s', (url, problem) => {
    expect(publicUrlProblem(url)).toBe(problem);
  });
});
