import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { DIALECTS, call, createTestAccount, createTestApp, expectProblem, type TestApp } from '../helpers.js';
import { PIXEL_PNG, startLogoServer } from './logo-server.js';
import { csrfOf, formValuesOf, sessionBrowser } from './app-browser.js';

for (const dialect of DIALECTS) {
  describe(`branding and the topic's own words [${dialect}]`, () => {
    // A development server (ALLOW_PRIVATE_URLS) reaches the local image server over http;
    // the default server refuses http and private addresses before fetching anything.
    let dev: TestApp;
    let strict: TestApp;
    let acme: CreatedAccount;
    let strictAccount: CreatedAccount;
    let images: Awaited<ReturnType<typeof startLogoServer>>;

    beforeAll(async () => {
      images = await startLogoServer();
      dev = await createTestApp(dialect, undefined, { ALLOW_PRIVATE_URLS: 'true' });
      strict = await createTestApp(dialect);
      acme = await createTestAccount(dev.ctx, { name: 'Acme' });
      strictAccount = await createTestAccount(strict.ctx, { name: 'Strict' });
    });
    afterAll(async () => {
      await dev?.close();
      await strict?.close();
      await images?.close();
    });

    it('PATCH /account stores the branding, the logo fetched and served by termin, and a light colour darkened for contrast', async () => {
      const response = await call(dev.app, acme.apiKey, 'PATCH', '/api/v1/account', {
        branding: { businessName: 'Acme Dental', logoUrl: `${images.url}/logo.png`, accentColor: '#FFCC00' },
      });
      expect(response.statusCode).toBe(200);
      const branding = response.json().branding;
      expect(branding).toMatchObject({ businessName: 'Acme Dental', logoUrl: `${images.url}/logo.png`, accentColor: '#ffcc00' });
      expect(branding.accentColorUsed).toMatch(/^#[0-9a-f]{6}$/);
      expect(branding.accentColorUsed).not.toBe('#ffcc00');
      expect(branding.logo).toMatch(new RegExp(`/branding/${acme.account.uuid}/logo\\?v=[0-9a-f]{16}$`));
      expect((await call(dev.app, acme.apiKey, 'GET', '/api/v1/account')).json().branding).toEqual(branding);

      const logo = await dev.app.inject({ method: 'GET', url: new URL(branding.logo).pathname + new URL(branding.logo).search });
      expect(logo.statusCode).toBe(200);
      expect(logo.headers['content-type']).toBe('image/png');
      expect(logo.rawPayload.equals(PIXEL_PNG)).toBe(true);
      expect(logo.headers['cache-control']).toContain('immutable');
      const again = await dev.app.inject({ method: 'GET', url: `/branding/${acme.account.uuid}/logo`, headers: { 'if-none-match': String(logo.headers.etag) } });
      expect(again.statusCode).toBe(304);

      // Fields change on their own; null removes.
      const renamed = await call(dev.app, acme.apiKey, 'PATCH', '/api/v1/account', { branding: { businessName: null } });
      expect(renamed.json().branding).toMatchObject({ businessName: null, logo: branding.logo, accentColor: '#ffcc00' });
      const removed = await call(dev.app, acme.apiKey, 'PATCH', '/api/v1/account', { branding: { logoUrl: null } });
      expect(removed.json().branding.logo).toBeNull();
      expect((await dev.app.inject({ method: 'GET', url: `/branding/${acme.account.uuid}/logo` })).statusCode).toBe(404);
    });

    it.each<[string, string, RegExp]>([
      ['a page, not an image', '/page.html', /not a PNG, JPEG, WebP or GIF/],
      ['an SVG', '/logo.svg', /SVG is not accepted/],
      ['an SVG served as image/png', '/lying.png', /not a PNG, JPEG, WebP or GIF/],
      ['more than 512 kB', '/huge.png', /larger than 512 kB/],
      ['a redirect', '/moved.png', /redirect/],
      ['missing', '/nothing.png', /answered 404/],
    ])('refuses a logo that is %s (400 at /branding/logoUrl), keeping what was stored', async (_name, path, message) => {
      const response = await call(dev.app, acme.apiKey, 'PATCH', '/api/v1/account', { branding: { logoUrl: `${images.url}${path}`, businessName: 'Changed' } });
      const problem = expectProblem(response, 400, 'VALIDATION_FAILED');
      expect(problem.errors).toEqual([{ path: '/branding/logoUrl', message: expect.stringMatching(message) }]);
      expect((await call(dev.app, acme.apiKey, 'GET', '/api/v1/account')).json().branding.businessName).not.toBe('Changed');
    });

    it.each<[string, object, string]>([
      ['an http logo URL', { logoUrl: 'http://cdn.example.com/logo.png' }, '/branding/logoUrl'],
      ['a logo at a private address', { logoUrl: 'https://127.0.0.1/logo.png' }, '/branding/logoUrl'],
      ['a logo at the metadata address', { logoUrl: 'https://169.254.169.254/latest/meta-data' }, '/branding/logoUrl'],
      ['a colour that is not #rrggbb', { accentColor: 'orange' }, '/branding/accentColor'],
      ['an unknown field', { font: 'Comic Sans' }, '/branding/font'],
    ])('refuses %s on a default server', async (_name, branding, path) => {
      const response = await call(strict.app, strictAccount.apiKey, 'PATCH', '/api/v1/account', { branding });
      const problem = expectProblem(response, 400, 'VALIDATION_FAILED');
      expect(problem.errors?.map((error) => error.path)).toContain(path);
    });

    it('a topic takes a confirmation message and translations, validated against its questions', async () => {
      const form = [
        { key: 'company', label: 'Company' },
        { key: 'size', label: 'Team size', type: 'select', options: ['small', 'large'] },
      ];
      const created = await call(dev.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', {
        name: 'Consultation',
        durationMinutes: 30,
        form,
        confirmationMessage: 'Bring your ID. Directions: https://acme.example/way',
        translations: { pl: { name: 'Konsultacja', confirmationMessage: 'Zabierz dowód.', form: { size: { label: 'Wielkość', options: ['mała', 'duża'] } } } },
      });
      expect(created.statusCode).toBe(201);
      expect(created.json()).toMatchObject({
        confirmationMessage: 'Bring your ID. Directions: https://acme.example/way',
        translations: { pl: { name: 'Konsultacja', form: { size: { options: ['mała', 'duża'] } } } },
      });
      const uuid = created.json().uuid as string;
      for (const [translations, path] of [
        [{ xx: { name: 'X' } }, '/translations/xx'],
        [{ pl: { form: { colour: { label: 'Kolor' } } } }, '/translations/pl/form/colour'],
        [{ pl: { form: { size: { options: ['jedna'] } } } }, '/translations/pl/form/size/options'],
        [{ pl: { name: '' } }, '/translations/pl/name'],
      ] as const) {
        const problem = expectProblem(await call(dev.app, acme.apiKey, 'PATCH', `/api/v1/meeting-topics/${uuid}`, { translations }), 400, 'VALIDATION_FAILED');
        expect(problem.errors?.map((error) => error.path)).toContain(path);
      }
      const tooLong = await call(dev.app, acme.apiKey, 'PATCH', `/api/v1/meeting-topics/${uuid}`, { confirmationMessage: 'x'.repeat(2001) });
      expect(expectProblem(tooLong, 400, 'VALIDATION_FAILED').errors?.map((error) => error.path)).toContain('/confirmationMessage');
    });

    it("the booking page shows the business's name, logo and colour, and the topic's words in the page's language", async () => {
      const own = await createTestAccount(dev.ctx, { name: 'Own account' });
      await call(dev.app, own.apiKey, 'PATCH', '/api/v1/account', { branding: { businessName: 'Zahnarzt Acme', logoUrl: `${images.url}/logo.png`, accentColor: '#22c55e' } });
      const account = (await call(dev.app, own.apiKey, 'GET', '/api/v1/account')).json();
      const topic = (
        await call(dev.app, own.apiKey, 'POST', '/api/v1/meeting-topics', {
          name: 'Check-up',
          description: 'A yearly check.',
          durationMinutes: 30,
          public: true,
          form: [{ key: 'size', label: 'Team size', type: 'select', options: ['small', 'large'] }],
          confirmationMessage: 'Bring your card <b>. Map: https://acme.example/map',
          translations: {
            pl: { name: 'Przegląd', form: { size: { label: 'Wielkość', options: ['mała', 'duża'] } }, confirmationMessage: 'Zabierz kartę. Mapa: https://acme.example/mapa' },
          },
        })
      ).json();
      const path = `/book/${own.owner.username}/${topic.uuid}`;

      const polish = await dev.app.inject({ method: 'GET', url: `${path}?lang=pl` });
      expect(polish.statusCode).toBe(200);
      const logoPath = new URL(account.branding.logo).pathname + new URL(account.branding.logo).search;
      expect(polish.body).toContain(`<img src="${logoPath.replace('&', '&#38;')}"`);
      expect(polish.body).toContain('Zahnarzt Acme');
      expect(polish.body).not.toContain('Own account');
      expect(polish.body).toContain('<h1>Przegląd</h1>');
      expect(polish.body).toContain('A yearly check.');
      expect(polish.body).toContain('Wielkość');
      expect(polish.body).toContain('<option value="small">mała</option>');
      expect(polish.body).toContain('<a href="https://acme.example/mapa">https://acme.example/mapa</a>');
      const theme = /<link rel="stylesheet" href="(\/branding\/[^"]+\/theme\.css\?v=[0-9a-f]{6})">/.exec(polish.body)?.[1];
      expect(theme).toBeDefined();
      const css = await dev.app.inject({ method: 'GET', url: theme!.replaceAll('&#38;', '&') });
      expect(css.statusCode).toBe(200);
      expect(css.headers['content-type']).toContain('text/css');
      expect(css.body).toContain(`--accent: ${account.branding.accentColorUsed};`);
      expect(account.branding.accentColorUsed).not.toBe('#22c55e');

      const list = await dev.app.inject({ method: 'GET', url: `/book/${own.owner.username}?lang=pl` });
      expect(list.body).toContain(`<img src="${logoPath.replace('&', '&#38;')}"`);
      expect(list.body).toContain('Zahnarzt Acme');
      expect(list.body).toContain('<span class="topic-name">Przegląd</span>');

      const english = await dev.app.inject({ method: 'GET', url: `${path}?lang=en` });
      expect(english.body).toContain('<h1>Check-up</h1>');
      expect(english.body).toContain('Bring your card &lt;b&gt;. Map: <a href="https://acme.example/map">');
    });

    it('/app/account has a Branding section for admins: saved as PATCH /account saves it, a refused logo or colour comes back next to its field', async () => {
      const own = await createTestAccount(dev.ctx, { name: 'App account' });
      const admin = await sessionBrowser(dev, own.owner.email);
      const page = await admin.get('/app/account');
      expect(page.body).toContain('<h2 id="h-acc-branding">Branding</h2>');
      const csrf = csrfOf(page.body);
      const saved = await admin.post('/app/account/branding', { csrf, businessName: 'App Dental', logoUrl: `${images.url}/logo.png`, accentColor: '#ffcc00' });
      expect(saved.statusCode).toBe(303);
      const branding = (await call(dev.app, own.apiKey, 'GET', '/api/v1/account')).json().branding;
      expect(branding).toMatchObject({ businessName: 'App Dental', accentColor: '#ffcc00' });
      expect(branding.logo).not.toBeNull();
      const shown = await admin.get('/app/account?done=saved');
      expect(shown.body).toContain(`Shown as ${branding.accentColorUsed}`);

      const badLogo = await admin.post('/app/account/branding', { csrf, businessName: 'App Dental', logoUrl: `${images.url}/logo.svg`, accentColor: '#ffcc00' });
      expect(badLogo.statusCode).toBe(400);
      expect(badLogo.body).toContain('id="f-acc-brand-logo-error">This logo could not be used.');
      const badColour = await admin.post('/app/account/branding', { csrf, businessName: 'App Dental', logoUrl: `${images.url}/logo.png`, accentColor: 'orange' });
      expect(badColour.statusCode).toBe(400);
      expect(badColour.body).toContain('id="f-acc-brand-accent-error">Enter a colour as # and six hexadecimal digits');
      expect(badColour.body).toContain('value="orange"');
      expect((await call(dev.app, own.apiKey, 'GET', '/api/v1/account')).json().branding).toEqual(branding);

      // Emptied fields go back to termin's look; an unchanged logo address is not fetched again.
      expect((await admin.post('/app/account/branding', { csrf, businessName: '', logoUrl: `${images.url}/logo.png`, accentColor: '' })).statusCode).toBe(303);
      expect((await call(dev.app, own.apiKey, 'GET', '/api/v1/account')).json().branding).toMatchObject({ businessName: null, accentColor: null, logo: branding.logo });
    });

    it("the topic form in /app edits the confirmation message and keeps the topic's translations", async () => {
      const own = await createTestAccount(dev.ctx, { name: 'Form account' });
      const topic = (
        await call(dev.app, own.apiKey, 'POST', '/api/v1/meeting-topics', {
          name: 'Check-up',
          durationMinutes: 30,
          confirmationMessage: 'Bring your card.',
          translations: { pl: { name: 'Przegląd' } },
        })
      ).json();
      const admin = await sessionBrowser(dev, own.owner.email);
      const page = await admin.get(`/app/topics/${topic.uuid}`);
      expect(page.body).toContain('<label for="f-confirmationMessage">Message after booking</label>');
      const values = formValuesOf(page.body, 'class="topic-form"');
      expect(values.confirmationMessage).toBe('Bring your card.');
      const saved = await admin.post(`/app/topics/${topic.uuid}`, { ...values, confirmationMessage: 'Bring your card and https://acme.example/form', op: 'save' });
      expect(saved.statusCode).toBe(303);
      expect((await call(dev.app, own.apiKey, 'GET', `/api/v1/meeting-topics/${topic.uuid}`)).json()).toMatchObject({
        confirmationMessage: 'Bring your card and https://acme.example/form',
        translations: { pl: { name: 'Przegląd' } },
      });
      const tooLong = await admin.post(`/app/topics/${topic.uuid}`, { ...values, confirmationMessage: 'x'.repeat(2001), op: 'save' });
      expect(tooLong.statusCode).toBe(400);
      expect(tooLong.body).toContain('id="f-confirmationMessage-error"');
    });

    it("the pay page shows the business's logo, name and colour, and the topic in the participant's language", async () => {
      const own = await createTestAccount(dev.ctx, { name: 'Paid account', timezone: 'UTC', places: ['zoom'] });
      const patched = await call(dev.app, own.apiKey, 'PATCH', '/api/v1/account', {
        gateways: { stripe: { secretKey: 'sk_test_x', webhookSecret: 'whsec_x' } },
        branding: { businessName: 'Acme Paid', logoUrl: `${images.url}/logo.png`, accentColor: '#ffcc00' },
      });
      expect(patched.statusCode).toBe(200);
      const topic = (
        await call(dev.app, own.apiKey, 'POST', '/api/v1/meeting-topics', {
          name: 'Consultation',
          durationMinutes: 30,
          places: ['zoom'],
          bookingWindowDays: 365,
          price: { amount: 15000, currency: 'PLN' },
          translations: { pl: { name: 'Konsultacja' } },
        })
      ).json();
      const schedule = (
        await call(dev.app, null, 'POST', '/api/v1/calculate-schedule', { username: own.owner.username, meetingTopic: topic.uuid, timezone: 'UTC', offset: 7 })
      ).json();
      const slot = schedule.days.flatMap((day: { slots: unknown[] }) => day.slots)[0];
      const booked = await call(dev.app, own.apiKey, 'POST', '/api/v1/schedule', {
        dates: [slot],
        email: 'pat@example.com',
        name: 'Pat',
        lang: 'pl',
        place: 'zoom',
        meetingTopic: topic.uuid,
        timezone: 'UTC',
        gateway: 'stripe',
      });
      expect(booked.statusCode, booked.body).toBe(201);
      const page = await dev.app.inject({ method: 'GET', url: `/pay/${booked.json().payment.uuid}/return` });
      expect(page.statusCode).toBe(200);
      const branding = patched.json().branding;
      expect(page.body).toContain(`<img src="${(new URL(branding.logo).pathname + new URL(branding.logo).search).replace('&', '&#38;')}"`);
      expect(page.body).toContain('Acme Paid');
      expect(page.body).toContain('<dd>Konsultacja</dd>');
      expect(page.body).toContain(`/branding/${own.account.uuid}/theme.css?v=${branding.accentColorUsed.slice(1)}`);
    });
  });
}
