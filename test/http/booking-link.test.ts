import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RenderedMessage } from '../../src/mail/message.js';
import { requestSignInLink } from '../../src/scheduling/host-app/sign-in.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, runJobsCapturingMail, type TestApp } from '../helpers.js';
import { csrfOf, sessionBrowser } from './app-browser.js';

/**
 * Issue 40, item 9: the booking link is the business's own. An editable username whose old
 * links redirect, a topic slug, the Embed box on the topic page, and the host's e-mails in the
 * host's language.
 */
for (const dialect of DIALECTS) {
  describe(`the booking link is the business's own [${dialect}]`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'));
    });
    afterAll(async () => t.close());

    const publicTopic = async (apiKey: string, extra: Record<string, unknown> = {}) => {
      const response = await call(t.app, apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Garden walk', durationMinutes: 60, places: ['offline'], public: true, ...extra });
      expect(response.statusCode, response.body).toBe(201);
      return response.json() as { uuid: string; slug: string | null; team: string | null };
    };
    const page = (url: string) => t.app.inject({ method: 'GET', url, headers: { accept: 'text/html' } });

    it('a user changes their username through the API; the old booking links answer 301 to the new ones, query kept', async () => {
      const acme = await createTestAccount(t.ctx);
      const topic = await publicTopic(acme.apiKey);
      const old = acme.owner.username;
      const teamTopic = await publicTopic(acme.apiKey, { team: acme.team.uuid, hostWeights: { [old]: 3 } });
      const renamed = await call(t.app, acme.apiKey, 'PATCH', `/api/v1/users/${acme.owner.uuid}`, { username: `garden-${dialect}` });
      expect(renamed.statusCode, renamed.body).toBe(200);
      expect(renamed.json()).toMatchObject({ uuid: acme.owner.uuid, username: `garden-${dialect}`, language: null });

      expect((await page(`/book/garden-${dialect}/${topic.uuid}`)).statusCode).toBe(200);
      const moved = await page(`/book/${old}/${topic.uuid}?lang=pl&timezone=Europe%2FWarsaw`);
      expect(moved.statusCode).toBe(301);
      expect(moved.headers.location).toBe(`/book/garden-${dialect}/${topic.uuid}?lang=pl&timezone=Europe%2FWarsaw`);
      const list = await page(`/book/${old}`);
      expect(list.statusCode).toBe(301);
      expect(list.headers.location).toBe(`/book/garden-${dialect}`);
      // The team list shows the new username.
      const members = (await call(t.app, acme.apiKey, 'GET', `/api/v1/teams/${acme.team.uuid}/users`)).json();
      expect(members.users[0]).toMatchObject({ username: `garden-${dialect}`, language: null });
      // Settings keyed by username follow the host.
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meeting-topics/${teamTopic.uuid}`)).json()).toMatchObject({
        hosts: [`garden-${dialect}`],
        hostWeights: { [`garden-${dialect}`]: 3 },
      });
      // A username nobody ever had stays a 404 page.
      expect((await page(`/book/nobody-had-this-${dialect}`)).statusCode).toBe(404);
    });

    it('refuses a malformed or reserved username (400) and one another user has or gave up (409 USERNAME_TAKEN); the owner may take theirs back', async () => {
      const anna = await createTestAccount(t.ctx);
      const bob = await createTestAccount(t.ctx);
      for (const username of ['Anna', 'anna_nowak', 'anna-', '', 'teams', 'a'.repeat(65)]) {
        const bad = expectProblem(await call(t.app, anna.apiKey, 'PATCH', `/api/v1/users/${anna.owner.uuid}`, { username }), 400, 'VALIDATION_FAILED');
        expect(bad.errors!.map((error) => error.path)).toEqual(['/username']);
      }
      expectProblem(await call(t.app, anna.apiKey, 'PATCH', `/api/v1/users/${anna.owner.uuid}`, { username: bob.owner.username }), 409, 'USERNAME_TAKEN');

      const annasOld = anna.owner.username;
      expect((await call(t.app, anna.apiKey, 'PATCH', `/api/v1/users/${anna.owner.uuid}`, { username: `anna-${dialect}` })).statusCode).toBe(200);
      // Anna's old link still points at her: nobody else may take it.
      expectProblem(await call(t.app, bob.apiKey, 'PATCH', `/api/v1/users/${bob.owner.uuid}`, { username: annasOld }), 409, 'USERNAME_TAKEN');
      const back = await call(t.app, anna.apiKey, 'PATCH', `/api/v1/users/${anna.owner.uuid}`, { username: annasOld });
      expect(back.json()).toMatchObject({ username: annasOld });
      // Another account's user is not found, and nothing changed.
      expectProblem(await call(t.app, bob.apiKey, 'PATCH', `/api/v1/users/${anna.owner.uuid}`, { username: 'stolen' }), 404, 'NOT_FOUND');
      expect((await page(`/book/${annasOld}`)).statusCode).toBe(200);
    });

    it('a topic slug opens the same booking page as its uuid, is unique per host and team (409 SLUG_TAKEN), and must be a slug (400)', async () => {
      const acme = await createTestAccount(t.ctx);
      const username = acme.owner.username;
      const topic = await publicTopic(acme.apiKey, { slug: 'intro-call', name: 'Intro call' });
      expect(topic.slug).toBe('intro-call');
      const bySlug = await page(`/book/${username}/intro-call`);
      expect(bySlug.statusCode).toBe(200);
      expect(bySlug.body).toContain('Intro call');
      expect(bySlug.body).toContain(topic.uuid);
      // The host's list links by slug.
      expect((await page(`/book/${username}`)).body).toContain(`/book/${username}/intro-call`);

      expectProblem(await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Other', durationMinutes: 30, slug: 'intro-call' }), 409, 'SLUG_TAKEN');
      for (const slug of ['Intro Call', 'intro--call', '0b3f1c2e-1d2c-4b5a-9e8f-0a1b2c3d4e5f', 'x'.repeat(61)]) {
        const bad = expectProblem(await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Other', durationMinutes: 30, slug }), 400, 'VALIDATION_FAILED');
        expect(bad.errors!.map((error) => error.path)).toEqual(['/slug']);
      }
      // Another account's host may use the same slug: it is their own link.
      const other = await createTestAccount(t.ctx);
      await publicTopic(other.apiKey, { slug: 'intro-call', name: 'Their intro' });
      expect((await page(`/book/${other.owner.username}/intro-call`)).body).toContain('Their intro');
      expect((await page(`/book/${username}/intro-call`)).body).toContain('Intro call');

      // A team topic's slug: the team's link and each host's.
      const team = await publicTopic(acme.apiKey, { slug: 'team-call', name: 'Team call', team: acme.team.uuid });
      expect((await page(`/book/teams/${acme.team.uuid}/team-call`)).body).toContain('Team call');
      expect((await page(`/book/${username}/team-call`)).body).toContain('Team call');
      expectProblem(await call(t.app, acme.apiKey, 'PATCH', `/api/v1/meeting-topics/${team.uuid}`, { slug: 'intro-call' }), 409, 'SLUG_TAKEN');

      // Cleared: the slug link is gone, the uuid link stays.
      const cleared = await call(t.app, acme.apiKey, 'PATCH', `/api/v1/meeting-topics/${topic.uuid}`, { slug: null });
      expect(cleared.json()).toMatchObject({ slug: null });
      expect((await page(`/book/${username}/intro-call`)).statusCode).toBe(404);
      expect((await page(`/book/${username}/${topic.uuid}`)).statusCode).toBe(200);
    });

    it('a private topic is no page by its slug either, and an old username with a slug redirects to the new one', async () => {
      const acme = await createTestAccount(t.ctx);
      await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Staff', durationMinutes: 30, slug: 'staff' });
      expect((await page(`/book/${acme.owner.username}/staff`)).statusCode).toBe(404);
      await publicTopic(acme.apiKey, { slug: 'consult' });
      const old = acme.owner.username;
      await call(t.app, acme.apiKey, 'PATCH', `/api/v1/users/${acme.owner.uuid}`, { username: `consults-${dialect}` });
      const moved = await page(`/book/${old}/consult`);
      expect(moved.statusCode).toBe(301);
      expect(moved.headers.location).toBe(`/book/consults-${dialect}/consult`);
    });

    it('the profile page changes the username and the e-mail language (CSRF checked), showing a taken one next to its field', async () => {
      const acme = await createTestAccount(t.ctx);
      const other = await createTestAccount(t.ctx);
      const browser = await sessionBrowser(t, acme.owner.email);
      const form = await browser.get('/app/profile');
      expect(form.statusCode).toBe(200);
      expect(form.body).toContain(`value="${acme.owner.username}"`);
      expect(form.body).toContain('href="/app/profile" aria-current="page"');

      expect((await browser.post('/app/profile', { csrf: 'forged', username: 'forged-name', language: 'pl' })).statusCode).toBe(403);

      const taken = await browser.post('/app/profile', { csrf: csrfOf(form.body), username: other.owner.username, language: 'pl' });
      expect(taken.statusCode).toBe(409);
      expect(taken.body).toContain('id="f-username-error"');
      expect(taken.body).toContain('This username is taken.');
      const malformed = await browser.post('/app/profile', { csrf: csrfOf(form.body), username: 'Olga Owner', language: 'pl' });
      expect(malformed.statusCode).toBe(400);
      expect(malformed.body).toContain('Use lower-case letters, digits and single hyphens');

      const saved = await browser.post('/app/profile', { csrf: csrfOf(form.body), username: `olga-${dialect}`, language: 'pl' });
      expect(saved.statusCode).toBe(303);
      expect(saved.headers.location).toBe('/app/profile?done=saved');
      const member = (await call(t.app, acme.apiKey, 'GET', `/api/v1/teams/${acme.team.uuid}/users/${acme.owner.uuid}`)).json();
      expect(member).toMatchObject({ username: `olga-${dialect}`, language: 'pl' });
      const after = await browser.get('/app/profile?done=saved&lang=pl');
      expect(after.body).toContain('Profil został zapisany.');
      expect(after.body).toContain(`/book/olga-${dialect}`);
    });

    it("an admin changes a member's username on the team page; a taken one is refused in the page's words", async () => {
      const acme = await createTestAccount(t.ctx);
      const other = await createTestAccount(t.ctx);
      const added = await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, {
        firstName: 'Piotr',
        lastName: 'Zieliński',
        email: `piotr-${dialect}@acme.test`,
      });
      const piotr = added.json() as { uuid: string; username: string };
      const browser = await sessionBrowser(t, acme.owner.email);
      const teamPage = await browser.get(`/app/team/${acme.team.uuid}`);
      expect(teamPage.body).toContain(`name="username" value="${piotr.username}"`);
      const form = { csrf: csrfOf(teamPage.body), firstName: 'Piotr', lastName: 'Zieliński' };
      const taken = await browser.post(`/app/team/${acme.team.uuid}/members/${piotr.uuid}`, { ...form, username: other.owner.username });
      expect(taken.statusCode).toBe(409);
      expect(taken.body).toContain('This username is taken. Choose another.');
      const saved = await browser.post(`/app/team/${acme.team.uuid}/members/${piotr.uuid}`, { ...form, username: `piotr-${dialect}` });
      expect(saved.statusCode).toBe(303);
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/teams/${acme.team.uuid}/users/${piotr.uuid}`)).json()).toMatchObject({ username: `piotr-${dialect}`, admin: false });
      expect((await page(`/book/${piotr.username}`)).headers.location).toBe(`/book/piotr-${dialect}`);
    });

    it('the topic page shows the slug link and an Embed box: the snippet to paste, a copy button and a preview frame the page may show', async () => {
      const acme = await createTestAccount(t.ctx);
      const browser = await sessionBrowser(t, acme.owner.email);
      const blank = await browser.get('/app/topics/new');
      expect(blank.body).toContain('id="f-slug"');
      const created = await browser.post('/app/topics', {
        csrf: csrfOf(blank.body),
        op: 'save',
        name: 'Garden "walk"',
        durationMinutes: '60',
        places: ['offline'],
        'placeDetails.offline': 'ul. Prosta 1',
        public: 'on',
        slug: 'garden-walk',
      });
      expect(created.statusCode, created.body).toBe(303);
      const topicPage = await browser.get(String(created.headers.location));
      const link = `${t.ctx.config.publicUrl}/book/${acme.owner.username}/garden-walk`;
      expect(topicPage.body).toContain(`id="public-link" value="${link}"`);
      expect(topicPage.body).toContain('<details class="embed" id="embed"><summary>Embed on your website</summary>');
      // The snippet, as text to copy: the embed script with this page's link and title.
      const snippet = /<textarea id="embed-code"[^>]*>([^<]*)<\/textarea>/
        .exec(topicPage.body)![1]!
        .replaceAll('&#34;', '"')
        .replaceAll('&#60;', '<')
        .replaceAll('&#62;', '>')
        .replaceAll('&#38;', '&');
      expect(snippet).toBe(`<script src="${t.ctx.config.publicUrl}/embed.js" data-termin-booking="${link}" data-termin-title="Garden &quot;walk&quot;"></script>`);
      expect(topicPage.body).toContain('class="copy-link" data-copy="embed-code"');
      expect(topicPage.body).toContain(
        `<iframe class="embed-preview" id="embed-preview" src="/book/${acme.owner.username}/garden-walk" title="Booking page preview: Garden &#34;walk&#34;"`,
      );
      // /app stays unframeable but may frame the booking page; the booking page may be framed.
      expect(topicPage.headers['content-security-policy']).toContain("frame-src 'self'");
      expect(topicPage.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(topicPage.headers['x-frame-options']).toBe('DENY');
      const booking = await browser.get(`/book/${acme.owner.username}/garden-walk`);
      expect(booking.statusCode).toBe(200);
      expect(booking.headers['content-security-policy']).toContain('frame-ancestors *');
      expect(booking.headers['x-frame-options']).toBeUndefined();

      // A slug another topic of the host uses comes back next to the field, in the page's words.
      const second = await browser.get('/app/topics/new?lang=pl');
      const clash = await browser.post('/app/topics', {
        csrf: csrfOf(second.body),
        op: 'save',
        name: 'Drugi',
        durationMinutes: '30',
        places: ['offline'],
        'placeDetails.offline': 'ul. Prosta 1',
        slug: 'garden-walk',
      });
      expect(clash.statusCode).toBe(400);
      expect(clash.body).toContain('id="f-slug-error"');
      expect(clash.body).toContain('Inny temat tej samej osoby lub zespołu ma już ten własny link.');
    });

    it("e-mails to the host come in the host's language: a Polish host booked by an English participant gets Polish, the participant English", async () => {
      const acme = await createTestAccount(t.ctx);
      const topic = await publicTopic(acme.apiKey, { name: 'Konsultacja' });
      const approval = await publicTopic(acme.apiKey, { name: 'Wizyta', requiresApproval: true });
      expect((await call(t.app, acme.apiKey, 'PATCH', `/api/v1/users/${acme.owner.uuid}`, { language: 'pl' })).json()).toMatchObject({ language: 'pl' });
      const sent: RenderedMessage[] = [];
      await runJobsCapturingMail(t.ctx, sent);
      sent.length = 0;

      const book = async (meetingTopic: string, start: string, email: string) => {
        const response = await t.app.inject({
          method: 'POST',
          url: '/api/v1/public/schedule',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          payload: JSON.stringify({
            dates: [{ start, username: acme.owner.username }],
            meetingTopic,
            email,
            name: 'Emma Smith',
            lang: 'en',
            place: 'offline',
            timezone: 'Europe/London',
          }),
        });
        expect(response.statusCode, response.body).toBe(201);
      };
      await book(topic.uuid, '2027-01-05T09:00:00.000Z', 'emma@example.com');
      await book(approval.uuid, '2027-01-06T09:00:00.000Z', 'emma2@example.com');
      await runJobsCapturingMail(t.ctx, sent);

      const toParticipant = sent.find((message) => message.to.email === 'emma@example.com')!;
      expect(toParticipant.subject).toMatch(/^Confirmed: Konsultacja/);
      expect(toParticipant.html).toContain('<html lang="en">');
      const toHost = sent.filter((message) => message.to.email === acme.owner.email);
      const newBooking = toHost.find((message) => message.subject.includes('Konsultacja'))!;
      expect(newBooking.subject).toMatch(/^Nowa rezerwacja: Konsultacja/);
      expect(newBooking.html).toContain('<html lang="pl">');
      const awaiting = toHost.find((message) => message.subject.includes('Wizyta'))!;
      expect(awaiting.subject).toMatch(/^Prośba czeka na Twoją akceptację: Wizyta/);
      expect(sent.find((message) => message.to.email === 'emma2@example.com')!.html).toContain('<html lang="en">');

      // The sign-in link too, whatever language the sign-in page was in.
      await requestSignInLink(t.ctx, acme.owner.email, 'en');
      sent.length = 0;
      await runJobsCapturingMail(t.ctx, sent);
      expect(sent.find((message) => message.to.email === acme.owner.email)!.html).toContain('<html lang="pl">');
    });
  });
}
