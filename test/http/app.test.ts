import type { KyselyPlugin } from 'kysely';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createContext } from '../../src/context.js';
import type { RenderedMessage } from '../../src/mail/message.js';
import { Browser, csrfOf, openAndConfirm, signInLinkOf } from './app-browser.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, runJobsCapturingMail, type TestApp } from '../helpers.js';

for (const dialect of DIALECTS) {
  describe(`the host's web app: sign-in, session, CSRF, isolation [${dialect}]`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'));
    });
    afterAll(async () => t.close());

    /** Asks for a link for `email` from a fresh browser and returns what was e-mailed. */
    async function askForLink(browser: Browser, email: string, lang = 'en') {
      const form = await browser.get('/app/login');
      const response = await browser.post('/app/login', { csrf: csrfOf(form.body), email, lang });
      const sent: RenderedMessage[] = [];
      await runJobsCapturingMail(t.ctx, sent);
      return { response, sent };
    }

    async function signIn(email: string): Promise<Browser> {
      const browser = new Browser(t.app);
      const { sent } = await askForLink(browser, email);
      // The links asked for here (a new member's invitation, also carrying a link, may go out in the same run).
      const links = sent.filter((message) => message.text.includes('/app/login/') && message.subject.startsWith('Sign in to '));
      expect(links.map((message) => message.to.email)).toEqual([email]);
      const link = new URL(signInLinkOf(links[0]!));
      const opened = await openAndConfirm(browser, link.pathname, t.ctx.config.publicUrl);
      expect(opened.statusCode).toBe(303);
      expect(opened.headers.location).toBe('/app');
      return browser;
    }

    /**
     * The fixture of the meeting tests: an account (place offline) whose owner is open 08:00–18:00
     * Warsaw every day, a 30-minute topic "Consultation" (with `topicFields`), two meetings of Jan
     * Kowalski's booked through the API two days ahead of the clock at 10:00 and 11:00 Warsaw, and
     * another account; the owners of both signed in.
     */
    async function bookedAndSignedIn(topicFields: Record<string, unknown> = {}) {
      const acme = await createTestAccount(t.ctx, { places: ['offline'] });
      const other = await createTestAccount(t.ctx, { places: ['offline'] });
      await call(t.app, acme.apiKey, 'PUT', `/api/v1/users/${acme.owner.uuid}/availability`, {
        timezone: 'Europe/Warsaw',
        weekly: Object.fromEntries(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((day) => [day, [{ start: '08:00', end: '18:00' }]])),
        overrides: [],
      });
      const topic = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Consultation', durationMinutes: 30, places: ['offline'], ...topicFields })).json();
      const book = async (start: string) => {
        const response = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
          dates: [{ start, username: acme.owner.username }],
          email: 'jan@example.com',
          lang: 'en',
          name: 'Jan Kowalski',
          place: 'offline',
          meetingTopic: topic.uuid,
          timezone: 'Europe/Warsaw',
        });
        expect(response.statusCode).toBe(201);
        return response.json().meetings[0] as { uuid: string; status: string };
      };
      // Two days ahead of the (shared, moved) clock, 10:00 and 11:00 in Warsaw.
      const day = new Date(Math.floor(t.clock.now() / 86_400_000) * 86_400_000 + 2 * 86_400_000).toISOString().slice(0, 10);
      const first = await book(`${day}T09:00:00.000Z`);
      const second = await book(`${day}T10:00:00.000Z`);
      return { acme, other, first, second, owner: await signIn(acme.owner.email), outsider: await signIn(other.owner.email) };
    }

    it('shows the sign-in form with the contract’s labels, framing denied under the booking page’s strict CSP', async () => {
      const browser = new Browser(t.app);
      const response = await browser.get('/app/login');
      expect(response.statusCode).toBe(200);
      expect(response.body).toMatch(/<label for="f-email">E-mail<\/label>/);
      expect(response.body).toContain('>Send sign-in link</button>');
      expect(response.headers['x-frame-options']).toBe('DENY');
      const csp = String(response.headers['content-security-policy']);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(String(response.headers['set-cookie'])).toMatch(/^termin_nonce=[^;]+; Path=\/app; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
      const pl = await browser.get('/app/login', { 'accept-language': 'pl-PL' });
      expect(pl.body).toContain('<html lang="pl">');
      expect(pl.body).toContain('>Wyślij link do logowania</button>');
    });

    it('answers any address alike; only a member’s gets a single-use link valid 15 minutes', async () => {
      const acme = await createTestAccount(t.ctx);
      const stranger = await askForLink(new Browser(t.app), 'nobody@example.com');
      const member = await askForLink(new Browser(t.app), ` ${acme.owner.email.toUpperCase()} `);
      expect(stranger.response.statusCode).toBe(200);
      expect(member.response.statusCode).toBe(200);
      expect(member.response.body).toBe(stranger.response.body);
      expect(stranger.sent).toEqual([]);
      expect(member.sent).toHaveLength(1);
      expect(member.sent[0]!.to.email).toBe(acme.owner.email);
      const link = signInLinkOf(member.sent[0]!);
      expect(link.startsWith(`${t.ctx.config.publicUrl}/app/login/`)).toBe(true);
      // Only the hash is stored: the token in the e-mail is nowhere in the database.
      const token = link.split('/').pop()!;
      const stored = await t.ctx.db.selectFrom('app_sign_in_links').selectAll().execute();
      expect(JSON.stringify(stored)).not.toContain(token);

      const browser = new Browser(t.app);
      const opened = await openAndConfirm(browser, new URL(link).pathname, t.ctx.config.publicUrl);
      expect(opened.statusCode).toBe(303);
      expect(opened.headers.location).toBe('/app');
      expect(String(opened.headers['set-cookie'])).toMatch(/^termin_session=[^;]+; Path=\/app; Max-Age=2592000; HttpOnly; SameSite=Lax$/);
      const home = await browser.get('/app');
      expect(home.statusCode).toBe(200);
      expect(home.body).toContain(`${acme.owner.firstName} ${acme.owner.lastName}`);

      // A second use of the same link is refused, and signs no one in.
      const again = new Browser(t.app);
      const second = await again.get(new URL(link).pathname);
      expect(second.statusCode).toBe(410);
      // Nor is its confirmation, with a CSRF value of this browser's own login form.
      const form = await again.get('/app/login');
      expect((await again.post(new URL(link).pathname, { csrf: csrfOf(form.body) })).statusCode).toBe(403);
      expect(again.cookies.has('termin_session')).toBe(false);
      expect(second.body).toContain('This sign-in link no longer works');

      // A link left unopened for more than 15 minutes no longer works.
      const late = await askForLink(new Browser(t.app), acme.owner.email, 'pl');
      expect(late.sent[0]!.subject).toBe(`Logowanie do ${acme.account.name} w termin`);
      t.clock.advance(15 * 60_000 + 1);
      expect((await new Browser(t.app).get(new URL(signInLinkOf(late.sent[0]!)).pathname)).statusCode).toBe(410);
    });

    it('sends one member at most 3 links per 15 minutes, still answering alike', async () => {
      const acme = await createTestAccount(t.ctx);
      const counts: number[] = [];
      for (let i = 0; i < 4; i += 1) {
        const { response, sent } = await askForLink(new Browser(t.app), acme.owner.email);
        expect(response.statusCode).toBe(200);
        counts.push(sent.length);
      }
      expect(counts).toEqual([1, 1, 1, 0]);
      t.clock.advance(15 * 60_000 + 1);
      expect((await askForLink(new Browser(t.app), acme.owner.email)).sent).toHaveLength(1);
    });

    it('opening the link (GET, HEAD) uses nothing: its page names the account and the member, and only its "Sign in" button, posted from this site, signs in', async () => {
      const acme = await createTestAccount(t.ctx);
      const { sent } = await askForLink(new Browser(t.app), acme.owner.email);
      const path = new URL(signInLinkOf(sent[0]!)).pathname;
      const origin = new URL(t.ctx.config.publicUrl).origin;
      // A mail scanner or a link preview: HEAD and GET, again and again, no cookies kept.
      for (let i = 0; i < 3; i += 1) {
        for (const method of ['HEAD', 'GET'] as const) {
          const scanned = await t.app.inject({ method, url: path });
          expect(scanned.statusCode).toBe(200);
          expect(String(scanned.headers['set-cookie'] ?? '')).not.toContain('termin_session');
        }
      }
      const browser = new Browser(t.app);
      const page = await browser.get(path);
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain(`<h1>Sign in to ${acme.account.name} as ${acme.owner.email}?</h1>`);
      expect(page.body).toContain('>Sign in</button>');
      expect(page.headers['cache-control']).toBe('no-store');
      expect(page.headers['referrer-policy']).toBe('no-referrer');
      expect(browser.cookies.has('termin_session')).toBe(false);
      const pl = await new Browser(t.app).get(path, { 'accept-language': 'pl-PL' });
      expect(pl.body).toContain(`<h1>Zalogować się do ${acme.account.name} jako ${acme.owner.email}?</h1>`);
      expect(pl.body).toContain('>Zaloguj się</button>');

      // Refused, changing nothing: another site's post (its Origin, or what Sec-Fetch-Site says),
      // a sibling subdomain's, an opaque origin's; the CSRF value of another browser's page; none.
      const csrf = csrfOf(page.body);
      const crossSite: Record<string, string>[] = [
        { origin: 'https://attacker.example' },
        { origin: 'https://attacker.example', 'sec-fetch-site': 'same-origin' },
        { origin, 'sec-fetch-site': 'none' },
        { origin: 'null', 'sec-fetch-site': 'cross-site' },
        { 'sec-fetch-site': 'cross-site' },
        { 'sec-fetch-site': 'cross-site', origin: 'https://attacker.example' },
        { 'sec-fetch-site': 'same-site', origin: 'https://evil.localhost' },
      ];
      for (const headers of crossSite) {
        const refused = await browser.post(path, { csrf }, headers);
        expect(refused.statusCode).toBe(403);
        expect(refused.headers['content-type']).toContain('text/html');
      }
      // An old browser (no Sec-Fetch-Site) posting another site's form sends Origin: null, as our own
      // pages do; without this browser's nonce cookie (SameSite=Lax keeps it home) its value is no good.
      expect((await new Browser(t.app).post(path, { csrf }, { origin: 'null' })).statusCode).toBe(403);
      const other = new Browser(t.app);
      const otherPage = await other.get(path);
      expect((await browser.post(path, { csrf: csrfOf(otherPage.body) }, { origin })).statusCode).toBe(403);
      expect((await browser.post(path, {}, { origin })).statusCode).toBe(403);
      expect(browser.cookies.has('termin_session')).toBe(false);
      expect((await new Browser(t.app).get(path)).statusCode).toBe(200);

      // The button, from the page: signed in. The other browser's page is out of date then (410).
      const confirmed = await browser.post(path, { csrf }, { origin, 'sec-fetch-site': 'same-origin' });
      expect(confirmed.statusCode).toBe(303);
      expect(confirmed.headers.location).toBe('/app');
      expect(browser.cookies.has('termin_session')).toBe(true);
      expect((await browser.get('/app')).body).toContain(`${acme.owner.firstName} ${acme.owner.lastName}`);
      const late = await other.post(path, { csrf: csrfOf(otherPage.body) }, { origin, 'sec-fetch-site': 'same-origin' });
      expect(late.statusCode).toBe(410);
      expect(other.cookies.has('termin_session')).toBe(false);
      expect((await t.app.inject({ method: 'HEAD', url: path })).statusCode).toBe(410);
    });

    it('sends an address in two accounts one e-mail per account, each naming its account and signing in to it', async () => {
      const shared = 'both@example.com';
      const first = await createTestAccount(t.ctx, { name: 'Acme', ownerEmail: shared });
      const second = await createTestAccount(t.ctx, { name: 'Beta Studio', ownerEmail: shared });
      const { sent } = await askForLink(new Browser(t.app), shared);
      expect(sent.map((message) => message.subject).sort()).toEqual(['Sign in to Acme on termin', 'Sign in to Beta Studio on termin']);
      for (const account of [first, second]) {
        const message = sent.find((one) => one.subject.includes(account.account.name))!;
        expect(message.to.email).toBe(shared);
        expect(message.text).toContain(`To sign in to ${account.account.name} as ${shared}, open this link`);
        const browser = new Browser(t.app);
        const path = new URL(signInLinkOf(message)).pathname;
        expect((await browser.get(path)).body).toContain(`<h1>Sign in to ${account.account.name} as ${shared}?</h1>`);
        expect((await openAndConfirm(browser, path, t.ctx.config.publicUrl)).statusCode).toBe(303);
        // Signed in to that account: its own team is the one in the navigation.
        expect((await browser.get('/app')).body).toContain(`/app/team/${account.team.uuid}`);
      }
    });

    it('asks for a link with the very same statements for a member’s address and a stranger’s, looking no one up while the browser waits', async () => {
      const acme = await createTestAccount(t.ctx);
      const statements: string[] = [];
      const executor = t.ctx.db.getExecutor();
      const recording: KyselyPlugin = {
        transformQuery(args) {
          statements.push(executor.compileQuery(args.node, args.queryId).sql);
          return args.node;
        },
        transformResult: async (args) => args.result,
      };
      const app = await buildApp({ ...t.ctx, db: t.ctx.db.withPlugin(recording) });
      try {
        const browser = new Browser(app);
        const form = await browser.get('/app/login');
        const ask = async (email: string) => {
          statements.length = 0;
          const response = await browser.post('/app/login', { csrf: csrfOf(form.body), email });
          expect(response.statusCode).toBe(200);
          return [...statements];
        };
        const stranger = await ask('nobody-at-all@example.com');
        const member = await ask(acme.owner.email);
        expect(member).toEqual(stranger);
        expect(member.filter((sql) => /insert into "outbox"/.test(sql))).toHaveLength(1);
        expect(member.join('\n')).not.toMatch(/users|app_sign_in_links/);
        // Only the queued request exists so far: the links are made and sent by the outbox.
        expect(await t.ctx.db.selectFrom('app_sign_in_links').selectAll().where('user_id', '=', acme.owner.uuid).execute()).toEqual([]);
      } finally {
        await app.close();
      }
      const sent: RenderedMessage[] = [];
      await runJobsCapturingMail(t.ctx, sent);
      expect(sent.map((message) => message.to.email)).toEqual([acme.owner.email]);
    });

    it('refuses a form without its CSRF token (403) and changes nothing', async () => {
      const acme = await createTestAccount(t.ctx);
      const login = new Browser(t.app);
      await login.get('/app/login');
      expect((await login.post('/app/login', { email: acme.owner.email })).statusCode).toBe(403);
      expect((await login.post('/app/login', { email: acme.owner.email, csrf: 'forged' })).statusCode).toBe(403);

      const browser = await signIn(acme.owner.email);
      const before = (await call(t.app, acme.apiKey, 'GET', `/api/v1/users/${acme.owner.uuid}/availability`)).json();
      const form = { timezone: 'Europe/Warsaw', 'monday.0.start': '10:00', 'monday.0.end': '12:00', op: 'save' };
      const missing = await browser.post('/app/availability', form);
      expect(missing.statusCode).toBe(403);
      expect(missing.headers['content-type']).toContain('text/html');
      // Another session's token is no good either: tokens are bound to the session.
      const other = await signIn(acme.owner.email);
      const otherToken = csrfOf((await other.get('/app')).body);
      expect((await browser.post('/app/availability', { ...form, csrf: otherToken })).statusCode).toBe(403);
      expect((await browser.post('/app/logout', {})).statusCode).toBe(403);
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/users/${acme.owner.uuid}/availability`)).json()).toEqual(before);
    });

    it('saves weekly hours through the same use case as PUT …/availability', async () => {
      const acme = await createTestAccount(t.ctx);
      const browser = await signIn(acme.owner.email);
      const page = await browser.get('/app/availability');
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('aria-label="Monday from"');
      expect(page.body).toContain('aria-label="Monday to"');
      expect(page.body).toContain('>Add hours on Monday</button>');
      // "Add hours on Monday" without a script: the form comes back with a second row, unsaved.
      const added = await browser.post('/app/availability', {
        csrf: csrfOf(page.body),
        timezone: 'Europe/Warsaw',
        'monday.0.start': '09:00',
        'monday.0.end': '12:00',
        op: 'add:monday',
      });
      expect(added.statusCode).toBe(200);
      expect(added.body).toContain('aria-label="Monday from 2"');
      const saved = await browser.post('/app/availability', {
        csrf: csrfOf(page.body),
        timezone: 'America/New_York',
        'monday.0.start': '10:00',
        'monday.0.end': '12:00',
        'override.0.date': '2027-02-01',
        'override.0.start': '',
        'override.0.end': '',
        op: 'save',
      });
      expect(saved.statusCode).toBe(303);
      const stored = (await call(t.app, acme.apiKey, 'GET', `/api/v1/users/${acme.owner.uuid}/availability`)).json();
      expect(stored.timezone).toBe('America/New_York');
      expect(stored.weekly.monday).toEqual([{ start: '10:00', end: '12:00' }]);
      expect(stored.weekly.tuesday).toEqual([]);
      expect(stored.overrides).toEqual([{ date: '2027-02-01', intervals: [] }]);

      // Bad hours come back as a 400 page listing the problem; nothing is stored.
      const bad = await browser.post('/app/availability', { csrf: csrfOf(page.body), timezone: 'Europe/Warsaw', 'monday.0.start': '12:00', 'monday.0.end': '10:00', op: 'save' });
      expect(bad.statusCode).toBe(400);
      expect(bad.body).toContain('role="alert"');
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/users/${acme.owner.uuid}/availability`)).json().timezone).toBe('America/New_York');
    });

    it('answers "why is this time not offered?" on the availability page, in plain English and Polish', async () => {
      const acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['offline'] });
      const topic = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Intro', durationMinutes: 30, places: ['offline'] })).json() as { uuid: string };
      const booked = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
        dates: [{ start: '2027-01-06T08:00:00.000Z', username: acme.owner.username }],
        email: 'pat@example.com',
        lang: 'en',
        name: 'Pat',
        place: 'offline',
        meetingTopic: topic.uuid,
        timezone: 'Europe/Warsaw',
      });
      expect(booked.statusCode).toBe(201);
      const browser = await signIn(acme.owner.email);
      const blank = await browser.get('/app/availability');
      expect(blank.body).toContain('<label for="why-date">Date</label>');
      expect(blank.body).not.toContain('why-not-answer');
      // Wednesday 09:00 on the host's clock (Europe/Warsaw): the booked meeting is in the way.
      const taken = await browser.get(`/app/availability?why_topic=${topic.uuid}&why_date=2027-01-06&why_time=09:00`);
      expect(taken.statusCode).toBe(200);
      expect(taken.body).toContain('It is not offered because:');
      expect(taken.body).toContain('The host has another meeting then, 2027-01-06 09:00–2027-01-06 09:30 (Europe/Warsaw).');
      const free = await browser.get(`/app/availability?why_topic=${topic.uuid}&why_date=2027-01-06&why_time=10:00`);
      expect(free.body).toContain('This time is offered');
      const polish = await browser.get(`/app/availability?why_topic=${topic.uuid}&why_date=2027-01-09&why_time=10:00&lang=pl`);
      expect(polish.body).toContain('Gospodarz nie ma godzin pracy 2027-01-09 (Europe/Warsaw).');
      const invalid = await browser.get(`/app/availability?why_topic=${topic.uuid}&why_date=2027-02-30&why_time=25:00&lang=en`);
      expect(invalid.statusCode).toBe(200);
      expect(invalid.body).toContain('Choose a topic, a date and a time.');
    });

    it('keeps the session across a restart and on another instance, slides it, and ends it on sign-out', async () => {
      const acme = await createTestAccount(t.ctx);
      const browser = await signIn(acme.owner.email);
      // A second instance over the same database accepts the cookie.
      const ctx2 = await createContext(t.ctx.config, { now: t.clock.now, log: pino({ level: 'silent' }) });
      const app2 = await buildApp(ctx2);
      try {
        const elsewhere = await app2.inject({ method: 'GET', url: '/app', headers: { cookie: `termin_session=${browser.cookies.get('termin_session')}` } });
        expect(elsewhere.statusCode).toBe(200);
      } finally {
        await app2.close();
        await ctx2.close();
      }
      // Used within 30 days, it lasts 30 days from the last use.
      t.clock.advance(20 * 86_400_000);
      const renewed = await browser.get('/app');
      expect(renewed.statusCode).toBe(200);
      expect(String(renewed.headers['set-cookie'])).toContain('Max-Age=2592000');
      t.clock.advance(20 * 86_400_000);
      expect((await browser.get('/app')).statusCode).toBe(200);

      const home = await browser.get('/app');
      const cookie = browser.cookies.get('termin_session')!;
      const out = await browser.post('/app/logout', { csrf: csrfOf(home.body) });
      expect(out.statusCode).toBe(303);
      expect(out.headers.location).toBe('/app/login');
      const replayed = await t.app.inject({ method: 'GET', url: '/app', headers: { cookie: `termin_session=${cookie}` } });
      expect(replayed.statusCode).toBe(303);
      expect(replayed.headers.location).toBe('/app/login');
    });

    it('expires a session unused for 30 days', async () => {
      const acme = await createTestAccount(t.ctx);
      const browser = await signIn(acme.owner.email);
      t.clock.advance(30 * 86_400_000 + 1);
      const response = await browser.get('/app');
      expect(response.statusCode).toBe(303);
      expect(response.headers.location).toBe('/app/login');
    });

    it('never shows or changes another account’s meetings; a plain member cannot touch a colleague’s, a team admin can', async () => {
      const { acme, first, second, owner, outsider } = await bookedAndSignedIn();
      const addMember = async (firstName: string, admin: boolean) => {
        const response = await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, {
          firstName,
          lastName: 'Member',
          email: `${firstName.toLowerCase()}.${acme.account.uuid.slice(-6)}@acme.test`,
          admin,
        });
        expect(response.statusCode).toBe(201);
        return response.json() as { uuid: string; username: string; email: string };
      };
      const plain = await addMember('Paula', false);
      const admin = await addMember('Adam', true);

      const ownerHome = await owner.get('/app');
      expect(ownerHome.body).toContain('Jan Kowalski');
      expect(ownerHome.body).toContain(`id="m-${first.uuid}"`);

      const outsiderHome = await outsider.get('/app');
      expect(outsiderHome.body).not.toContain('Jan Kowalski');
      const outsiderTry = await outsider.post(`/app/meetings/${first.uuid}/cancel`, { csrf: csrfOf(outsiderHome.body), reason: 'mine now' });
      expect(outsiderTry.statusCode).toBe(404);
      expect((await outsider.get(`/app/meetings/${first.uuid}/move`)).statusCode).toBe(404);

      const member = await signIn(plain.email);
      const memberHome = await member.get('/app');
      expect(memberHome.body).not.toContain('Jan Kowalski');
      expect((await member.post(`/app/meetings/${first.uuid}/cancel`, { csrf: csrfOf(memberHome.body) })).statusCode).toBe(403);
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${first.uuid}`)).json().status).toBe('confirmed');

      const teamAdmin = await signIn(admin.email);
      const adminHome = await teamAdmin.get('/app');
      const cancelled = await teamAdmin.post(`/app/meetings/${first.uuid}/cancel`, { csrf: csrfOf(adminHome.body), reason: 'Host is ill' });
      expect(cancelled.statusCode).toBe(303);
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${first.uuid}`)).json()).toMatchObject({ status: 'cancelled', cancelReason: 'Host is ill' });
      const events = await t.ctx.db.selectFrom('events').select('id').where('subject_id', '=', first.uuid).where('type', '=', 'meeting.cancelled').execute();
      expect(events).toHaveLength(1);

      // The host moves the other meeting to a free slot offered on the move page.
      const movePage = await owner.get(`/app/meetings/${second.uuid}/move?week=1`);
      expect(movePage.statusCode).toBe(200);
      const start = /name="start" value="([^"]+)"/.exec(movePage.body)![1]!;
      const moved = await owner.post(`/app/meetings/${second.uuid}/move`, { csrf: csrfOf(movePage.body), start });
      expect(moved.statusCode).toBe(303);
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${second.uuid}`)).json().start).toBe(start);
    });

    it('offers a cancelled meeting no time of its own back on its move page: the time another booking now holds stays taken', async () => {
      t.clock.advance(61_000);
      const { acme, first, owner } = await bookedAndSignedIn();
      const firstStart = (await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${first.uuid}`)).json().start as string;
      expect((await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${first.uuid}/cancel`, { reason: 'changed plans' })).statusCode).toBe(200);
      const offered = async () => {
        const page = await owner.get(`/app/meetings/${first.uuid}/move`);
        expect(page.statusCode).toBe(200);
        return [...page.body.matchAll(/name="start" value="([^"]+)"/g)].map((match) => Date.parse(match[1]!));
      };
      // Free again once cancelled: the move page offers it like any free time.
      expect(await offered()).toContain(Date.parse(firstStart));
      // Booked by someone else, it is taken: the cancelled meeting no longer holds it, so it hides nothing.
      const topicUuid = (await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${first.uuid}`)).json().meetingTopic as string;
      const rebooked = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
        dates: [{ start: firstStart, username: acme.owner.username }],
        email: 'ola@example.com',
        lang: 'en',
        name: 'Ola Nowak',
        place: 'offline',
        meetingTopic: topicUuid,
        timezone: 'Europe/Warsaw',
      });
      expect(rebooked.statusCode).toBe(201);
      expect(await offered()).not.toContain(Date.parse(firstStart));
      t.clock.advance(61_000);
    });

    it('approves and declines a request awaiting approval from Upcoming, through the same use cases as the API, with the form token', async () => {
      // The file's sign-ins share one client address and one clock: a minute of their own, before and after, keeps
      // them from the per-address limit of the tests around (10 a minute).
      t.clock.advance(61_000);
      const { acme, first, second, owner, outsider } = await bookedAndSignedIn({ requiresApproval: true });
      const meeting = async (uuid: string) => (await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${uuid}`)).json();
      expect([first.status, second.status]).toEqual(['pending_approval', 'pending_approval']);

      const home = await owner.get('/app');
      // The request's own actions: approve, decline with a reason; no cancel form for it.
      const item = home.body.slice(home.body.indexOf(`id="m-${first.uuid}"`), home.body.indexOf('</li>', home.body.indexOf(`id="m-${first.uuid}"`)));
      expect(item).toContain('Awaiting approval');
      expect(item).toContain(`action="/app/meetings/${first.uuid}/approve"`);
      expect(item).toContain(`action="/app/meetings/${first.uuid}/decline"`);
      expect(item).toContain('>Approve</button>');
      expect(item).toContain('>Decline</button>');
      expect(item).not.toContain(`/app/meetings/${first.uuid}/cancel`);
      const polish = await owner.get('/app?lang=pl');
      expect(polish.body).toContain('>Zaakceptuj</button>');
      expect(polish.body).toContain('>Odrzuć</button>');
      // The language chosen is kept: back to English for the rest.
      await owner.get('/app?lang=en');

      // Without the form token, or from another account: refused, nothing decided.
      expect((await owner.post(`/app/meetings/${first.uuid}/approve`, {})).statusCode).toBe(403);
      const outsiderHome = await outsider.get('/app');
      expect((await outsider.post(`/app/meetings/${first.uuid}/approve`, { csrf: csrfOf(outsiderHome.body) })).statusCode).toBe(404);
      expect((await outsider.post(`/app/meetings/${second.uuid}/decline`, { csrf: csrfOf(outsiderHome.body) })).statusCode).toBe(404);
      expect((await meeting(first.uuid)).status).toBe('pending_approval');
      expect((await meeting(second.uuid)).status).toBe('pending_approval');

      const approved = await owner.post(`/app/meetings/${first.uuid}/approve`, { csrf: csrfOf(home.body) });
      expect(approved.statusCode).toBe(303);
      expect(approved.headers.location).toBe('/app?done=approved');
      expect((await meeting(first.uuid)).status).toBe('confirmed');
      const approvedEvents = await t.ctx.db
        .selectFrom('events')
        .select('type')
        .where('subject_id', '=', first.uuid)
        .where('type', 'in', ['meeting.approved', 'meeting.confirmed'])
        .execute();
      expect(approvedEvents.map((event) => event.type).sort()).toEqual(['meeting.approved', 'meeting.confirmed']);
      const after = await owner.get('/app?done=approved');
      expect(after.body).toContain('The request was approved; the participant is told by e-mail.');
      // Approved, it is a meeting like any other: move and cancel, no approve.
      expect(after.body).toContain(`action="/app/meetings/${first.uuid}/cancel"`);
      expect(after.body).not.toContain(`action="/app/meetings/${first.uuid}/approve"`);

      const declined = await owner.post(`/app/meetings/${second.uuid}/decline`, { csrf: csrfOf(home.body), reason: 'Fully booked that day' });
      expect(declined.statusCode).toBe(303);
      expect(declined.headers.location).toBe('/app?done=declined');
      expect(await meeting(second.uuid)).toMatchObject({ status: 'declined', declineReason: 'Fully booked that day' });
      const declinedHome = await owner.get('/app?done=declined');
      expect(declinedHome.body).toContain('The request was declined; the participant is told by e-mail.');
      expect(declinedHome.body).not.toContain(`id="m-${second.uuid}"`);
      t.clock.advance(61_000);
    });

    it('creates and edits a topic with the member as its host, and shows its public link', async () => {
      const acme = await createTestAccount(t.ctx, { places: ['offline', 'phone-call'] });
      const browser = await signIn(acme.owner.email);
      const form = await browser.get('/app/topics/new');
      expect(form.statusCode).toBe(200);
      const created = await browser.post('/app/topics', {
        csrf: csrfOf(form.body),
        name: 'Tax advice',
        durationMinutes: '45',
        places: ['offline', 'phone-call'],
        price: '150,00',
        currency: 'PLN',
        'question.0.label': 'Company name',
        'question.0.type': 'text',
        'question.0.required': 'on',
        'question.0.key': '',
        'question.0.options': '',
        'question.1.label': 'What is it about?',
        'question.1.type': 'text',
        'question.1.key': '',
        'question.1.options': '',
        public: 'on',
      });
      expect(created.statusCode).toBe(303);
      const uuid = /\/app\/topics\/([0-9a-f-]{36})/.exec(String(created.headers.location))![1]!;
      const topic = (await call(t.app, acme.apiKey, 'GET', `/api/v1/meeting-topics/${uuid}`)).json();
      expect(topic).toMatchObject({ name: 'Tax advice', durationMinutes: 45, places: ['offline', 'phone-call'], price: { amount: 15000, currency: 'PLN' }, public: true });
      expect(topic.hosts).toEqual([acme.owner.username]);
      expect(topic.form.map((q: { label: string; required: boolean }) => [q.label, q.required])).toEqual([
        ['Company name', true],
        ['What is it about?', false],
      ]);
      const page = await browser.get(`/app/topics/${uuid}`);
      expect(page.body).toContain(`${t.ctx.config.publicUrl}/book/${acme.owner.username}/${uuid}`);
      const edited = await browser.post(`/app/topics/${uuid}`, {
        csrf: csrfOf(page.body),
        name: 'Tax advice (short)',
        durationMinutes: '30',
        places: 'offline',
        price: '',
        currency: 'PLN',
        'question.0.label': 'Company name',
        'question.0.type': 'text',
        'question.0.key': topic.form[0].key,
        'question.0.options': '',
        public: 'on',
      });
      expect(edited.statusCode).toBe(303);
      const after = (await call(t.app, acme.apiKey, 'GET', `/api/v1/meeting-topics/${uuid}`)).json();
      expect(after).toMatchObject({ name: 'Tax advice (short)', durationMinutes: 30, places: ['offline'], price: null });
      expect(after.form).toEqual([{ ...topic.form[0], required: false }]);
      const bad = await browser.post(`/app/topics/${uuid}`, {
        csrf: csrfOf(page.body),
        name: '',
        durationMinutes: 'long',
        places: 'offline',
        price: '',
        currency: 'PLN',
      });
      expect(bad.statusCode).toBe(400);
      const list = await browser.get('/app/topics');
      expect(list.body).toContain('Tax advice (short)');
    });

    it('checks each form against its schema: a field the form does not have comes back on the page (or an error page), never as JSON', async () => {
      const acme = await createTestAccount(t.ctx, { places: ['offline'] });
      const browser = await signIn(acme.owner.email);
      const csrf = csrfOf((await browser.get('/app/topics/new')).body);
      const topic = { csrf, name: 'Intro', durationMinutes: '30', places: 'offline', price: '', currency: 'PLN' };
      const unknown = await browser.post('/app/topics', { ...topic, colour: 'red' });
      expect(unknown.statusCode).toBe(400);
      expect(unknown.headers['content-type']).toContain('text/html');
      expect(unknown.body).toContain('<li>The form sent a field it does not have (colour). Reload the page and try again.</li>');
      // The form comes back as it was sent, and nothing was created.
      expect(unknown.body).toContain('name="name" value="Intro"');
      expect((await call(t.app, acme.apiKey, 'GET', '/api/v1/meeting-topics')).json().meetingTopics).toEqual([]);
      const twice = await browser.post('/app/topics', { ...topic, name: ['Intro', 'Outro'] });
      expect(twice.statusCode).toBe(400);
      expect(twice.body).toContain('<p class="field-error" id="f-name-error">Must be string.</p>');

      const hours = await browser.post('/app/availability', { csrf, timezone: 'Europe/Warsaw', 'funday.0.start': '09:00', op: 'save' });
      expect(hours.statusCode).toBe(400);
      // In plain words, without the JSON pointer (issue 40 item 8).
      expect(hours.body).toContain('<li>The form sent a field this page does not have: reload the page and try again.</li>');
      expect(hours.body).not.toContain('/funday.0.start');
      // A form that only has a button (and its token): an error page, in HTML.
      const feed = await browser.post('/app/connections/feed', { csrf, extra: '1' });
      expect(feed.statusCode).toBe(400);
      expect(feed.headers['content-type']).toContain('text/html');
    });

    it('gives a team admin the team page (members, topics, everyone’s meetings); a plain member and another account get none of it', async () => {
      const acme = await createTestAccount(t.ctx, { places: ['offline'] });
      const other = await createTestAccount(t.ctx, { places: ['offline'] });
      const plain = (
        await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, {
          firstName: 'Pat',
          lastName: 'Plain',
          email: `pat.${acme.account.uuid.slice(-6)}@acme.test`,
        })
      ).json() as { uuid: string; email: string };
      await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Team intro', durationMinutes: 30, places: ['offline'], team: acme.team.uuid });

      const member = await signIn(plain.email);
      const memberHome = await member.get('/app');
      expect(memberHome.body).not.toContain(`/app/team/${acme.team.uuid}`);
      expect((await member.get(`/app/team/${acme.team.uuid}`)).statusCode).toBe(403);
      expect(
        (await member.post(`/app/team/${acme.team.uuid}/members`, { csrf: csrfOf(memberHome.body), firstName: 'Eve', lastName: 'X', email: 'eve@acme.test' })).statusCode,
      ).toBe(403);
      const outsider = await signIn(other.owner.email);
      expect((await outsider.get(`/app/team/${acme.team.uuid}`)).statusCode).toBe(404);

      // A meeting of Pat's: the admin sees it among everyone's, Pat's own Upcoming too.
      const allDay = Object.fromEntries(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((day) => [day, [{ start: '00:00', end: '24:00' }]]));
      expect((await call(t.app, acme.apiKey, 'PUT', `/api/v1/users/${plain.uuid}/availability`, { timezone: 'UTC', weekly: allDay, overrides: [] })).statusCode).toBe(200);
      const patTopic = (
        await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', {
          name: 'Pat call',
          durationMinutes: 30,
          places: ['offline'],
          hosts: [(await call(t.app, acme.apiKey, 'GET', `/api/v1/teams/${acme.team.uuid}/users/${plain.uuid}`)).json().username],
        })
      ).json();
      const day = new Date(Math.floor(t.clock.now() / 86_400_000) * 86_400_000 + 2 * 86_400_000).toISOString().slice(0, 10);
      const booked = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
        dates: [{ start: `${day}T10:00:00.000Z`, username: patTopic.hosts[0] }],
        email: 'zoe@example.com',
        lang: 'en',
        name: 'Zoe Zielinska',
        place: 'offline',
        meetingTopic: patTopic.uuid,
        timezone: 'UTC',
      });
      expect(booked.statusCode).toBe(201);
      expect((await member.get('/app')).body).toContain('Zoe Zielinska');

      const admin = await signIn(acme.owner.email);
      const home = await admin.get('/app');
      expect(home.body).not.toContain('Zoe Zielinska');
      expect(home.body).toContain(`href="/app/team/${acme.team.uuid}"`);
      const teamPage = await admin.get(`/app/team/${acme.team.uuid}`);
      expect(teamPage.statusCode).toBe(200);
      expect(teamPage.body).toContain('Pat Plain');
      expect(teamPage.body).toContain('Team intro');
      expect(teamPage.body).toMatch(/<dd class="host">Pat Plain<\/dd>[\s\S]*Zoe Zielinska/);
      expect(teamPage.body).not.toContain(other.owner.email);
      const csrf = csrfOf(teamPage.body);
      const email = `nina.${acme.account.uuid.slice(-6)}@acme.test`;
      const added = await admin.post(`/app/team/${acme.team.uuid}/members`, { csrf, firstName: 'Nina', lastName: 'New', email, admin: 'on' });
      expect(added.statusCode).toBe(303);
      const members = (await call(t.app, acme.apiKey, 'GET', `/api/v1/teams/${acme.team.uuid}/users`)).json().users as {
        uuid: string;
        email: string;
        admin: boolean;
        firstName: string;
      }[];
      const nina = members.find((m) => m.email === email)!;
      expect(nina).toMatchObject({ admin: true, firstName: 'Nina' });
      expect((await t.ctx.db.selectFrom('events').select('id').where('subject_id', '=', nina.uuid).where('type', '=', 'member.created').execute()).length).toBe(1);
      // The same address again is refused on the page, as the API refuses it.
      const twice = await admin.post(`/app/team/${acme.team.uuid}/members`, { csrf, firstName: 'Nina', lastName: 'New', email });
      expect(twice.statusCode).toBe(409);
      expect(twice.body).toContain('role="alert"');
      // Edit: rename and take the admin flag away (an unchecked box); then remove.
      expect((await admin.post(`/app/team/${acme.team.uuid}/members/${nina.uuid}`, { csrf, firstName: 'Nina', lastName: 'Nowak' })).statusCode).toBe(303);
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/teams/${acme.team.uuid}/users/${nina.uuid}`)).json()).toMatchObject({ lastName: 'Nowak', admin: false });
      // The owner saved unchanged by the owner is no rename, and stays admin.
      expect(
        (await admin.post(`/app/team/${acme.team.uuid}/members/${acme.owner.uuid}`, { csrf, firstName: acme.owner.firstName, lastName: acme.owner.lastName, admin: 'on' }))
          .statusCode,
      ).toBe(303);
      expect((await admin.post(`/app/team/${acme.team.uuid}/members/${nina.uuid}/remove`, { csrf })).statusCode).toBe(303);
      expect(((await call(t.app, acme.apiKey, 'GET', `/api/v1/teams/${acme.team.uuid}/users`)).json().users as { uuid: string }[]).some((m) => m.uuid === nina.uuid)).toBe(false);
      // The last admin cannot be demoted: the page says why and nothing changes.
      const last = await admin.post(`/app/team/${acme.team.uuid}/members/${acme.owner.uuid}`, { csrf, firstName: acme.owner.firstName, lastName: acme.owner.lastName });
      expect(last.statusCode).toBeGreaterThanOrEqual(400);
      expect(last.statusCode).toBeLessThan(500);
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/teams/${acme.team.uuid}/users/${acme.owner.uuid}`)).json().admin).toBe(true);
    });
    it('connections: the private feed link (and a new one), calendars through the same checks as the API, the OAuth start from the browser', async () => {
      const acme = await createTestAccount(t.ctx);
      const browser = await signIn(acme.owner.email);
      const page = await browser.get('/app/connections');
      expect(page.statusCode).toBe(200);
      const feed = /id="feed-url" value="([^"]+)"/.exec(page.body)![1]!;
      expect(feed).toMatch(new RegExp(`^${t.ctx.config.publicUrl}/feeds/.+\\.ics$`));
      expect((await t.app.inject({ method: 'GET', url: new URL(feed).pathname })).statusCode).toBe(200);
      const csrf = csrfOf(page.body);
      expect((await browser.post('/app/connections/feed', { csrf })).statusCode).toBe(303);
      const after = /id="feed-url" value="([^"]+)"/.exec((await browser.get('/app/connections')).body)![1]!;
      expect(after).not.toBe(feed);
      expect((await t.app.inject({ method: 'GET', url: new URL(feed).pathname })).statusCode).toBe(404);

      // A calendar at a private address is refused as the API refuses it, and nothing is stored.
      const refused = await browser.post('/app/connections/calendars', { csrf, type: 'ics', url: 'http://127.0.0.1:9/calendar.ics', checkConflicts: 'on' });
      expect(refused.statusCode).toBe(400);
      expect(refused.body).toContain('role="alert"');
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/users/${acme.owner.uuid}/calendars`)).json().calendars).toEqual([]);

      // Zoom without the business's app: the page says so; with it, a link to Zoom's authorization.
      const noApp = await browser.post('/app/connections/zoom', { csrf });
      expect(noApp.statusCode).toBe(400);
      expect((await call(t.app, acme.apiKey, 'PATCH', '/api/v1/account', { integrations: { zoom: { clientId: 'zoom-app', clientSecret: 'zoom-secret' } } })).statusCode).toBe(200);
      const started = await browser.post('/app/connections/zoom', { csrf });
      expect(started.statusCode).toBe(200);
      const authorize = new URL(/id="authorize" class="primary" href="([^"]+)"/.exec(started.body)![1]!.replaceAll('&#38;', '&'));
      expect(authorize.searchParams.get('client_id')).toBe('zoom-app');
      expect(authorize.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{20,}$/);
      expect(authorize.searchParams.get('redirect_uri')).toBe(`${t.ctx.config.publicUrl}/oauth/zoom/callback`);
      expect((await browser.get('/app/connections')).body).toContain('Waiting for authorization');
      expect((await browser.post('/app/connections/zoom/remove', { csrf })).statusCode).toBe(303);
      expect((await browser.post('/app/connections/nope', { csrf })).statusCode).toBe(404);
    });
  });
}

