import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { createApiKeyForUser } from '../../src/scheduling/account/api-keys.js';
import { DIALECTS, call, createClock, createTestAccount, createTwoInstances, expectProblem, type TestApp, type TwoInstances } from '../helpers.js';

type Slot = { start: string; username: string };

/**
 * Issue 41 items 4–6 through the API, on two instances over one database (each change made
 * on A shows at once in B's cached month view): time off with its conflicts and TIME_OFF,
 * public holidays per schedule with HOLIDAY, and single-use links, booked once even when two
 * participants book through one link at the same moment. Monday 2027-01-04 06:00 UTC.
 */
for (const dialect of DIALECTS) {
  describe(`time off, holidays and single-use links [${dialect}]`, () => {
    let instances: TwoInstances;
    let a: TestApp;
    let b: TwoInstances['b'];

    beforeAll(async () => {
      instances = await createTwoInstances(dialect, createClock('2027-01-04T06:00:00.000Z'));
      ({ a, b } = instances);
    });
    afterAll(async () => {
      await instances?.close();
    });

    const newAccount = () => createTestAccount(a.ctx, { timezone: 'UTC', places: ['zoom'] });
    const createTopic = async (account: CreatedAccount, fields: Record<string, unknown> = {}) => {
      const response = await call(a.app, account.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Call', durationMinutes: 60, places: ['zoom'], ...fields });
      expect(response.statusCode, response.body).toBe(201);
      return response.json() as { uuid: string };
    };
    const setHours = async (account: CreatedAccount, extra: Record<string, unknown> = {}) => {
      const weekly = Object.fromEntries(['monday', 'tuesday', 'wednesday', 'thursday', 'friday'].map((day) => [day, [{ start: '09:00', end: '12:00' }]]));
      return call(a.app, account.apiKey, 'PUT', `/api/v1/users/${account.owner.uuid}/availability`, { timezone: 'Europe/Warsaw', weekly, ...extra });
    };
    /** The starts B offers on one date (Warsaw). */
    const startsOn = async (account: CreatedAccount, topicUuid: string, date: string) => {
      const [year, month] = date.split('-').map(Number);
      const response = await call(b, null, 'POST', '/api/v1/calculate-schedule', {
        username: account.owner.username,
        meetingTopic: topicUuid,
        timezone: 'Europe/Warsaw',
        offset: 0,
        month,
        year,
      });
      expect(response.statusCode, response.body).toBe(200);
      return ((response.json().days as { date: string; slots: Slot[] }[]).find((day) => day.date === date)?.slots ?? []).map((slot) => slot.start);
    };
    const explain = async (account: CreatedAccount, topicUuid: string, start: string) => {
      const response = await call(a.app, account.apiKey, 'POST', '/api/v1/explain-schedule', { username: account.owner.username, meetingTopic: topicUuid, start });
      expect(response.statusCode, response.body).toBe(200);
      return response.json() as { offered: boolean; reasons: { code: string; name?: string; start?: string; end?: string }[] };
    };
    const booking = (topicUuid: string, start: string, username: string, extra: Record<string, unknown> = {}) => ({
      dates: [{ start, username }],
      email: 'p@example.com',
      lang: 'en',
      name: 'P',
      place: 'zoom',
      meetingTopic: topicUuid,
      timezone: 'Europe/Warsaw',
      ...extra,
    });

    it('takes time off: its starts go, explained as TIME_OFF; a meeting already booked comes back as a conflict; removing it gives them back', async () => {
      const acme = await newAccount();
      expect((await setHours(acme)).statusCode).toBe(200);
      const topic = await createTopic(acme);
      // Tuesday 2027-01-12, 09:00–12:00 Warsaw (08:00–11:00Z).
      expect(await startsOn(acme, topic.uuid, '2027-01-12')).toEqual(['2027-01-12T08:00:00.000Z', '2027-01-12T09:00:00.000Z', '2027-01-12T10:00:00.000Z']);
      const booked = await call(a.app, acme.apiKey, 'POST', '/api/v1/schedule', booking(topic.uuid, '2027-01-12T09:00:00.000Z', acme.owner.username));
      expect(booked.statusCode, booked.body).toBe(201);
      const meetingUuid = booked.json().meetings[0].uuid as string;

      const base = `/api/v1/users/${acme.owner.uuid}/time-off`;
      const created = await call(a.app, acme.apiKey, 'POST', base, { start: '2027-01-11T23:00:00.000Z', end: '2027-01-13T23:00:00.000Z', reason: 'Skiing' });
      expect(created.statusCode, created.body).toBe(201);
      const answer = created.json();
      expect(answer.timeOff).toMatchObject({ start: '2027-01-11T23:00:00.000Z', end: '2027-01-13T23:00:00.000Z', reason: 'Skiing', delegate: null });
      expect(answer.conflicts).toEqual([{ uuid: meetingUuid, meetingTopic: topic.uuid, start: '2027-01-12T09:00:00.000Z', end: '2027-01-12T10:00:00.000Z' }]);
      // Not cancelled.
      expect((await call(a.app, acme.apiKey, 'GET', `/api/v1/meetings/${meetingUuid}`)).json().status).toBe('confirmed');

      expect(await startsOn(acme, topic.uuid, '2027-01-12')).toEqual([]);
      expect(await startsOn(acme, topic.uuid, '2027-01-14')).toHaveLength(3);
      const why = await explain(acme, topic.uuid, '2027-01-12T08:00:00.000Z');
      expect(why.offered).toBe(false);
      expect(why.reasons).toEqual([expect.objectContaining({ code: 'TIME_OFF', start: '2027-01-11T23:00:00.000Z', end: '2027-01-13T23:00:00.000Z' })]);
      // The booking check refuses it too.
      expectProblem(await call(a.app, acme.apiKey, 'POST', '/api/v1/schedule', booking(topic.uuid, '2027-01-12T08:00:00.000Z', acme.owner.username)), 409, 'SLOT_UNAVAILABLE');

      const listed = await call(a.app, acme.apiKey, 'GET', base);
      expect(listed.json().timeOff.map((entry: { uuid: string }) => entry.uuid)).toEqual([answer.timeOff.uuid]);
      expect((await call(a.app, acme.apiKey, 'DELETE', `${base}/${answer.timeOff.uuid}`)).statusCode).toBe(204);
      expectProblem(await call(a.app, acme.apiKey, 'DELETE', `${base}/${answer.timeOff.uuid}`), 404, 'NOT_FOUND');
      expect(await startsOn(acme, topic.uuid, '2027-01-12')).toEqual(['2027-01-12T08:00:00.000Z', '2027-01-12T10:00:00.000Z']);
    });

    it('refuses a span that ends first, a stand-in who is not an active member or is the user, and a stranger', async () => {
      const acme = await newAccount();
      const base = `/api/v1/users/${acme.owner.uuid}/time-off`;
      expect(expectProblem(await call(a.app, acme.apiKey, 'POST', base, { start: '2027-02-02T00:00:00Z', end: '2027-02-01T00:00:00Z' }), 400, 'VALIDATION_FAILED').errors).toEqual([
        { path: '/end', message: 'must be after start' },
      ]);
      const span = { start: '2027-02-01T00:00:00Z', end: '2027-02-02T00:00:00Z' };
      expect(expectProblem(await call(a.app, acme.apiKey, 'POST', base, { ...span, delegate: 'nobody' }), 400, 'VALIDATION_FAILED').errors?.[0]?.path).toBe('/delegate');
      expect(expectProblem(await call(a.app, acme.apiKey, 'POST', base, { ...span, delegate: acme.owner.username }), 400, 'VALIDATION_FAILED').errors?.[0]?.path).toBe('/delegate');
      const added = await call(a.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, {
        firstName: 'Dana',
        lastName: 'Deputy',
        email: `dana-${acme.account.uuid}@acme.test`,
      });
      expect(added.statusCode, added.body).toBe(201);
      const dana = added.json() as { uuid: string; username: string };
      const withDelegate = await call(a.app, acme.apiKey, 'POST', base, { ...span, delegate: dana.username });
      expect(withDelegate.statusCode, withDelegate.body).toBe(201);
      expect(withDelegate.json().timeOff.delegate).toBe(dana.username);
      // A plain member may not set the owner's time off (as for the hours).
      const danaKey = (await createApiKeyForUser(a.ctx, dana.uuid)).apiKey;
      expectProblem(await call(a.app, danaKey, 'POST', base, span), 403, 'FORBIDDEN');
      const other = await newAccount();
      expectProblem(await call(a.app, other.apiKey, 'GET', base), 404, 'NOT_FOUND');
    });

    it("makes a schedule's public holidays days off (HOLIDAY, named), works the exceptions, and refuses an unknown country", async () => {
      const acme = await newAccount();
      const topic = await createTopic(acme);
      // Wednesday 2027-01-06: Epiphany, a public holiday in Poland.
      expect(await startsOn(acme, topic.uuid, '2027-01-06')).not.toEqual([]);
      const saved = await setHours(acme, { holidays: 'PL' });
      expect(saved.statusCode, saved.body).toBe(200);
      expect(saved.json()).toMatchObject({ holidays: 'PL', holidayExceptions: [] });
      expect(await startsOn(acme, topic.uuid, '2027-01-06')).toEqual([]);
      expect(await startsOn(acme, topic.uuid, '2027-01-07')).toHaveLength(3);
      const why = await explain(acme, topic.uuid, '2027-01-06T08:00:00.000Z');
      expect(why.reasons).toEqual([expect.objectContaining({ code: 'HOLIDAY', date: '2027-01-06', name: 'Epiphany' })]);

      expect((await setHours(acme, { holidays: 'PL', holidayExceptions: ['2027-01-06'] })).statusCode).toBe(200);
      expect(await startsOn(acme, topic.uuid, '2027-01-06')).toHaveLength(3);
      expect((await call(a.app, acme.apiKey, 'GET', `/api/v1/users/${acme.owner.uuid}/availability`)).json()).toMatchObject({ holidays: 'PL', holidayExceptions: ['2027-01-06'] });

      expect(expectProblem(await setHours(acme, { holidays: 'XX' }), 400, 'VALIDATION_FAILED').errors).toEqual([
        { path: '/holidays', message: expect.stringContaining('ISO 3166') },
      ]);
      // A named schedule takes them too.
      const schedule = await call(a.app, acme.apiKey, 'POST', `/api/v1/users/${acme.owner.uuid}/schedules`, {
        name: 'Polish office',
        timezone: 'Europe/Warsaw',
        weekly: { wednesday: [{ start: '09:00', end: '12:00' }] },
        holidays: 'PL',
      });
      expect(schedule.statusCode, schedule.body).toBe(201);
      expect(schedule.json()).toMatchObject({ holidays: 'PL', holidayExceptions: [] });
      const scheduled = await createTopic(acme, { schedule: schedule.json().uuid });
      expect(await startsOn(acme, scheduled.uuid, '2027-01-06')).toEqual([]);
      expect(await startsOn(acme, scheduled.uuid, '2027-01-13')).toHaveLength(3);
    });

    it('books a private topic once through a single-use link; then the page and the booking answer 410', async () => {
      const acme = await newAccount();
      expect((await setHours(acme)).statusCode).toBe(200);
      const topic = await createTopic(acme, { public: false });
      const made = await call(a.app, acme.apiKey, 'POST', `/api/v1/meeting-topics/${topic.uuid}/single-use-links`, {});
      expect(made.statusCode, made.body).toBe(201);
      const { url, expiresAt, uuid } = made.json() as { url: string; expiresAt: string; uuid: string };
      expect(expiresAt).toBe('2027-01-11T06:00:00.000Z');
      const path = new URL(url).pathname;
      expect(path).toMatch(/^\/book\/once\/[A-Za-z0-9_-]{43}$/);
      const token = path.split('/').pop()!;
      // Only the hash is stored.
      const stored = await a.ctx.db.selectFrom('single_use_links').selectAll().execute();
      expect(JSON.stringify(stored)).not.toContain(token);
      expect((await call(a.app, acme.apiKey, 'GET', `/api/v1/meeting-topics/${topic.uuid}/single-use-links`)).json().links.map((link: { uuid: string }) => link.uuid)).toEqual([
        uuid,
      ]);

      const page = await a.app.inject({ method: 'GET', url: path });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('singleUseToken');
      // The topic is not public: without the link it is no page and takes no public booking.
      expect((await a.app.inject({ method: 'GET', url: `/book/${acme.owner.username}/${topic.uuid}` })).statusCode).toBe(404);
      const start = '2027-01-12T08:00:00.000Z';
      expectProblem(await call(a.app, null, 'POST', '/api/v1/public/schedule', booking(topic.uuid, start, acme.owner.username)), 404, 'NOT_FOUND');

      const first = await call(a.app, null, 'POST', '/api/v1/public/schedule', booking(topic.uuid, start, acme.owner.username, { singleUseToken: token }));
      expect(first.statusCode, first.body).toBe(201);
      expectProblem(
        await call(a.app, null, 'POST', '/api/v1/public/schedule', booking(topic.uuid, '2027-01-12T10:00:00.000Z', acme.owner.username, { singleUseToken: token })),
        410,
        'LINK_GONE',
      );
      const gone = await b.inject({ method: 'GET', url: `${path}?lang=pl` });
      expect(gone.statusCode).toBe(410);
      expect(gone.headers['content-type']).toContain('text/html');
      expect(gone.body).toContain('Ten link do rezerwacji został już użyty');
      expect((await b.inject({ method: 'GET', url: path })).body).toContain('This booking link has been used');
      expect((await call(a.app, acme.apiKey, 'GET', `/api/v1/meeting-topics/${topic.uuid}/single-use-links`)).json().links).toEqual([]);
      expect((await a.app.inject({ method: 'GET', url: '/book/once/not-a-token' })).statusCode).toBe(410);
    });

    it('expires a link after expiresInDays', async () => {
      const acme = await newAccount();
      const topic = await createTopic(acme);
      const made = await call(a.app, acme.apiKey, 'POST', `/api/v1/meeting-topics/${topic.uuid}/single-use-links`, { expiresInDays: 1 });
      expect(made.statusCode).toBe(201);
      const path = new URL(made.json().url).pathname;
      expect((await a.app.inject({ method: 'GET', url: path })).statusCode).toBe(200);
      a.clock.advance(86_400_000);
      try {
        expect((await a.app.inject({ method: 'GET', url: path })).statusCode).toBe(410);
      } finally {
        a.clock.advance(-86_400_000);
      }
      expectProblem(await call(a.app, acme.apiKey, 'POST', `/api/v1/meeting-topics/${topic.uuid}/single-use-links`, { expiresInDays: 0 }), 400, 'VALIDATION_FAILED');
    });

    it('gives two participants booking through one link at the same moment, on two instances, exactly one booking', async () => {
      const acme = await newAccount();
      expect((await setHours(acme)).statusCode).toBe(200);
      const topic = await createTopic(acme, { public: false });
      for (let round = 0; round < 3; round += 1) {
        const made = await call(a.app, acme.apiKey, 'POST', `/api/v1/meeting-topics/${topic.uuid}/single-use-links`, {});
        const token = new URL(made.json().url).pathname.split('/').pop()!;
        // Different free starts: only the link can make one of them lose.
        const day = `2027-01-${String(12 + round).padStart(2, '0')}`;
        const answers = await Promise.all([
          call(a.app, null, 'POST', '/api/v1/public/schedule', booking(topic.uuid, `${day}T08:00:00.000Z`, acme.owner.username, { singleUseToken: token, email: 'x@example.com' })),
          call(b, null, 'POST', '/api/v1/public/schedule', booking(topic.uuid, `${day}T10:00:00.000Z`, acme.owner.username, { singleUseToken: token, email: 'y@example.com' })),
        ]);
        expect(answers.map((answer) => answer.statusCode).sort()).toEqual([201, 410]);
      }
      const meetings = await a.ctx.db.selectFrom('meetings').select('id').where('topic_id', '=', topic.uuid).execute();
      expect(meetings).toHaveLength(3);
    });
  });
}
