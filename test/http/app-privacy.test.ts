import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser, csrfOf, sessionBrowser } from './app-browser.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, runJobsCapturingMail, type TestApp } from '../helpers.js';

const FORM = [{ key: 'company', label: 'Company', required: true }];

/** Participants' data (export, erasure), retention and the audit log in the host web app, for the account's admins (issue 39). */
for (const dialect of DIALECTS) {
  describe(`the host's web app: participants' data and the audit log [${dialect}]`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'));
    });
    afterAll(async () => t.close());

    const signIn = (email: string, lang = 'en') => sessionBrowser(t, email, lang);

    let counter = 0;
    /** An account with a participant booked twice (e-mail in another case once) and someone else once. */
    async function setUp() {
      const acme = await createTestAccount(t.ctx);
      const topic = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Garden advice', durationMinutes: 30, places: ['offline'], form: FORM })).json();
      counter += 1;
      const email = `ala.${counter}@example.com`;
      const name = `Ala Nowakowska ${counter}x`;
      const book = async (start: string, who: string, as = name) => {
        const response = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
          dates: [{ start, username: acme.owner.username }],
          email: who,
          lang: 'en',
          name: as,
          place: 'offline',
          form: { company: 'Nowak Sp. z o.o.' },
          meetingTopic: topic.uuid,
          timezone: 'Europe/Warsaw',
        });
        expect(response.statusCode).toBe(201);
        return response.json().meetings[0] as { uuid: string };
      };
      const first = await book('2027-01-05T08:00:00.000Z', email);
      const second = await book('2027-01-06T09:00:00.000Z', email.toUpperCase());
      const other = await book('2027-01-05T10:00:00.000Z', 'someone.else@example.com', 'Bob Other');
      await runJobsCapturingMail(t.ctx, []);
      return { acme, email, name, first, second, other };
    }

    it('gives the pages and their links to an admin only: a plain member gets 403 pages and can export or erase nothing', async () => {
      const { acme, email, first } = await setUp();
      const patEmail = `pat.${acme.account.uuid.slice(-8)}@acme.test`;
      expect((await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, { firstName: 'Pat', lastName: 'Plain', email: patEmail })).statusCode).toBe(201);
      const member = await signIn(patEmail);
      const home = await member.get('/app');
      const csrf = csrfOf(home.body);
      for (const path of ['/app/participants', '/app/audit']) {
        expect(home.body).not.toContain(`href="${path}"`);
        expect((await member.get(path)).statusCode, path).toBe(403);
      }
      for (const path of ['/app/participants/export', '/app/participants/export.json']) {
        const refused = await member.post(path, { csrf, email });
        expect(refused.statusCode, path).toBe(403);
        expect(refused.body).not.toContain('Nowak');
      }
      expect((await member.post('/app/participants/erase', { csrf, email, confirm: email, understand: 'on' })).statusCode).toBe(403);
      expect((await member.post('/app/account/retention', { csrf, participantDataDays: '30' })).statusCode).toBe(403);
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${first.uuid}`)).json().participant.email).toBe(email);
      expect((await call(t.app, acme.apiKey, 'GET', '/api/v1/account')).json().retention).toEqual({ participantDataDays: null });

      const admin = await signIn(acme.owner.email);
      const adminHome = await admin.get('/app');
      const team = await admin.get(`/app/team/${acme.team.uuid}`);
      for (const path of ['/app/participants', '/app/audit']) {
        expect(adminHome.body).toContain(`href="${path}"`);
        expect(team.body).toContain(`<a href="${path}">`);
        const page = await admin.get(path);
        expect(page.statusCode).toBe(200);
        expect(page.headers['cache-control']).toBe('no-store');
      }
    });

    it('refuses each form without its CSRF token (403): nothing exported, erased or saved', async () => {
      const { acme, email, first } = await setUp();
      const admin = await signIn(acme.owner.email);
      for (const [path, form] of [
        ['/app/participants/export', { email }],
        ['/app/participants/export.json', { email }],
        ['/app/participants/erase', { email, confirm: email, understand: 'on' }],
        ['/app/account/retention', { participantDataDays: '30' }],
      ] as const) {
        const refused = await admin.post(path, form);
        expect(refused.statusCode, path).toBe(403);
        expect(refused.body, path).not.toContain('Nowak');
        expect((await admin.post(path, { ...form, csrf: 'forged' })).statusCode, path).toBe(403);
      }
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${first.uuid}`)).json().participant.email).toBe(email);
      expect((await call(t.app, acme.apiKey, 'GET', '/api/v1/account')).json().retention).toEqual({ participantDataDays: null });
      expect((await call(t.app, acme.apiKey, 'GET', '/api/v1/audit-events?action=participant.exported')).json().auditEvents).toEqual([]);
    });

    it('export: the participant’s meetings with date, topic, status and answers, never another’s; the JSON download is the API’s body, the e-mail never in a URL', async () => {
      const { acme, email, name, first, second, other } = await setUp();
      const admin = await signIn(acme.owner.email);
      const csrf = csrfOf((await admin.get('/app/participants')).body);
      const shown = await admin.post('/app/participants/export', { csrf, email: `  ${email.toUpperCase()} ` });
      expect(shown.statusCode).toBe(200);
      expect(shown.headers['cache-control']).toBe('no-store');
      expect(shown.body).toContain('2 meetings.');
      expect(shown.body).toContain(`id="m-${first.uuid}"`);
      expect(shown.body).toContain(`id="m-${second.uuid}"`);
      expect(shown.body).not.toContain(other.uuid);
      expect(shown.body).not.toContain('Bob Other');
      const item = shown.body.slice(shown.body.indexOf(`id="m-${first.uuid}"`), shown.body.indexOf(`id="m-${second.uuid}"`));
      // Times in the admin's zone (the owner's: Europe/Warsaw): 08:00Z is 9:00 there.
      expect(item).toContain('9:00');
      expect(item).not.toContain('8:00');
      expect(item).toContain('Garden advice');
      expect(item).toContain('Confirmed');
      expect(item).toContain(name);
      expect(item).toContain('company: Nowak Sp. z o.o.');
      expect(shown.body).toContain('Jan 4, 2027, 7:00 AM: Invitation (e-mail)');
      // Every form posts to a path without the address; the address is only in form fields.
      for (const action of shown.body.matchAll(/action="([^"]+)"/g)) expect(action[1]!.toLowerCase()).not.toContain('ala.');

      const download = await admin.post('/app/participants/export.json', { csrf, email });
      expect(download.statusCode).toBe(200);
      expect(download.headers['content-type']).toContain('application/json');
      expect(download.headers['content-disposition']).toMatch(/^attachment; filename="participant-export-2027-01-04\.json"$/);
      expect(download.headers['cache-control']).toBe('no-store');
      const api = await call(t.app, acme.apiKey, 'POST', '/api/v1/participants/export', { email });
      expect(download.json()).toEqual(api.json());
      expect(download.json().meetings.map((meeting: { uuid: string }) => meeting.uuid)).toEqual([first.uuid, second.uuid]);

      // A blank address comes back next to the field, in Polish on the Polish page.
      const pl = new Browser(t.app, 'pl');
      pl.cookies.set('termin_session', admin.cookies.get('termin_session')!);
      const refused = await pl.post('/app/participants/export', { csrf, email: 'not an address' });
      expect(refused.statusCode).toBe(400);
      expect(refused.body).toMatch(/<input type="email" id="f-pd-email"[^>]* aria-invalid="true"/);
      expect(refused.body).toContain('<p class="field-error" id="f-pd-email-error">Podaj adres e-mail.</p>');
      expect(refused.body).not.toContain('must be');
    });

    it('erase: only with the address typed again and the box ticked; then the meetings are erased (coming ones cancelled) and the audit log shows it', async () => {
      const { acme, email, name, first, second, other } = await setUp();
      const admin = await signIn(acme.owner.email);
      const csrf = csrfOf((await admin.get('/app/participants')).body);

      const mistyped = await admin.post('/app/participants/erase', { csrf, email, confirm: `x${email}` });
      expect(mistyped.statusCode).toBe(400);
      expect(mistyped.body).toContain('<p class="field-error" id="f-pe-confirm-error">Type the same e-mail address again.</p>');
      expect(mistyped.body).toContain('<p class="field-error" id="f-pe-understand-error">Tick this to confirm.</p>');
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${first.uuid}`)).json().participant.name).toBe(name);

      const erased = await admin.post('/app/participants/erase', { csrf, email, confirm: email.toUpperCase(), understand: 'on' });
      expect(erased.statusCode).toBe(200);
      expect(erased.headers['cache-control']).toBe('no-store');
      expect(erased.body).toContain('<p class="notice" role="status">2 meetings were erased.</p>');
      for (const meeting of [first, second]) {
        const after = (await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${meeting.uuid}`)).json();
        expect(after).toMatchObject({ status: 'cancelled', participant: { name: '(erased)', email: null }, form: {} });
      }
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${other.uuid}`)).json().participant.name).toBe('Bob Other');
      // Again: nothing left.
      const again = await admin.post('/app/participants/erase', { csrf, email, confirm: email, understand: 'on' });
      expect(again.body).toContain('Nothing to erase');

      const log = await admin.get('/app/audit?action=participant.erased');
      expect(log.statusCode).toBe(200);
      const rows = [...log.body.matchAll(/<li class="topic audit-event" id="a-[^"]+" data-action="([^"]+)">([\s\S]*?)<\/li>/g)];
      expect(rows.map((row) => row[1])).toEqual(['participant.erased', 'participant.erased']);
      // The older of the two (newest first) erased both meetings, by the owner in the web app.
      expect(rows[1]![2]).toContain('Participant’s data erased');
      expect(rows[1]![2]).toContain('Olga Owner (web app)');
      expect(rows[1]![2]).toContain(first.uuid);
      expect(rows[1]![2]).toContain(second.uuid);
      expect(log.body).not.toContain(email);
      const cancelled = await admin.get('/app/audit?action=meeting.cancelled');
      expect(cancelled.body.match(/data-action="meeting\.cancelled"/g)).toHaveLength(2);
    });

    it('retention: saved as PATCH /account saves it, emptied back to "keep"; a number out of range comes back next to the field', async () => {
      const { acme } = await setUp();
      const admin = await signIn(acme.owner.email);
      const page = await admin.get('/app/account');
      expect(page.body).toMatch(/<input type="number" id="f-acc-retention" name="participantDataDays" value=""/);
      const csrf = csrfOf(page.body);
      const saved = await admin.post('/app/account/retention', { csrf, participantDataDays: '365' });
      expect(saved.statusCode).toBe(303);
      expect((await call(t.app, acme.apiKey, 'GET', '/api/v1/account')).json().retention).toEqual({ participantDataDays: 365 });
      expect((await admin.get('/app/account?done=saved')).body).toMatch(/id="f-acc-retention" name="participantDataDays" value="365"/);
      const log = (await call(t.app, acme.apiKey, 'GET', '/api/v1/audit-events?action=account.updated')).json().auditEvents;
      expect(log[0]).toMatchObject({ actor: { type: 'user', userUuid: acme.owner.uuid, via: 'app' }, details: { changed: ['retention'] } });

      for (const bad of ['0', '3651', '2.5', 'soon']) {
        const refused = await admin.post('/app/account/retention', { csrf, participantDataDays: bad });
        expect(refused.statusCode, bad).toBe(400);
        expect(refused.body).toContain('<p class="field-error" id="f-acc-retention-error">Enter a whole number of days from 1 to 3650, or leave it empty.</p>');
        expect(refused.body).toContain(`value="${bad}"`);
      }
      expect((await call(t.app, acme.apiKey, 'GET', '/api/v1/account')).json().retention).toEqual({ participantDataDays: 365 });
      expect((await admin.post('/app/account/retention', { csrf, participantDataDays: '' })).statusCode).toBe(303);
      expect((await call(t.app, acme.apiKey, 'GET', '/api/v1/account')).json().retention).toEqual({ participantDataDays: null });
    });

    it('the docs guide explains export, erasure, retention and the audit log, with the web app pages, and lists the step in its sidebar', async () => {
      const docs = await t.app.inject({ method: 'GET', url: '/docs' });
      expect(docs.statusCode).toBe(200);
      const step = docs.body.slice(docs.body.indexOf('<h3 id="guide-privacy">'), docs.body.indexOf('<h3 id="guide-money">'));
      for (const text of ['/api/v1/participants/export', '/api/v1/participants/erase', 'participantDataDays', '/api/v1/audit-events', '/app/participants', '/app/audit'])
        expect(step, text).toContain(text);
      expect(docs.body).toContain('href="#guide-privacy"');
    });

    it('audit log: newest first, filtered by action and by date in the member’s zone, paged with "Older"; in Polish too', async () => {
      const { acme, email } = await setUp();
      const admin = await signIn(acme.owner.email);
      const csrf = csrfOf((await admin.get('/app/participants')).body);
      // 30 exports (one page is 25), the last a day later.
      for (let i = 0; i < 29; i += 1) await admin.post('/app/participants/export', { csrf, email });
      t.clock.set('2027-01-05T06:00:00.000Z');
      try {
        await admin.post('/app/participants/export', { csrf, email });
        const events = (await call(t.app, acme.apiKey, 'GET', '/api/v1/audit-events?limit=100')).json().auditEvents as { uuid: string; action: string }[];
        const exports = events.filter((event) => event.action === 'participant.exported').map((event) => event.uuid);
        expect(exports).toHaveLength(30);

        const first = await admin.get('/app/audit?action=participant.exported');
        const ids = (body: string) => [...body.matchAll(/id="a-([^"]+)"/g)].map((match) => match[1]);
        expect(ids(first.body)).toEqual(exports.slice(0, 25));
        expect(first.body).toMatch(/<option value="participant.exported" selected>Participant’s data exported<\/option>/);
        const older = /<a href="([^"]+)" rel="next">Older<\/a>/.exec(first.body)![1]!.replaceAll('&amp;', '&').replaceAll('&#38;', '&');
        expect(older).toMatch(/^\/app\/audit\?action=participant\.exported&cursor=/);
        const second = await admin.get(older);
        expect(ids(second.body)).toEqual(exports.slice(25));
        expect(second.body).not.toContain('rel="next"');

        // Since 5 January (Warsaw): only the last export; every other action too but none before.
        const since = await admin.get('/app/audit?since=2027-01-05');
        expect(ids(since.body)).toEqual([exports[0]]);
        // Another action: the topic created before the exports, by the owner's key.
        const topics = await admin.get('/app/audit?action=topic.created');
        expect(ids(topics.body)).toHaveLength(1);
        expect(topics.body).toContain('Topic created');
        expect(topics.body).toContain('Olga Owner (API key)');
        expect(topics.body).toContain('name: Garden advice');

        const pl = new Browser(t.app, 'pl');
        pl.cookies.set('termin_session', admin.cookies.get('termin_session')!);
        const polish = await pl.get('/app/audit?action=participant.exported');
        expect(polish.body).toContain('<h1>Dziennik zmian</h1>');
        expect(polish.body).toContain('Wyeksportowano dane uczestnika');
        expect(polish.body).toContain('Olga Owner (aplikacja)');
        const bad = await pl.get('/app/audit?since=2027-02-30&action=member.exploded');
        expect(bad.statusCode).toBe(400);
        expect(bad.body).toContain('<p class="field-error" id="f-audit-since-error">Podaj datę albo zostaw puste.</p>');
        expect(bad.body).toContain('id="f-audit-action-error"');
      } finally {
        t.clock.set('2027-01-04T06:00:00.000Z');
      }
    });
  });
}