describe('the session cookie on https', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite', createClock('2027-01-04T06:00:00.000Z'), { PUBLIC_URL: 'https://termin.example' });
  });
  afterAll(async () => t.close());

  it('is Secure when PUBLIC_URL is https, and the link points there', async () => {
    const acme = await createTestAccount(t.ctx);
    const browser = new Browser(t.app);
    const form = await browser.get('/app/login');
    expect(String(form.headers['set-cookie'])).toContain('; Secure');
    await browser.post('/app/login', { csrf: csrfOf(form.body), email: acme.owner.email });
    const sent: RenderedMessage[] = [];
    await runJobsCapturingMail(t.ctx, sent);
    const link = signInLinkOf(sent[0]!);
    expect(link.startsWith('https://termin.example/app/login/')).toBe(true);
    const page = await browser.get(new URL(link).pathname);
    const opened = await browser.post(new URL(link).pathname, { csrf: csrfOf(page.body) }, { origin: 'https://termin.example' });
    expect(String(opened.headers['set-cookie'])).toMatch(/HttpOnly; SameSite=Lax; Secure$/);
  });

  it('answers 429 to the 11th sign-in request a minute from one client address, and again after the minute', async () => {
    const browser = new Browser(t.app);
    const form = await browser.get('/app/login');
    const statuses: number[] = [];
    for (let i = 0; i < 11; i += 1) statuses.push((await browser.post('/app/login', { csrf: csrfOf(form.body), email: `someone${i}@example.com` })).statusCode);
    expect(statuses.filter((status) => status === 200).length).toBeLessThanOrEqual(10);
    expect(statuses.at(-1)).toBe(429);
    t.clock.advance(60_000);
    expect((await browser.post('/app/login', { csrf: csrfOf(form.body), email: 'late@example.com' })).statusCode).toBe(200);
  });
});
