import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANGS, type Lang } from '../../src/domain/lang.js';
import { englishLeaks, OTHER_LANGS, visibleText } from '../i18n/leaks.js';
import { Browser, csrfOf, sessionBrowser } from './app-browser.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, type TestApp } from '../helpers.js';

/**
 * The host's web app in each language termin speaks (issue 42): every page of /app outside the
 * topics' (those are tested with them) shows no English in de, uk, es, fr or pl, names its
 * language in `<html lang>`, and Upcoming reads a meeting's date and time as Intl does for that
 * language in the host's zone. The language switch lists every language, each in itself.
 * The data is free of English words: "Acme", "Olga Nowak", "Konsultacja", "Jan Kowalski".
 */

const ZONE = 'Europe/Warsaw';
const EVERY_DAY = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
/** Tuesday 5 January 2027, 10:00 in Warsaw: over once the clock moves on two days. */
const PAST_START = '2027-01-05T09:00:00.000Z';
/** Thursday 7 January 2027, 10:00–10:30 in Warsaw: the meeting on Upcoming. */
const START = '2027-01-07T09:00:00.000Z';
const END = '2027-01-07T09:30:00.000Z';
/** A request awaiting the host's approval, the same day at 13:00. */
const REQUEST_START = '2027-01-07T12:00:00.000Z';

/** The page without its `<code>` elements: identifiers of the API (webhook event types such as `meeting.scheduled`), the same in every language. */
function withoutCode(html: string): string {
  return html.replace(/<code>[^<]*<\/code>/g, ' ');
}

