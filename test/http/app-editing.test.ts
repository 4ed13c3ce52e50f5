import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RenderedMessage } from '../../src/mail/message.js';
import { Browser, csrfOf, openAndConfirm, signInLinkOf } from './app-browser.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, runJobsCapturingMail, type TestApp } from '../helpers.js';

/**
 * Issue 40 item 8: errors and editing on the availability page. An error is said in the page's
 * words next to its row (no JSON pointer), "Copy Monday to all weekdays" works without a
 * script, the preview is the coming 7 days on the host's clock (a DST week included), and an
 * explanation links to the setting behind it and to the meeting in the way.
 */

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

for (const dialect of DIALECTS) {
  describe(`the availability page: errors and editing [${dialect}]`, () => {
    let t: TestApp;
    beforeAll(async () => {
      // Thursday 2027-03-25, 07:00 in Warsaw: the clocks go forward on Sunday the 28th.
      t = await createTestApp(dialect, createClock('2027-03-25T06:00:00.000Z'));
    });
    afterAll(async () => t.close());

    async function signIn(email: string): Promise<Browser> {
      const browser = new Browser(t.app);
      const form = await browser.get('/app/login');
      await browser.post('/app/login', { csrf: csrfOf(form.body), email, lang: 'en' });
      const sent: RenderedMessage[] = [];
      await runJobsCapturingMail(t.ctx, sent);
      const link = sent.find((message) => message.to.email === email && message.text.includes('/app/login/'));
      const opened = await openAndConfirm(browser, new URL(signInLinkOf(link!)).pathname, t.ctx.config.publicUrl);
      expect(opened.statusCode).toBe(303);
      return browser;
    }

    /** A host open 09:00–11:00 Warsaw every day, a 60-minute topic "Consult", signed in. */
    async function host(topicFields: Record<string, unknown> = {}) {
      const acme = await createTestAccount(t.ctx, { places: ['offline'] });
      await call(t.app, acme.apiKey, 'PUT', `/api/v1/users/${acme.owner.uuid}/availability`, {
        timezone: 'Europe/Warsaw',
        weekly: Object.fromEntries(WEEKDAYS.map((day) => [day, [{ start: '09:00', end: '11:00' }]])),
        overrides: [],
      });
      const topic = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Consult', durationMinutes: 60, places: ['offline'], ...topicFields })).json() as {
        uuid: string;
      };
      return { acme, topic, browser: await signIn(acme.owner.email) };
    }

    it('shows a bad interval’s error next to its row in plain English and Polish, never a JSON pointer', async () => {
      const { acme, browser } = await host();
      const page = await browser.get('/app/availability');
      const form = {
        csrf: csrfOf(page.body),
        timezone: 'Europe/Warsaw',
        'monday.0.start': '09:00',
        'monday.0.end': '10:00',
        'monday.1.start': '12:00',
        'monday.1.end': '11:00',
        op: 'save',
      };
      const english = await browser.post('/app/availability', form);
      expect(english.statusCode).toBe(400);
      expect(english.body).not.toContain('/weekly/');
      expect(english.body).not.toContain('must start before it ends');
      // In the row of Monday's second interval, its inputs pointing at it; the summary links there.
      const row = /<div class="hours-row" id="row-monday-1">[\s\S]*?<\/div>/.exec(english.body)?.[0] ?? '';
      expect(row).toContain('<p class="field-error" id="row-monday-1-error">These hours end before they start: choose an end after the start.</p>');
      expect(row).toContain('aria-invalid="true" aria-describedby="row-monday-1-error"');
      expect(english.body).toContain('<a href="#row-monday-1">Monday from 2</a>: These hours end before they start');
      // The rows come back as typed, nothing stored.
      expect(row).toContain('value="12:00"');
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/users/${acme.owner.uuid}/availability`)).json().weekly.monday).toEqual([{ start: '09:00', end: '11:00' }]);

      await browser.get('/app/availability?lang=pl');
      const polish = await browser.post('/app/availability', form);
      expect(polish.statusCode).toBe(400);
      expect(polish.body).not.toContain('/weekly/');
      expect(polish.body).toContain('id="row-monday-1-error">Te godziny kończą się przed początkiem: wybierz koniec po początku.</p>');
      expect(polish.body).toContain('<a href="#row-monday-1">Poniedziałek od 2</a>:');
    });

    it('places an error of a date override at its row, an empty weekly row before it not counted', async () => {
      const { browser } = await host();
      const page = await browser.get('/app/availability?lang=en');
      const response = await browser.post('/app/availability', {
        csrf: csrfOf(page.body),
        timezone: 'Europe/Warsaw',
        'monday.0.start': '',
        'monday.0.end': '',
        'monday.1.start': '09:00',
        'monday.1.end': '08:00',
        'override.0.date': '2027-04-02',
        'override.0.start': '',
        'override.0.end': '',
        'override.1.date': '2027-04-03',
        'override.1.start': '10:00',
        'override.1.end': '12:00',
        'override.2.date': '2027-04-03',
        'override.2.start': '11:00',
        'override.2.end': '13:00',
        op: 'save',
      });
      expect(response.statusCode).toBe(400);
      // The empty first row is dropped: the bad one is now Monday's first.
      expect(response.body).toContain('id="row-monday-0-error">These hours end before they start');
      expect(response.body).toContain('id="override-2-error">These hours overlap other hours of the same day.</p>');
      expect(response.body).not.toContain('/overrides/');
    });

    it('copies Monday’s hours to Tuesday–Friday without a script (unsaved until Save)', async () => {
      const { acme, browser } = await host();
      const page = await browser.get('/app/availability?lang=en');
      expect(page.body).toContain('<button type="submit" name="op" value="copy-monday" id="copy-monday">Copy Monday to all weekdays</button>');
      const copied = await browser.post('/app/availability', {
        csrf: csrfOf(page.body),
        timezone: 'Europe/Warsaw',
        'monday.0.start': '08:00',
        'monday.0.end': '12:00',
        'monday.1.start': '13:00',
        'monday.1.end': '16:00',
        'saturday.0.start': '10:00',
        'saturday.0.end': '11:00',
        op: 'copy-monday',
      });
      expect(copied.statusCode).toBe(200);
      expect(copied.body).toContain('Monday’s hours are copied to Tuesday–Friday. Save to keep them.');
      for (const day of ['tuesday', 'wednesday', 'thursday', 'friday']) {
        expect(copied.body).toContain(`name="${day}.0.start" value="08:00"`);
        expect(copied.body).toContain(`name="${day}.1.end" value="16:00"`);
      }
      expect(copied.body).toContain('name="saturday.0.start" value="10:00"');
      expect(copied.body).not.toContain('name="sunday.0.start"');
      // Nothing stored yet.
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/users/${acme.owner.uuid}/availability`)).json().weekly.tuesday).toEqual([{ start: '09:00', end: '11:00' }]);
    });

    it('previews the coming 7 days on the host’s clock, the DST Sunday included', async () => {
      const { browser } = await host();
      const page = await browser.get('/app/availability?lang=en');
      const preview = /<section aria-labelledby="h-preview">[\s\S]*?<\/section>/.exec(page.body)?.[0] ?? '';
      expect(preview).toContain('Your free times in the next 7 days');
      const days = [...preview.matchAll(/<li data-date="([\d-]+)"><strong>([^<]*)<\/strong>: ([^<]*)<\/li>/g)].map((m) => [m[1], m[2], m[3]]);
      expect(days.map((day) => day[0])).toEqual(['2027-03-25', '2027-03-26', '2027-03-27', '2027-03-28', '2027-03-29', '2027-03-30', '2027-03-31']);
      // Today (07:00 now) and the Sunday the clocks go forward: 09:00 and 10:00 on the host's clock.
      expect(days[0]![1]).toContain('March 25');
      expect(days[3]![1]).toContain('March 28');
      expect(days[3]![2]).toBe(days[0]![2]);
      expect(days[3]![2]).toMatch(/^9:00\sAM, 10:00\sAM$/);
      const polish = await browser.get('/app/availability?lang=pl');
      expect(polish.body).toContain('Twoje wolne terminy w najbliższych 7 dniach');
      expect(polish.body).toMatch(/<li data-date="2027-03-28"><strong>[^<]*28 marca[^<]*<\/strong>: 09:00, 10:00<\/li>/);
    });

    it('links each explanation to the setting behind it and names the meeting in the way', async () => {
      const { acme, topic, browser } = await host({ minimumNoticeMinutes: 240 });
      const booked = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
        dates: [{ start: '2027-03-29T07:00:00.000Z', username: acme.owner.username }],
        email: 'pat@example.com',
        lang: 'en',
        name: 'Pat',
        place: 'offline',
        meetingTopic: topic.uuid,
        timezone: 'Europe/Warsaw',
      });
      expect(booked.statusCode).toBe(201);
      const meeting = booked.json().meetings[0] as { uuid: string };
      // Monday 09:00 Warsaw (after the change, CEST): the meeting is in the way.
      const taken = await browser.get(`/app/availability?lang=en&why_topic=${topic.uuid}&why_date=2027-03-29&why_time=09:00`);
      expect(taken.body).toMatch(new RegExp(`<a href="/app/meetings/${meeting.uuid}">Meeting [^<]*9:00[^<]*, Consult</a>`));
      // Monday 08:00: outside the hours, which Monday's fieldset sets.
      const early = await browser.get(`/app/availability?why_topic=${topic.uuid}&why_date=2027-03-29&why_time=08:00`);
      expect(early.body).toContain('<a href="/app/availability#day-monday">Change the hours on Monday</a>');
      expect(early.body).toContain('id="day-monday"');
      // Today 09:00 is within the 4 hours' notice: the topic's field.
      const soon = await browser.get(`/app/availability?why_topic=${topic.uuid}&why_date=2027-03-25&why_time=09:00`);
      expect(soon.body).toContain(`<a href="/app/topics/${topic.uuid}#f-minimumNoticeMinutes">Change the minimum notice</a>`);
      // The link lands on the field itself on the topic's page.
      expect((await browser.get(`/app/topics/${topic.uuid}`)).body).toContain('id="f-minimumNoticeMinutes"');
      const polish = await browser.get(`/app/availability?lang=pl&why_topic=${topic.uuid}&why_date=2027-03-29&why_time=08:00`);
      expect(polish.body).toContain('<a href="/app/availability#day-monday">Zmień godziny: Poniedziałek</a>');
    });

    it('says a connection’s refusal in the page’s language (connect Zoom without the business’s app)', async () => {
      const { browser } = await host();
      const page = await browser.get('/app/connections?lang=pl');
      const refused = await browser.post('/app/connections/zoom', { csrf: csrfOf(page.body) });
      expect(refused.statusCode).toBe(400);
      expect(refused.body).toContain('Jeszcze niedostępne: Twoja firma nie ma aplikacji u tego dostawcy.');
      expect(refused.body).not.toContain('the account has no configured');
    });
  });
}
