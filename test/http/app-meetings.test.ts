import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RenderedMessage } from '../../src/mail/message.js';
import { startFakeP24, type FakeP24 } from '../fakes/p24-gateway.js';
import { Browser, csrfOf, openAndConfirm } from './app-browser.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, runJobsCapturingMail, type TestApp } from '../helpers.js';

/**
 * The web app's meetings (issue 40, items 3 and 4): the "awaits your approval" e-mail's link
 * to the meeting's page, "Awaiting approval" on Upcoming, `/app/past`, and one meeting's page
 * with its actions (no-show included), who may see it, and refusals in the page's language.
 */

/** The text of the element with `class` (its first), tags removed. */
function textOf(html: string, cls: string): string {
  const match = new RegExp(`class="${cls}"[^>]*>([\\s\\S]*?)</`).exec(html);
  return match ? match[1]!.replace(/<[^>]+>/g, ' ').trim() : '';
}

const EVERY_DAY = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const QUESTIONS = [
  { key: 'company', label: 'Company', required: true },
  { key: 'consent', label: 'I accept the terms', type: 'checkbox' },
];

for (const dialect of DIALECTS) {
  describe(`the web app's meetings: approvals, Past, a meeting's page [${dialect}]`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'));
    });
    afterAll(async () => t.close());

    /**
     * Signs `email` in from the sign-in form at `loginPath` (whose hidden fields go with it, as
     * a browser sends them), in `browser`; the confirmation sends it to `landing`.
     */
    async function signIn(email: string, options: { browser?: Browser; loginPath?: string; next?: string; landing?: string } = {}): Promise<Browser> {
      // Sign-ins share one client address: a minute of their own keeps them under its limit (10 a minute).
      t.clock.advance(61_000);
      const browser = options.browser ?? new Browser(t.app);
      const form = await browser.get(options.loginPath ?? '/app/login');
      const hidden = /name="next" value="([^"]*)"/.exec(form.body)?.[1]?.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
      const next = options.next ?? hidden;
      await browser.post('/app/login', { csrf: csrfOf(form.body), email, lang: 'en', ...(next === undefined ? {} : { next }) });
      // The link goes out from the outbox, after whatever the bookings queued before it (the host's own e-mails too).
      const sent: RenderedMessage[] = [];
      const linkMail = () => sent.find((message) => message.to.email === email && message.text.includes('/app/login/'));
      for (let round = 0; round < 5 && linkMail() === undefined; round += 1) await runJobsCapturingMail(t.ctx, sent);
      const link = /https?:\/\/\S+(\/app\/login\/[A-Za-z0-9_-]+)/.exec(linkMail()!.text)![1]!;
      expect((await openAndConfirm(browser, link, t.ctx.config.publicUrl)).headers.location).toBe(options.landing ?? '/app');
      return browser;
    }

    /**
     * An account (Europe/Warsaw) whose owner is open 08:00–18:00 every day, a topic "Consultation" by phone with
     * questions (and `topicFields`), and `book(start)` for Jan Kowalski, who gives his phone and answers.
     */
    async function setUp(topicFields: Record<string, unknown> = {}) {
      const acme = await createTestAccount(t.ctx, { places: ['offline', 'phone-call'] });
      await call(t.app, acme.apiKey, 'PUT', `/api/v1/users/${acme.owner.uuid}/availability`, {
        timezone: 'Europe/Warsaw',
        weekly: Object.fromEntries(EVERY_DAY.map((day) => [day, [{ start: '08:00', end: '18:00' }]])),
        overrides: [],
      });
      const topic = (
        await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Consultation', durationMinutes: 30, places: ['phone-call'], form: QUESTIONS, ...topicFields })
      ).json();
      const book = async (start: string) => {
        const response = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
          dates: [{ start, username: acme.owner.username }],
          email: 'jan@example.com',
          phone: '+48 601 333 444',
          lang: 'en',
          name: 'Jan Kowalski',
          place: 'phone-call',
          meetingTopic: topic.uuid,
          timezone: 'Europe/Warsaw',
          form: { company: 'Ogrody Sp. z o.o.', consent: true },
        });
        expect(response.statusCode, response.body).toBe(201);
        return response.json().meetings[0] as { uuid: string; status: string; start: string };
      };
      /** `days` after the clock's day (when set up), at `hour`:00 UTC. */
      const today = Math.floor(t.clock.now() / 86_400_000) * 86_400_000;
      const at = (days: number, hour: number) => new Date(today + days * 86_400_000 + hour * 3_600_000).toISOString();
      return { acme, topic, book, at };
    }

    it('e-mails the host a link to the meeting’s page, where the request is approved; Upcoming lists it under Awaiting approval with its decide-by time', async () => {
      const { acme, book, at } = await setUp({ requiresApproval: true });
      const request = await book(at(2, 9));
      const another = await book(at(2, 11));
      expect(request.status).toBe('pending_approval');
      const sent: RenderedMessage[] = [];
      await runJobsCapturingMail(t.ctx, sent);
      const toHost = sent.find((message) => message.to.email === acme.owner.email && message.subject.startsWith('A request awaits your approval'))!;
      expect(toHost.text).toContain(`${t.ctx.config.publicUrl}/app/meetings/${request.uuid}`);
      expect(toHost.text).not.toContain('/api/v1/');

      // Signed out, the link asks for sign-in first, and signing in lands on it: the request with its buttons.
      const path = `/app/meetings/${request.uuid}`;
      const browser = new Browser(t.app);
      const signedOut = await browser.get(path);
      expect(signedOut.statusCode).toBe(303);
      expect(signedOut.headers.location).toBe(`/app/login?next=${encodeURIComponent(path)}`);
      const owner = await signIn(acme.owner.email, { browser, loginPath: signedOut.headers.location as string, landing: path });
      const page = await owner.get(path);
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('>Approve</button>');
      expect(page.body).toContain('>Decline</button>');
      // Decide by: 24 hours after booking (06:00 UTC), in the host's zone (07:00 in Warsaw).
      expect(textOf(page.body, 'decide-by')).toMatch(/\b0?7:00\b/);

      // A second request (the 11:00 one too needs approval): Upcoming shows both under "Awaiting approval", none under "Booked".
      const home = await owner.get('/app');
      const from = home.body.indexOf('id="awaiting-approval"');
      const awaiting = home.body.slice(from, home.body.indexOf('</section>', from));
      expect(awaiting).toContain('>Awaiting approval</h2>');
      expect(awaiting).toContain(`id="m-${request.uuid}"`);
      expect(awaiting).toContain(`id="m-${another.uuid}"`);
      expect(awaiting).toMatch(/class="decide-by">[^<]*\b0?7:00\b/);
      expect(awaiting).toContain(`<a href="/app/meetings/${request.uuid}">`);
      expect((await owner.get('/app?lang=pl')).body).toContain('>Czekają na akceptację</h2>');
      await owner.get('/app?lang=en');

      // Approved from the meeting's page: back on it, confirmed, and its history says so.
      const approved = await owner.post(`${path}/approve`, { csrf: csrfOf(page.body), back: 'meeting' });
      expect(approved.statusCode).toBe(303);
      expect(approved.headers.location).toBe(`${path}?done=approved`);
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${request.uuid}`)).json().status).toBe('confirmed');
      const after = await owner.get(`${path}?done=approved`);
      expect(after.body).toContain('The request was approved; the participant is told by e-mail.');
      expect(textOf(after.body, 'status')).toBe('Confirmed');
      expect(after.body).not.toContain('>Approve</button>');
      expect(after.body).toContain('Approved');

      // The other request, now below the page: the section is gone once nothing awaits approval.
      await owner.post(`/app/meetings/${another.uuid}/approve`, { csrf: csrfOf(page.body) });
      const settled = await owner.get('/app');
      expect(settled.body).not.toContain('id="awaiting-approval"');
      expect(settled.body).toContain(`id="m-${request.uuid}"`);
    });

    it('after sign-in, returns only to a page of the app: a hostile next, from the form or a changed cookie, lands on /app', async () => {
      const { acme } = await setUp();
      for (const hostile of [
        '//evil.example/app',
        'https://evil.example/app',
        '/app/../../evil',
        '/\\evil.example',
        '/app//evil.example',
        '/appx',
        '/app/login/x',
        'javascript:alert(1)',
      ]) {
        t.clock.advance(61_000);
        const browser = new Browser(t.app);
        const page = await browser.get(`/app/login?next=${encodeURIComponent(hostile)}`);
        expect(page.body, hostile).not.toContain('name="next"');
        await browser.post('/app/login', { csrf: csrfOf(page.body), email: acme.owner.email, lang: 'en', next: hostile });
        expect(browser.cookies.has('termin_return'), hostile).toBe(false);
      }
      // Those links sent, and past the member's limit of sign-in links (3 in 15 minutes) they used up.
      await runJobsCapturingMail(t.ctx, []);
      t.clock.advance(16 * 60_000);
      await signIn(acme.owner.email, { next: '//evil.example/app', landing: '/app' });
      // A cookie changed by hand is checked as it is read.
      const tampered = new Browser(t.app);
      tampered.cookies.set('termin_return', '//evil.example');
      await signIn(acme.owner.email, { browser: tampered, landing: '/app' });
      expect(tampered.cookies.has('termin_return')).toBe(false);
    });

    it('shows one meeting: participant with mailto: and tel: links, answers, place, no payment, messages sent', async () => {
      const { acme, book, at } = await setUp();
      const meeting = await book(at(2, 9));
      await runJobsCapturingMail(t.ctx, []);
      const owner = await signIn(acme.owner.email);
      const page = await owner.get(`/app/meetings/${meeting.uuid}`);
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('<h1>Meeting: Consultation</h1>');
      expect(page.body).toContain('Jan Kowalski');
      expect(page.body).toContain('<a href="mailto:jan@example.com">jan@example.com</a>');
      expect(page.body).toContain('<a href="tel:+48601333444">+48 601 333 444</a>');
      expect(page.body).toMatch(/<dt>Company<\/dt><dd>Ogrody Sp\. z o\.o\.<\/dd>/);
      expect(page.body).toMatch(/<dt>I accept the terms<\/dt><dd>Yes<\/dd>/);
      expect(page.body).toContain('No payment (a free topic).');
      expect(page.body).toContain('Booked and confirmed: the confirmation with the invitation e-mailed to the participant and the host');
      // A coming meeting: move and cancel, no no-show yet.
      expect(page.body).toContain(`href="/app/meetings/${meeting.uuid}/move"`);
      expect(page.body).toContain('>Cancel meeting</button>');
      expect(page.body).not.toContain('>No-show</button>');
      const pl = await owner.get(`/app/meetings/${meeting.uuid}?lang=pl`);
      expect(pl.body).toContain('<h1>Spotkanie: Consultation</h1>');
      expect(pl.body).toContain('Wiadomości i historia');
      await owner.get(`/app/meetings/${meeting.uuid}?lang=en`);

      // Cancelled from its page, with a reason: back on the page, which says so.
      const cancelled = await owner.post(`/app/meetings/${meeting.uuid}/cancel`, { csrf: csrfOf(page.body), reason: 'Host is ill', back: 'meeting' });
      expect(cancelled.headers.location).toBe(`/app/meetings/${meeting.uuid}?done=cancelled`);
      const after = await owner.get(`/app/meetings/${meeting.uuid}?done=cancelled`);
      expect(textOf(after.body, 'status')).toBe('Cancelled');
      expect(after.body).toMatch(/<dt>Why cancelled<\/dt><dd>Host is ill<\/dd>/);
      expect(after.body).not.toContain('>Cancel meeting</button>');
    });

    it('shows another account’s meeting, or a colleague’s to a plain member, as not found; the host’s team admin sees it', async () => {
      const { acme, book, at } = await setUp();
      const meeting = await book(at(2, 9));
      const other = await createTestAccount(t.ctx);
      const addMember = async (firstName: string, admin: boolean) =>
        (
          await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, {
            firstName,
            lastName: 'Member',
            email: `${firstName.toLowerCase()}.${acme.account.uuid.slice(-6)}@acme.test`,
            admin,
          })
        ).json() as { email: string };
      const plain = await addMember('Paula', false);
      const admin = await addMember('Adam', true);
      const path = `/app/meetings/${meeting.uuid}`;

      const outsider = await signIn(other.owner.email);
      const outsiderPage = await outsider.get(path);
      expect(outsiderPage.statusCode).toBe(404);
      expect(outsiderPage.body).not.toContain('Jan Kowalski');
      const colleague = await signIn(plain.email);
      const colleaguePage = await colleague.get(path);
      expect(colleaguePage.statusCode).toBe(404);
      expect(colleaguePage.body).not.toContain('Jan Kowalski');
      // The same answer as for a meeting that does not exist at all.
      expect((await colleague.get('/app/meetings/00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
      expect((await colleague.get('/app/past')).body).not.toContain('Jan Kowalski');

      const teamAdmin = await signIn(admin.email);
      const adminPage = await teamAdmin.get(path);
      expect(adminPage.statusCode).toBe(200);
      expect(adminPage.body).toContain('Jan Kowalski');
    });

    it('records a no-show only once the meeting started, says why in the page’s language, and refuses a form without its token', async () => {
      const { acme, book, at } = await setUp();
      const meeting = await book(at(1, 9));
      const owner = await signIn(acme.owner.email);
      const path = `/app/meetings/${meeting.uuid}`;
      const before = await owner.get(path);

      // Too early: the page again, with the reason in plain words (409), nothing recorded.
      const early = await owner.post(`${path}/no-show`, { csrf: csrfOf(before.body), who: 'participant' });
      expect(early.statusCode).toBe(409);
      expect(early.headers['content-type']).toContain('text/html');
      expect(textOf(early.body, 'alert')).toBe('A no-show can be recorded only once the meeting has started.');
      expect(early.body).not.toContain('MEETING_STATE_CONFLICT');
      await owner.get(`${path}?lang=pl`);
      const earlyPl = await owner.post(`${path}/no-show`, { csrf: csrfOf(before.body), who: 'participant' });
      expect(textOf(earlyPl.body, 'alert')).toBe('Nieobecność można zapisać dopiero od początku spotkania.');
      await owner.get(`${path}?lang=en`);

      t.clock.set(Date.parse(meeting.start) + 10 * 60_000);
      const started = await owner.get(path);
      expect(started.body).toContain('>No-show</button>');
      expect(started.body).not.toContain('>Cancel meeting</button>');
      // Without the form token: refused, nothing recorded.
      expect((await owner.post(`${path}/no-show`, { who: 'participant' })).statusCode).toBe(403);
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${meeting.uuid}`)).json().noShow).toBeNull();

      const marked = await owner.post(`${path}/no-show`, { csrf: csrfOf(started.body), who: 'participant' });
      expect(marked.statusCode).toBe(303);
      expect(marked.headers.location).toBe(`${path}?done=no-show-marked`);
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${meeting.uuid}`)).json().noShow).toBe('participant');
      const events = await t.ctx.db.selectFrom('events').select('type').where('subject_id', '=', meeting.uuid).where('type', '=', 'meeting.no_show').execute();
      expect(events).toHaveLength(1);
      const page = await owner.get(`${path}?done=no-show-marked`);
      expect(page.body).toContain('The no-show was recorded.');
      expect(textOf(page.body, 'no-show')).toBe('No-show: the participant did not come');
      expect(page.body).toContain('Attendance recorded');

      // Cleared again from the same page.
      const cleared = await owner.post(`${path}/no-show`, { csrf: csrfOf(page.body), who: 'none' });
      expect(cleared.headers.location).toBe(`${path}?done=no-show-cleared`);
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${meeting.uuid}`)).json().noShow).toBeNull();
    });

    it('says in the page’s language why a request can no longer be approved', async () => {
      const { acme, book, at } = await setUp({ requiresApproval: true });
      const request = await book(at(2, 9));
      const owner = await signIn(acme.owner.email);
      const path = `/app/meetings/${request.uuid}`;
      const page = await owner.get(path);
      expect((await owner.post(`${path}/decline`, { csrf: csrfOf(page.body), reason: 'Fully booked', back: 'meeting' })).headers.location).toBe(`${path}?done=declined`);
      const late = await owner.post(`${path}/approve`, { csrf: csrfOf(page.body), back: 'meeting' });
      expect(late.statusCode).toBe(409);
      expect(textOf(late.body, 'alert')).toBe('This request is no longer open: it was decided, cancelled or its deadline passed.');
      expect(late.body).toMatch(/<dt>Why declined<\/dt><dd>Fully booked<\/dd>/);
      await owner.get(`${path}?lang=pl`);
      const latePl = await owner.post(`${path}/approve`, { csrf: csrfOf(page.body), back: 'meeting' });
      expect(textOf(latePl.body, 'alert')).toBe('Ta prośba nie jest już otwarta: została rozpatrzona, odwołana albo minął jej termin.');
      // A form with a field it does not have: in words too, not a JSON 400.
      const odd = await owner.post(`${path}/approve`, { csrf: csrfOf(page.body), back: 'elsewhere' });
      expect(odd.statusCode).toBe(400);
      expect(textOf(odd.body, 'alert')).toBe('Formularz nie został wypełniony tak, jak trzeba. Spróbuj ponownie.');
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${request.uuid}`)).json().status).toBe('declined');
    });

    it('lists meetings that have started in Past, newest first, 20 a page with an "Older" link; each opens its page', async () => {
      const { acme, book, at } = await setUp();
      const booked: { uuid: string; start: string }[] = [];
      for (let i = 0; i < 21; i += 1) booked.push(await book(at(1 + Math.floor(i / 7), 7 + (i % 7))));
      const later = await book(at(9, 9));
      const cancelled = booked[20]!;
      await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${cancelled.uuid}/cancel`, {});
      t.clock.set(Date.parse(at(5, 0)));
      const owner = await signIn(acme.owner.email);

      const ids = (body: string) => [...body.matchAll(/<li class="meeting" id="m-([0-9a-f-]+)"/g)].map((match) => match[1]);
      const first = await owner.get('/app/past');
      expect(first.statusCode).toBe(200);
      expect(first.body).toContain('<h1>Past</h1>');
      expect(first.body).toContain('<a href="/app/past" aria-current="page">Past</a>');
      // The 20 latest of the 21 that have started, the cancelled one (the latest) too, with its status; the coming one is not there.
      const expected = booked
        .slice()
        .reverse()
        .map((meeting) => meeting.uuid);
      expect(ids(first.body)).toEqual(expected.slice(0, 20));
      expect(first.body).not.toContain(later.uuid);
      expect(first.body).toContain(`<a href="/app/meetings/${expected[0]}">`);
      const rowOf = (body: string, uuid: string) => body.slice(body.indexOf(`id="m-${uuid}"`), body.indexOf('</li>', body.indexOf(`id="m-${uuid}"`)));
      expect(textOf(rowOf(first.body, cancelled.uuid), 'status')).toBe('Cancelled');
      expect(textOf(rowOf(first.body, expected[1]!), 'status')).toBe('Confirmed');
      const older = /<a href="(\/app\/past\?cursor=[^"]+)" rel="next">Older<\/a>/.exec(first.body)![1]!.replace(/&amp;/g, '&');
      expect(ids((await owner.get(older)).body)).toEqual(expected.slice(20));

      // One more that took place makes 22: the last two of them are on the older page.
      const extra = await book(at(6, 9));
      t.clock.set(Date.parse(at(6, 12)));
      const again = await owner.get('/app/past');
      const all = [extra.uuid, ...expected];
      expect(ids(again.body)).toEqual(all.slice(0, 20));
      const next = /<a href="(\/app\/past\?cursor=[^"]+)" rel="next">Older<\/a>/.exec(again.body)![1]!.replace(/&amp;/g, '&');
      const second = await owner.get(next);
      expect(ids(second.body)).toEqual(all.slice(20));
      expect(second.body).toContain('<a href="/app/past">Newest</a>');
      expect(second.body).not.toContain('rel="next"');
      expect((await owner.get('/app/past?lang=pl')).body).toContain('<h1>Minione</h1>');
    });

    it('shows a paid booking’s amount, currency and payment status', async () => {
      let p24: FakeP24 | undefined;
      try {
        p24 = await startFakeP24();
        const { acme, topic, at } = await setUp();
        const gateways = { p24: { ...p24.credentials.settings, ...p24.credentials.secrets } };
        expect((await call(t.app, acme.apiKey, 'PATCH', '/api/v1/account', { gateways })).statusCode).toBe(200);
        expect((await call(t.app, acme.apiKey, 'PATCH', `/api/v1/meeting-topics/${topic.uuid}`, { price: { amount: 15000, currency: 'PLN' } })).statusCode).toBe(200);
        const response = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
          dates: [{ start: at(2, 9), username: acme.owner.username }],
          email: 'ola@example.com',
          phone: '+48 601 333 444',
          lang: 'en',
          name: 'Ola Nowak',
          place: 'phone-call',
          meetingTopic: topic.uuid,
          timezone: 'Europe/Warsaw',
          form: { company: 'Ola', consent: true },
          gateway: 'p24',
        });
        expect(response.statusCode, response.body).toBe(201);
        const owner = await signIn(acme.owner.email);
        const page = await owner.get(`/app/meetings/${response.json().meetings[0].uuid}`);
        const payment = page.body.slice(page.body.indexOf('<dl class="summary payment">'));
        expect(payment).toMatch(/<dt>Amount<\/dt><dd>[^<]*150[.,]00[^<]*\(PLN\)<\/dd>/);
        expect(textOf(payment, 'payment-status')).toBe('Awaiting payment');
      } finally {
        await p24?.close();
      }
    });
  });
}