for (const dialect of DIALECTS) {
  describe(`the web app in every language [${dialect}]`, () => {
    let t: TestApp;
    let owner: Browser;
    let pages: string[];
    let meetingUuid: string;

    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'));
      const acme = await createTestAccount(t.ctx, { name: 'Acme', ownerFirstName: 'Olga', ownerLastName: 'Nowak', places: ['offline', 'phone-call'] });
      const api = (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown) => call(t.app, acme.apiKey, method, url, body);
      expect(
        (
          await api('PUT', `/api/v1/users/${acme.owner.uuid}/availability`, {
            timezone: ZONE,
            weekly: Object.fromEntries(EVERY_DAY.map((day) => [day, [{ start: '08:00', end: '18:00' }]])),
            overrides: [],
          })
        ).statusCode,
      ).toBe(200);
      const topic = (await api('POST', '/api/v1/meeting-topics', { name: 'Konsultacja', durationMinutes: 30, places: ['phone-call'] })).json();
      const requests = (await api('POST', '/api/v1/meeting-topics', { name: 'Beratung', durationMinutes: 30, places: ['phone-call'], requiresApproval: true })).json();
      const book = async (start: string, topicUuid: string) => {
        const booked = await api('POST', '/api/v1/schedule', {
          dates: [{ start, username: acme.owner.username }],
          email: 'jan@przyklad.pl',
          phone: '+48 601 333 444',
          lang: 'pl',
          name: 'Jan Kowalski',
          place: 'phone-call',
          meetingTopic: topicUuid,
          timezone: ZONE,
        });
        expect(booked.statusCode, booked.body).toBe(201);
        return booked.json().meetings[0].uuid as string;
      };
      // One meeting that is over by now (Past, its page with the no-show buttons), one to come, one request to decide.
      const pastUuid = await book(PAST_START, topic.uuid);
      t.clock.advance(2 * 86_400_000);
      meetingUuid = await book(START, topic.uuid);
      await book(REQUEST_START, requests.uuid);
      owner = await sessionBrowser(t, acme.owner.email);
      // Time off over the meeting to come: listed with the meeting in its way.
      const timeOff = await owner.get('/app/time-off');
      const added = await owner.post('/app/time-off', { csrf: csrfOf(timeOff.body), start: '2027-01-07T08:00', end: '2027-01-07T18:00', reason: 'Urlop', delegate: '' });
      expect(added.statusCode, added.body).toBe(201);
      pages = [
        '/app',
        '/app/past',
        `/app/meetings/${meetingUuid}`,
        `/app/meetings/${pastUuid}`,
        `/app/meetings/${meetingUuid}/move`,
        '/app/availability',
        `/app/availability?why_topic=${topic.uuid}&why_date=2027-01-07&why_time=07:00`,
        `/app/availability?why_topic=${topic.uuid}&why_date=2027-01-07&why_time=10:00`,
        '/app/time-off',
        '/app/connections',
        '/app/profile',
        '/app/profile?done=saved',
        `/app/team/${acme.team.uuid}`,
        '/app/keys',
        '/app/integrations',
        '/app/webhooks',
        '/app/account',
        '/app/participants',
        '/app/audit',
      ];
    });
    afterAll(async () => t.close());

    /** `path` with `?lang=` (the switch's link), as the signed-in owner. */
    async function open(path: string, lang: Lang) {
      const page = await owner.get(`${path}${path.includes('?') ? '&' : '?'}lang=${lang}`);
      expect(page.statusCode, `${path}: ${page.body.slice(0, 300)}`).toBe(200);
      return page.body;
    }

    it.each(OTHER_LANGS)('%s: every page of the app is in that language, with no English on it', async (lang) => {
      const found: { path: string; leaks: string[] }[] = [];
      for (const path of pages) {
        const body = await open(path, lang);
        expect(body, path).toContain(`<html lang="${lang}">`);
        const leaks = englishLeaks(visibleText(withoutCode(body)), lang);
        if (leaks.length > 0) found.push({ path, leaks });
      }
      expect(found).toEqual([]);
    });

    it.each(OTHER_LANGS)('%s: the sign-in page, for a browser without a session, is in that language too', async (lang) => {
      const stranger = new Browser(t.app);
      const page = await stranger.get(`/app/login?lang=${lang}`);
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain(`<html lang="${lang}">`);
      expect(page.body).toContain(`name="lang" value="${lang}"`);
      expect(englishLeaks(visibleText(page.body), lang)).toEqual([]);
      // The form's language is the e-mail's: the answer stays in the page's language.
      const sent = await stranger.post('/app/login', { csrf: csrfOf(page.body), email: 'nikt@przyklad.pl', lang });
      expect(sent.statusCode).toBe(200);
      expect(sent.body).toContain(`<html lang="${lang}">`);
      expect(englishLeaks(visibleText(sent.body), lang)).toEqual([]);
    });

    it.each(OTHER_LANGS)('%s: a participant’s export (meetings, payment, messages sent) is in that language', async (lang) => {
      const form = await open('/app/participants', lang);
      const exported = await owner.post(`/app/participants/export?lang=${lang}`, { csrf: csrfOf(form), email: 'jan@przyklad.pl' });
      expect(exported.statusCode).toBe(200);
      expect(exported.body).toContain('Jan Kowalski');
      expect(exported.body).toContain(`<html lang="${lang}">`);
      expect(englishLeaks(visibleText(exported.body), lang)).toEqual([]);
    });

    it.each(OTHER_LANGS)('%s: a refused form says what to fix in that language', async (lang) => {
      const timeOff = await open('/app/time-off', lang);
      const refused = await owner.post(`/app/time-off?lang=${lang}`, { csrf: csrfOf(timeOff), start: '', end: '2026-01-01T10:00', reason: '', delegate: 'nikt' });
      expect(refused.statusCode).toBe(400);
      expect(englishLeaks(visibleText(refused.body), lang)).toEqual([]);
      const profile = await open('/app/profile', lang);
      const taken = await owner.post(`/app/profile?lang=${lang}`, { csrf: csrfOf(profile), username: 'Zła Nazwa!', language: '' });
      expect(taken.statusCode).toBe(400);
      expect(taken.body).toContain(`<html lang="${lang}">`);
      expect(englishLeaks(visibleText(taken.body), lang)).toEqual([]);
    });

    it.each(LANGS)('%s: Upcoming shows the meeting’s date and time as Intl formats them in that language and the host’s zone', async (lang) => {
      const body = await open('/app', lang);
      const date = new Intl.DateTimeFormat(lang, { dateStyle: 'full', timeZone: ZONE }).format(Date.parse(START));
      const from = new Intl.DateTimeFormat(lang, { timeStyle: 'short', timeZone: ZONE }).format(Date.parse(START));
      const to = new Intl.DateTimeFormat(lang, { timeStyle: 'short', timeZone: ZONE }).format(Date.parse(END));
      const heading = new RegExp(`<a href="/app/meetings/${meetingUuid}">([^<]*)</a>`).exec(body)?.[1];
      expect(heading).toBe(`${date}, ${from}–${to}`);
    });

    it.each(LANGS)('%s: the language switch names every language in itself, marks the current one, and is remembered', async (lang) => {
      const body = await open('/app/profile', lang);
      const links = [...body.matchAll(/<a href="\/app\/profile\?lang=([a-z]{2})" lang="([a-z]{2})" hreflang="([a-z]{2})"( aria-current="true")?>([^<]+)<\/a>/g)].map(
        ([, href, langAttr, hreflang, current, name]) => ({ href, langAttr, hreflang, current: current !== undefined, name }),
      );
      const names: Record<Lang, string> = { en: 'English', pl: 'Polski', de: 'Deutsch', uk: 'Українська', es: 'Español', fr: 'Français' };
      expect(links).toEqual(LANGS.map((code) => ({ href: code, langAttr: code, hreflang: code, current: code === lang, name: names[code] })));
      // The profile's e-mail language offers all six, each by its own name.
      for (const code of LANGS) expect(body).toContain(`<option value="${code}" lang="${code}">${names[code]}</option>`);
      // The choice is kept in a cookie: the next page without `?lang=` is in the same language.
      expect((await owner.get('/app/availability')).body).toContain(`<html lang="${lang}">`);
    });

    it('keeps a member’s e-mail language when it is one of the new ones', async () => {
      const page = await open('/app/profile', 'de');
      const form = { csrf: csrfOf(page), username: /name="username" value="([^"]*)"/.exec(page)![1]!, language: 'uk' };
      const saved = await owner.post('/app/profile?lang=de', form);
      expect(saved.statusCode).toBe(303);
      expect(await open('/app/profile', 'de')).toContain('<option value="uk" selected lang="uk">Українська</option>');
    });
  });
}
