import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoIfEmpty } from '../../src/scheduling/operator/seed-demo.js';
import { type FakeGoogle, startFakeGoogle } from '../fakes/google.js';
import { type FakeMicrosoft, startFakeMicrosoft } from '../fakes/microsoft.js';
import { Browser, csrfOf, openAndConfirm, signInLinkOf } from './app-browser.js';
import { DIALECTS, call, createClock, createTestApp } from '../helpers.js';
import { type Harness, startHarness } from '../integrations/harness.js';

/**
 * Issue 40 (items 2a, 5, 7): a new host's first run in the web app. Google and Microsoft
 * calendars added on a connection from /app/connections (against the stand-ins); a new
 * member's invitation e-mail with a working sign-in link; the checklist on Upcoming; the demo
 * topic offering only places that work out of the box; and the booking page asking a phone
 * call's participant for their number when the host gave none.
 */

for (const dialect of DIALECTS) {
  describe(`a new host's first run in the web app [${dialect}]`, { shuffle: false }, () => {
    let h: Harness;
    let google: FakeGoogle;
    let ms: FakeMicrosoft;
    const invitationsTo = (email: string) => h.sent.filter((mail) => mail.to.email === email && /invited you|zaprasza Cię/.test(mail.subject));

    beforeAll(async () => {
      const clock = createClock('2027-01-04T06:00:00.000Z');
      google = await startFakeGoogle({ now: clock.now, accountEmail: 'olga@acme-workspace.example' });
      ms = await startFakeMicrosoft({ now: clock.now, accountEmail: 'olga@contoso.onmicrosoft.com' });
      h = await startHarness(dialect, clock, { ...google.env, ...ms.env }, ['offline', 'phone-call', 'zoom', 'google-meet', 'teamsForBusiness']);
      await h.api('PATCH', '/api/v1/account', {
        integrations: { google: { clientId: google.clientId, clientSecret: google.clientSecret }, microsoft: { clientId: ms.clientId, clientSecret: ms.clientSecret } },
      });
    }, 60_000);

    afterAll(async () => {
      await h?.close();
      await google?.close();
      await ms?.close();
    });

    /** A browser signed in as `email` through a link asked for on /app/login. */
    async function signIn(email: string): Promise<Browser> {
      const browser = new Browser(h.app);
      const form = await browser.get('/app/login');
      await h.runJobs();
      const before = h.sent.length;
      expect((await browser.post('/app/login', { csrf: csrfOf(form.body), email, lang: 'en' })).statusCode).toBe(200);
      await h.runJobs();
      const link = h.sent.slice(before).find((mail) => mail.to.email === email && mail.subject.startsWith('Sign in to '));
      const opened = await openAndConfirm(browser, new URL(signInLinkOf(link!)).pathname, h.ctx.config.publicUrl);
      expect(opened.statusCode).toBe(303);
      return browser;
    }

    it('adds a Google and a Microsoft calendar on the member’s own connections from /app/connections, as POST …/calendars does', async () => {
      const owner = await signIn(h.acme.owner.email);
      const calendars = async () => ((await h.api('GET', `/api/v1/users/${h.acme.owner.uuid}/calendars`)).json() as { calendars: Record<string, unknown>[] }).calendars;

      // Before connecting, no calendar can be added on a connection, and a post says what to connect first.
      const unconnected = await owner.get('/app/connections');
      expect(unconnected.body).not.toContain('action="/app/connections/google/calendars"');
      const early = await owner.post('/app/connections/google/calendars', { csrf: csrfOf(unconnected.body), calendarId: 'primary', checkConflicts: 'on' });
      expect(early.statusCode).toBe(400);
      expect(early.body).toMatch(/role="alert">Connect Google first, then add its calendar\./);

      expect((await h.connect(h.acme.owner.uuid, 'google', google)).callback.statusCode).toBe(200);
      expect((await h.connect(h.acme.owner.uuid, 'microsoft', ms)).callback.statusCode).toBe(200);
      const page = await owner.get('/app/connections');
      const csrf = csrfOf(page.body);
      expect(page.body).toContain('action="/app/connections/google/calendars"');
      expect(page.body).toContain('action="/app/connections/microsoft/calendars"');
      expect(page.body).toContain('<label for="f-google-cal-id">Calendar ID</label>');
      expect(page.body).not.toContain('action="/app/connections/zoom/calendars"');

      const added = await owner.post('/app/connections/google/calendars', { csrf, calendarId: 'primary', checkConflicts: 'on', writeMeetings: 'on' });
      expect(added.statusCode).toBe(303);
      expect(added.headers.location).toBe('/app/connections?done=calendar-added');
      // Read at once from Google, as the API's calendar is.
      expect(google.apiCalls.some((c) => c.method === 'GET' && c.path.startsWith('/calendar/v3/calendars/primary/events?'))).toBe(true);
      const outlook = await owner.post('/app/connections/microsoft/calendars', { csrf, calendarId: 'primary', checkConflicts: 'on' });
      expect(outlook.statusCode).toBe(303);
      expect(await calendars()).toEqual([
        expect.objectContaining({ type: 'google', url: 'google:primary', checkConflicts: true, writeMeetings: true, status: 'ok' }),
        expect.objectContaining({ type: 'microsoft', checkConflicts: true, writeMeetings: false, status: 'ok' }),
      ]);
      const listed = (await owner.get('/app/connections?done=calendar-added')).body;
      expect(listed).toContain('The calendar was added.');
      // Each in words: the provider's calendar and its name, not the stored "GOOGLE: google:primary".
      const headings = [...listed.matchAll(/<h3 id="hc-[^"]+">([^<]*)<\/h3>\s*<p class="status">([^<]*)</g)].map((match) => [match[1], match[2]]);
      expect(headings).toEqual([
        ['Google Calendar: main calendar', 'Read successfully'],
        ['Outlook calendar (Microsoft): main calendar', 'Read successfully'],
      ]);
      expect(listed).not.toContain('google:primary');
      const polish = (await owner.get('/app/connections?lang=pl')).body;
      expect(polish).toContain('>Kalendarz Google: kalendarz główny</h3>');
      await owner.get('/app/connections?lang=en');

      // Only Google and Microsoft hold calendars; a Zoom "calendar" is refused on the page, nothing stored.
      const zoom = await owner.post('/app/connections/zoom/calendars', { csrf, calendarId: 'primary' });
      expect(zoom.statusCode).toBe(400);
      expect(await calendars()).toHaveLength(2);
    });

    it('sends a new member one invitation naming the account and who invited them, whose link signs them in for 7 days; none to one added back', async () => {
      const email = `nina.${h.acme.account.uuid.slice(-6)}@acme.test`;
      const added = await h.api('POST', `/api/v1/teams/${h.acme.team.uuid}/users`, { firstName: 'Nina', lastName: 'Nowak', email });
      expect(added.statusCode).toBe(201);
      const nina = added.json() as { uuid: string };
      await h.runJobs();
      await h.runJobs();
      const [invitation, ...more] = invitationsTo(email);
      expect(more).toEqual([]);
      const inviter = `${h.acme.owner.firstName} ${h.acme.owner.lastName}`;
      expect(invitation!.subject).toBe(`${inviter} invited you to ${h.acme.account.name} on termin`);
      expect(invitation!.text).toContain(`${inviter} added you to the team "${h.acme.team.name}" of ${h.acme.account.name}`);
      expect(invitation!.text).toContain(`To sign in as ${email}`);

      // The link still works an hour later (a sign-in link asked for would not), once.
      h.clock.advance(3_600_000);
      const browser = new Browser(h.app);
      const opened = await openAndConfirm(browser, new URL(signInLinkOf(invitation!)).pathname, h.ctx.config.publicUrl);
      expect(opened.statusCode).toBe(303);
      expect(opened.headers.location).toBe('/app');
      expect((await browser.get('/app')).body).toContain('Signed in as Nina Nowak');
      expect((await new Browser(h.app).get(new URL(signInLinkOf(invitation!)).pathname)).statusCode).toBe(410);

      // Taken out of the account's only team (deactivated) and added back: no second invitation.
      expect((await h.api('DELETE', `/api/v1/teams/${h.acme.team.uuid}/users/${nina.uuid}`)).statusCode).toBe(204);
      expect((await h.api('POST', `/api/v1/teams/${h.acme.team.uuid}/users`, { firstName: 'Nina', lastName: 'Nowak', email })).statusCode).toBe(201);
      await h.runJobs();
      expect(invitationsTo(email)).toHaveLength(1);

      // Added by an admin from /app in Polish: the invitation is in Polish.
      const owner = await signIn(h.acme.owner.email);
      const team = await owner.get(`/app/team/${h.acme.team.uuid}?lang=pl`);
      const polish = `pia.${h.acme.account.uuid.slice(-6)}@acme.test`;
      const posted = await owner.post(`/app/team/${h.acme.team.uuid}/members`, { csrf: csrfOf(team.body), firstName: 'Pia', lastName: 'Pawlak', email: polish });
      expect(posted.statusCode).toBe(303);
      await h.runJobs();
      const [pl] = invitationsTo(polish);
      expect(pl!.subject).toBe(`${inviter} zaprasza Cię do ${h.acme.account.name} w termin`);
      expect(pl!.text).toContain('(działa raz, przez 7 dni)');
    });

    it('shows a new host the first-run checklist on Upcoming, each step linking to its page, until hours, a topic, a place to meet and the shared link are done', async () => {
      const email = `kai.${h.acme.account.uuid.slice(-6)}@acme.test`;
      const kai = (await h.api('POST', `/api/v1/teams/${h.acme.team.uuid}/users`, { firstName: 'Kai', lastName: 'Kowal', email })).json() as { uuid: string; username: string };
      await h.runJobs();
      const browser = new Browser(h.app);
      expect((await openAndConfirm(browser, new URL(signInLinkOf(invitationsTo(email)[0]!)).pathname, h.ctx.config.publicUrl)).statusCode).toBe(303);

      const checklist = async (lang = 'en') => {
        const page = await browser.get(`/app?lang=${lang}`);
        expect(page.statusCode).toBe(200);
        const section = /<section class="checklist"[\s\S]*?<\/section>/.exec(page.body)?.[0] ?? null;
        return { page, section, done: section ? [...section.matchAll(/<li id="step-([a-z]+)" class="step-done"/g)].map((m) => m[1]) : null };
      };
      const first = await checklist();
      expect(first.section).toContain('Get ready to take bookings');
      expect(first.section).toContain('0 of 4 done');
      expect(first.done).toEqual([]);
      for (const href of ['/app/availability', '/app/topics', '/app/connections', `${h.ctx.config.publicUrl}/book/${kai.username}`])
        expect(first.section).toContain(`href="${href}"`);
      expect(first.section).toContain('<label for="booking-link">Your booking link</label>');
      expect((await checklist('pl')).section).toContain('Przygotuj się na rezerwacje');

      // Hours saved (even unchanged), a Zoom topic (no Zoom connection: no place to meet yet), then a phone-call topic.
      const hours = (await h.api('GET', `/api/v1/users/${kai.uuid}/availability`)).json();
      expect((await h.api('PUT', `/api/v1/users/${kai.uuid}/availability`, hours)).statusCode).toBe(200);
      expect((await checklist()).done).toEqual(['hours']);
      const topic = (body: Record<string, unknown>) => h.api('POST', '/api/v1/meeting-topics', { durationMinutes: 30, team: h.acme.team.uuid, hosts: [kai.username], ...body });
      expect((await topic({ name: 'Zoom intro', places: ['zoom'] })).statusCode).toBe(201);
      expect((await checklist()).done).toEqual(['hours', 'topic']);
      expect((await topic({ name: 'Call', places: ['phone-call'] })).statusCode).toBe(201);
      const almost = await checklist();
      expect(almost.done).toEqual(['hours', 'topic', 'connection']);
      expect(almost.section).toContain('3 of 4 done');

      const shared = await browser.post('/app/checklist/shared', { csrf: csrfOf(almost.page.body) });
      expect(shared.statusCode).toBe(303);
      expect(shared.headers.location).toBe('/app?done=shared');
      const after = await checklist();
      expect(after.section).toBeNull();
      expect(after.page.body).not.toContain('id="checklist"');
      expect((await browser.get('/app?done=shared')).body).toContain('Your booking link counts as shared.');
    });

    it('asks a phone call’s participant for their number on the booking page while the host has given none', async () => {
      const phoneFirst = (await h.api('POST', '/api/v1/meeting-topics', { name: 'Call back', durationMinutes: 30, places: ['phone-call', 'offline'], public: true })).json() as {
        uuid: string;
      };
      const phoneSecond = (
        await h.api('POST', '/api/v1/meeting-topics', { name: 'Visit or call', durationMinutes: 30, places: ['offline', 'phone-call'], public: true })
      ).json() as {
        uuid: string;
      };
      const page = async (topicUuid: string) => {
        const response = await h.app.inject({ method: 'GET', url: `/book/${h.acme.owner.username}/${topicUuid}`, headers: { accept: 'text/html' } });
        expect(response.statusCode).toBe(200);
        const input = /<input id="f-phone"[^>]*>/.exec(response.body)![0];
        const attribute = /data-config="([^"]+)"/.exec(response.body)![1]!;
        const config = JSON.parse(attribute.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))) as { phoneCallNeedsNumber: boolean };
        return { required: / required[ >]/.test(input), asks: config.phoneCallNeedsNumber };
      };
      // The phone call is chosen first: the field is required from the start; chosen second, the page's script makes it so.
      expect(await page(phoneFirst.uuid)).toEqual({ required: true, asks: true });
      expect(await page(phoneSecond.uuid)).toEqual({ required: false, asks: true });
      // The API keeps its rule: the topic does not require a phone, so a booking without one is taken.
      const slot = (
        (await h.api('POST', '/api/v1/calculate-schedule', { username: h.acme.owner.username, meetingTopic: phoneFirst.uuid, timezone: 'UTC', offset: 7 }, null)).json() as {
          days: { slots: { start: string }[] }[];
        }
      ).days.flatMap((day) => day.slots)[0]!;
      const booked = await h.api(
        'POST',
        '/api/v1/public/schedule',
        {
          dates: [{ start: slot.start, username: h.acme.owner.username }],
          meetingTopic: phoneFirst.uuid,
          timezone: 'UTC',
          lang: 'en',
          name: 'Jan',
          email: 'jan@example.com',
          place: 'phone-call',
        },
        null,
      );
      expect(booked.statusCode, booked.body).toBe(201);

      // With the host's own number for phone calls, the participant calls them: nothing to ask.
      expect((await h.api('PUT', `/api/v1/users/${h.acme.owner.uuid}/place-details`, { 'phone-call': '+48 601 333 444' })).statusCode).toBe(200);
      expect(await page(phoneFirst.uuid)).toEqual({ required: false, asks: false });
    });
  });

  describe(`the demo account of a first start [${dialect}]`, () => {
    it('offers on its public topic only places a booking can meet at out of the box (no Zoom without a Zoom app), and asks a caller’s number', async () => {
      const t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'));
      try {
        const demo = (await seedDemoIfEmpty(t.ctx, 'Europe/Warsaw'))!;
        expect(demo).not.toBeNull();
        const schedule = (
          await call(t.app, null, 'POST', '/api/v1/calculate-schedule', { username: demo.owner.username, meetingTopic: demo.topic.uuid, timezone: 'Europe/Warsaw', offset: 0 })
        ).json() as { placesReady: Record<string, string[]> };
        const ready = schedule.placesReady[demo.owner.username] ?? [];
        expect(demo.topic.places.length).toBeGreaterThan(0);
        for (const place of demo.topic.places) expect(ready, place).toContain(place);
        const page = await t.app.inject({ method: 'GET', url: `/book/${demo.owner.username}/${demo.topic.uuid}`, headers: { accept: 'text/html' } });
        expect(page.body).not.toContain('value="zoom"');
        expect(/<input id="f-phone"[^>]*>/.exec(page.body)![0]).toMatch(/ required[ >]/);
      } finally {
        await t.close();
      }
    });
  });
}
