import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfOf, formValuesOf, sessionBrowser } from './app-browser.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, type TestApp } from '../helpers.js';

/** The web app's "Time off" page (/app/time-off): add, list and remove, in English and Polish, with CSRF. Monday 2027-01-04. */
for (const dialect of DIALECTS) {
  describe(`the host's web app: time off [${dialect}]`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'));
    });
    afterAll(async () => t.close());

    it('adds time off on the member’s clock, lists a booked meeting in it as a conflict, and removes it', async () => {
      const acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['zoom'] });
      const topic = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Call', durationMinutes: 60, places: ['zoom'] })).json();
      const booked = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
        dates: [{ start: '2027-01-12T09:00:00.000Z', username: acme.owner.username }],
        email: 'p@example.com',
        lang: 'en',
        name: 'P',
        place: 'zoom',
        meetingTopic: topic.uuid,
        timezone: 'Europe/Warsaw',
      });
      expect(booked.statusCode, booked.body).toBe(201);
      const owner = await sessionBrowser(t, acme.owner.email);
      const page = await owner.get('/app/time-off');
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('<h1');
      expect(page.body).toContain('Time off');
      expect(page.body).toContain('No time off to come.');
      const csrf = csrfOf(page.body);
      // Without the form token nothing is added.
      expect((await owner.post('/app/time-off', { start: '2027-01-12T00:00', end: '2027-01-13T00:00', reason: '', delegate: '' })).statusCode).toBe(403);
      const refused = await owner.post('/app/time-off', { csrf, start: '2027-01-13T00:00', end: '2027-01-12T00:00', reason: '', delegate: '' });
      expect(refused.statusCode).toBe(400);
      expect(refused.body).toContain('aria-invalid="true"');

      const added = await owner.post('/app/time-off', { csrf, start: '2027-01-12T00:00', end: '2027-01-13T00:00', reason: 'Dentist', delegate: '' });
      expect(added.statusCode, added.body).toBe(201);
      expect(added.body).toContain('Time off added.');
      expect(added.body).toContain(`/app/meetings/${booked.json().meetings[0].uuid}`);
      // Midnight on the member's clock (Warsaw, UTC+1).
      const listed = (await call(t.app, acme.apiKey, 'GET', `/api/v1/users/${acme.owner.uuid}/time-off`)).json().timeOff;
      expect(listed).toEqual([expect.objectContaining({ start: '2027-01-11T23:00:00.000Z', end: '2027-01-12T23:00:00.000Z', reason: 'Dentist' })]);

      const polish = await sessionBrowser(t, acme.owner.email, 'pl');
      const pl = await polish.get('/app/time-off');
      expect(pl.body).toContain('Nieobecności');
      expect(pl.body).toContain('Dentist');

      const removed = await owner.post(`/app/time-off/${listed[0].uuid}/remove`, { csrf });
      expect(removed.statusCode).toBe(303);
      expect((await owner.get('/app/time-off?done=removed')).body).toContain('Time off removed.');
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/users/${acme.owner.uuid}/time-off`)).json().timeOff).toEqual([]);
    });

    it('keeps the public holidays set through the API when the hours are saved from the availability page', async () => {
      const acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['zoom'] });
      const base = `/api/v1/users/${acme.owner.uuid}/availability`;
      const hours = (await call(t.app, acme.apiKey, 'GET', base)).json();
      expect((await call(t.app, acme.apiKey, 'PUT', base, { ...hours, holidays: 'PL', holidayExceptions: ['2027-11-01'] })).statusCode).toBe(200);
      const owner = await sessionBrowser(t, acme.owner.email);
      const page = await owner.get('/app/availability');
      const saved = await owner.post('/app/availability', { ...formValuesOf(page.body, 'id="availability-form"'), op: 'save' });
      expect(saved.statusCode, saved.body).toBe(303);
      expect((await call(t.app, acme.apiKey, 'GET', base)).json()).toMatchObject({ holidays: 'PL', holidayExceptions: ['2027-11-01'] });
    });
  });
}
