import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, type TestApp } from '../helpers.js';

/**
 * Input a client should never be able to turn into a 500, a PostgreSQL error or a stored
 * oddity: deep or huge free-form JSON, control characters, amounts past a 32-bit integer,
 * and date-times the calendar does not have. Each is a 400 naming the field, and leaves
 * every table as it was.
 */

type Slot = { start: string; username: string };

/** Tables a refused request could have written to. */
const TABLES = ['accounts', 'users', 'teams', 'memberships', 'api_keys', 'meeting_topics', 'meetings', 'idempotency_keys', 'outbox', 'payments', 'discount_codes'] as const;

/** `levels` nested objects, `{"a":{"b":…{…: leaf}}}`, keys a, b, c, … */
function nestedObjects(levels: number, leaf: unknown = 1): unknown {
  let value = leaf;
  for (let i = levels - 1; i >= 0; i -= 1) value = { [String.fromCharCode(97 + (i % 26))]: value };
  return value;
}

for (const dialect of DIALECTS) {
  describe(`hostile input [${dialect}]`, () => {
    let t: TestApp;
    let acme: CreatedAccount;
    let topic: { uuid: string };
    let slots: Slot[];

    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'));
      acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['offline', 'phone-call', 'zoom'] });
      topic = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Intro', durationMinutes: 30, places: ['zoom', 'offline'] })).json();
      const schedule = await call(t.app, null, 'POST', '/api/v1/calculate-schedule', {
        username: acme.owner.username,
        meetingTopic: topic.uuid,
        timezone: 'Europe/Warsaw',
        offset: 0,
      });
      slots = (schedule.json().days as { slots: Slot[] }[]).flatMap((day) => day.slots);
      expect(slots.length).toBeGreaterThan(10);
    });
    afterAll(async () => t.close());

    const counts = async () => {
      const result: Record<string, number> = {};
      for (const table of TABLES) {
        result[table] = Number(
          (
            await t.ctx.db
              .selectFrom(table)
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      }
      return result;
    };
    const booking = (extra: Record<string, unknown> = {}) => ({
      dates: [slots[0]!],
      email: 'jan@example.com',
      lang: 'pl',
      name: 'Jan Kowalski',
      place: 'zoom',
      meetingTopic: topic.uuid,
      timezone: 'Europe/Warsaw',
      ...extra,
    });

    /** Sends each request, expects a 400 naming `path`, and checks nothing was stored. */
    async function expectRefused(cases: [label: string, send: () => ReturnType<typeof call>, path: string][]) {
      const before = await counts();
      for (const [label, send, path] of cases) {
        const response = await send();
        if (response.statusCode !== 400) throw new Error(`${label}: expected 400, got ${response.statusCode} ${response.body.slice(0, 300)}`);
        const problem = expectProblem(response, 400, 'VALIDATION_FAILED');
        expect(
          problem.errors!.map((e) => e.path),
          label,
        ).toContain(path);
      }
      expect(await counts()).toEqual(before);
    }

    describe('deep and large free-form JSON', () => {
      it('refuses 3,500 nested arrays in metadata with a 400 at the depth limit, not a 500', async () => {
        const body = JSON.stringify(booking({ metadata: { a: '@DEEP@' } })).replace('"@DEEP@"', `${'['.repeat(3500)}${']'.repeat(3500)}`);
        expect(body.length).toBeLessThan(100 * 1024);
        const formBody = JSON.stringify(booking({ form: { company: '@DEEP@' } })).replace('"@DEEP@"', `${'['.repeat(3000)}${']'.repeat(3000)}`);
        await expectRefused([
          // metadata is level 1, a level 2, and the ninth container is the one refused.
          ['3500 arrays in metadata', () => call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', body), '/metadata/a/0/0/0/0/0/0/0'],
          ['3000 arrays in form', () => call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', formBody), '/form/company/0/0/0/0/0/0/0'],
          [
            'same, replayed with an idempotency key',
            () => call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', body, { 'idempotency-key': 'deep-1' }),
            '/metadata/a/0/0/0/0/0/0/0',
          ],
        ]);
      });

      it('takes 8 levels and refuses 9, pointing at the place', async () => {
        await expectRefused([
          // metadata itself is level 1: the object at /a/b/c/d/e/f/g/h is the ninth.
          ['nine levels', () => call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', booking({ metadata: nestedObjects(9) })), '/metadata/a/b/c/d/e/f/g/h'],
        ]);
        const eight = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', booking({ dates: [slots[1]!], metadata: nestedObjects(8, 'leaf') }));
        expect(eight.statusCode).toBe(201);
        expect(eight.json().meetings[0].metadata).toEqual(nestedObjects(8, 'leaf'));
      });

      it('bounds the keys of one object, the elements of one array, all values, and string lengths', async () => {
        const wide = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i]));
        const many = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`list${i}`, Array.from({ length: 99 }, (_, j) => j)]));
        const send = (extra: Record<string, unknown>) => () => call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', booking(extra));
        await expectRefused([
          ['101 keys', send({ metadata: wide }), '/metadata'],
          ['101 elements', send({ metadata: { list: Array.from({ length: 101 }, () => 0) } }), '/metadata/list'],
          ['over 1,000 values in all', send({ metadata: many }), '/metadata'],
          ['a long string value', send({ metadata: { a: { b: 'x'.repeat(5001) } } }), '/metadata/a/b'],
          ['a long key', send({ form: { ['k'.repeat(201)]: 'x' } }), `/form/${'k'.repeat(201)}`],
          ['a key with / and ~ is escaped in the pointer', send({ metadata: { 'a/b~c': { d: 'x\u0000' } } }), '/metadata/a~1b~0c/d'],
        ]);
      });

      it('bounds gateway settings on PATCH /account the same way', async () => {
        // The map spelling has a schema per gateway: an unknown field is refused where it starts.
        await expectRefused([
          ['deep settings', () => call(t.app, acme.apiKey, 'PATCH', '/api/v1/account', { gateways: { p24: { a: nestedObjects(9) } } }), '/gateways/p24/a'],
          [
            'deep settings in a list',
            () => call(t.app, acme.apiKey, 'PATCH', '/api/v1/account', { gateways: [{ code: 'p24', settings: { a: nestedObjects(9) } }] }),
            '/gateways/0/settings/a/a/b/c/d/e/f/g',
          ],
        ]);
      });
    });

    describe('control characters and NUL (PostgreSQL text cannot hold U+0000)', () => {
      it('refuses them in every single-line field of POST /schedule, and NUL in multi-line and free-form fields', async () => {
        const send = (extra: Record<string, unknown>) => () => call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', booking(extra));
        await expectRefused([
          ['NUL in name', send({ name: 'Jan\u0000Kowalski' }), '/name'],
          ['LF in name', send({ name: 'Jan\nBcc: x@evil.test' }), '/name'],
          ['quote-free but DEL in name', send({ name: 'Jan\u007F' }), '/name'],
          ['NUL in e-mail', send({ email: 'jan\u0000@example.com' }), '/email'],
          ['CRLF after e-mail', send({ email: 'jan@example.com\r\nBcc: x@evil.test' }), '/email'],
          ['CRLF in phone', send({ phone: '+48 600\r\nX-Evil: 1' }), '/phone'],
          ['NUL in a date username', send({ dates: [{ start: slots[0]!.start, username: `${acme.owner.username}\u0000` }] }), '/dates/0/username'],
          ['NUL in note', send({ note: 'line 1\nline 2\u0000' }), '/note'],
          ['BEL in note', send({ note: 'ding\u0007' }), '/note'],
          ['NUL in invoice city', send({ invoiceCity: 'Warszawa\u0000' }), '/invoiceCity'],
          ['LF in tax number', send({ invoiceTaxNumber: 'PL1\n23' }), '/invoiceTaxNumber'],
          ['NUL in discount code', send({ discount: 'SPRING\u0000' }), '/discount'],
          ['NUL in a metadata value', send({ metadata: { crm: ['ok', 'bad\u0000'] } }), '/metadata/crm/1'],
          ['NUL in a metadata key', send({ metadata: { 'k\u0000': 1 } }), '/metadata/k\u0000'],
          ['NUL in a form answer', send({ form: { company: 'ACME\u0000' } }), '/form/company'],
        ]);
        // Line breaks and tabs are fine where text may span lines.
        const multiLine = await call(
          t.app,
          acme.apiKey,
          'POST',
          '/api/v1/schedule',
          booking({ dates: [slots[2]!], note: 'line 1\r\nline 2\n\tindented', metadata: { text: 'a\nb' } }),
        );
        expect(multiLine.statusCode).toBe(201);
        expect(multiLine.json().meetings[0].note).toBe('line 1\r\nline 2\n\tindented');
      });

      it('refuses them in teams, members, topics, keys, discount codes, queries and the public calculation', async () => {
        const key = acme.apiKey;
        await expectRefused([
          ['team name', () => call(t.app, key, 'POST', '/api/v1/teams', { name: 'Sales\u0000' }), '/name'],
          [
            'member first name',
            () => call(t.app, key, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, { firstName: 'A\nB', lastName: 'C', email: 'ab@example.com' }),
            '/firstName',
          ],
          ['member e-mail', () => call(t.app, key, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, { firstName: 'A', lastName: 'C', email: 'a\u0000b@example.com' }), '/email'],
          ['topic name', () => call(t.app, key, 'POST', '/api/v1/meeting-topics', { name: 'Intro\u0000', durationMinutes: 30 }), '/name'],
          [
            'topic variant name',
            () =>
              call(t.app, key, 'POST', '/api/v1/meeting-topics', { name: 'Paid', durationMinutes: 30, priceVariants: [{ name: 'x\r\ny', price: { amount: 1, currency: 'PLN' } }] }),
            '/priceVariants/0/name',
          ],
          [
            'topic form label',
            () => call(t.app, key, 'POST', '/api/v1/meeting-topics', { name: 'F', durationMinutes: 30, form: [{ key: 'company', label: 'Company\u0000' }] }),
            '/form/0/label',
          ],
          ['topic host', () => call(t.app, key, 'POST', '/api/v1/meeting-topics', { name: 'H', durationMinutes: 30, hosts: ['anna\u0000'] }), '/hosts/0'],
          ['topic rename', () => call(t.app, key, 'PATCH', `/api/v1/meeting-topics/${topic.uuid}`, { name: 'New\u0000' }), '/name'],
          ['api key name', () => call(t.app, key, 'POST', '/api/v1/api-keys', { name: 'ci\u0000' }), '/name'],
          ['account name', () => call(t.app, key, 'PATCH', '/api/v1/account', { name: 'Acme\u0000' }), '/name'],
          ['discount code', () => call(t.app, key, 'POST', '/api/v1/discount-codes', { code: 'SPR\u0000NG', percentOff: 10 }), '/code'],
          ['cancel reason', () => call(t.app, key, 'POST', `/api/v1/meetings/${topic.uuid}/cancel`, { reason: 'because\u0000' }), '/reason'],
          ['username query', () => call(t.app, key, 'GET', '/api/v1/meetings?username=%00'), '/query/username'],
          ['cursor query', () => call(t.app, key, 'GET', '/api/v1/meetings?cursor=a%00b'), '/query/cursor'],
          ['topics username query', () => call(t.app, key, 'GET', '/api/v1/meeting-topics?username=a%0Ab'), '/query/username'],
          [
            'calculation username',
            () => call(t.app, null, 'POST', '/api/v1/calculate-schedule', { username: 'anna\u0000', meetingTopic: topic.uuid, timezone: 'Europe/Warsaw', offset: 0 }),
            '/username',
          ],
          [
            'calculation time zone',
            () => call(t.app, null, 'POST', '/api/v1/calculate-schedule', { username: acme.owner.username, meetingTopic: topic.uuid, timezone: 'Europe/Warsaw\u0000', offset: 0 }),
            '/timezone',
          ],
        ]);
      });
    });

    describe('amounts and integers past what the database holds', () => {
      it('bounds every money amount to 100,000,000 minor units, integers only', async () => {
        const key = acme.apiKey;
        const topicWith = (extra: Record<string, unknown>) => () => call(t.app, key, 'POST', '/api/v1/meeting-topics', { name: 'Paid', durationMinutes: 30, ...extra });
        await expectRefused([
          ['2^31', topicWith({ price: { amount: 2 ** 31, currency: 'PLN' } }), '/price/amount'],
          ['1e308', () => call(t.app, key, 'POST', '/api/v1/meeting-topics', '{"name":"Paid","durationMinutes":30,"price":{"amount":1e308,"currency":"PLN"}}'), '/price/amount'],
          ['one past the maximum', topicWith({ price: { amount: 100_000_001, currency: 'PLN' } }), '/price/amount'],
          ['a fraction', topicWith({ price: { amount: 150.5, currency: 'PLN' } }), '/price/amount'],
          ['a variant', topicWith({ priceVariants: [{ name: '90 min', price: { amount: 2 ** 31, currency: 'PLN' } }] }), '/priceVariants/0/price/amount'],
          ['a variant on update', () => call(t.app, key, 'PATCH', `/api/v1/meeting-topics/${topic.uuid}`, { price: { amount: 1e15, currency: 'PLN' } }), '/price/amount'],
          ['a fixed discount', () => call(t.app, key, 'POST', '/api/v1/discount-codes', { code: 'HUGE', amountOff: { amount: 2 ** 31, currency: 'PLN' } }), '/amountOff/amount'],
          ['a usage limit', () => call(t.app, key, 'POST', '/api/v1/discount-codes', '{"code":"MANY","percentOff":10,"usageLimit":1e308}'), '/usageLimit'],
          [
            'a calculation offset',
            () => call(t.app, null, 'POST', '/api/v1/calculate-schedule', `{"username":"x","meetingTopic":"${topic.uuid}","timezone":"Europe/Warsaw","offset":7e300}`),
            '/offset',
          ],
          [
            'a calculation month',
            () => call(t.app, null, 'POST', '/api/v1/calculate-schedule', `{"username":"x","meetingTopic":"${topic.uuid}","timezone":"Europe/Warsaw","offset":0,"month":1e308}`),
            '/month',
          ],
        ]);
        const max = await call(t.app, key, 'POST', '/api/v1/meeting-topics', { name: 'Dear', durationMinutes: 30, price: { amount: 100_000_000, currency: 'PLN' } });
        expect(max.statusCode).toBe(201);
        expect(max.json().price).toEqual({ amount: 100_000_000, currency: 'PLN' });
      });
    });

    describe('date-times the calendar does not have', () => {
      it('refuses them in query, body and booking dates with a 400 at the field', async () => {
        const key = acme.apiKey;
        const meetingsFrom =
          (value: string, name = 'from') =>
          () =>
            call(t.app, key, 'GET', `/api/v1/meetings?${name}=${encodeURIComponent(value)}`);
        await expectRefused([
          ['leap second', meetingsFrom('2027-01-01T23:59:60Z'), '/query/from'],
          ['month 13', meetingsFrom('2027-13-01T00:00:00Z'), '/query/from'],
          ['day 32', meetingsFrom('2027-01-32T00:00:00Z'), '/query/from'],
          ['30 February', meetingsFrom('2027-02-30T00:00:00Z'), '/query/from'],
          ['29 February of a common year', meetingsFrom('2027-02-29T00:00:00Z', 'to'), '/query/to'],
          ['hour 24', meetingsFrom('2027-01-01T24:00:00Z'), '/query/from'],
          ['no zone', meetingsFrom('2027-01-01T10:00:00'), '/query/from'],
          ['an offset, not UTC', meetingsFrom('2027-01-01T10:00:00+02:00'), '/query/from'],
          ['a space for T', meetingsFrom('2027-01-01 10:00:00Z'), '/query/from'],
          [
            'discount expiry on 30 February',
            () => call(t.app, key, 'POST', '/api/v1/discount-codes', { code: 'FEB', percentOff: 10, expiresAt: '2027-02-30T00:00:00Z' }),
            '/expiresAt',
          ],
          // V8 reads 30 February as 2 March: the booking would land on another day.
          [
            'a booking on 30 February',
            () => call(t.app, key, 'POST', '/api/v1/schedule', booking({ dates: [{ start: '2027-02-30T09:00:00.000Z', username: acme.owner.username }] })),
            '/dates/0/start',
          ],
        ]);
        for (const value of ['2027-01-01T00:00:00Z', '2027-01-01T00:00:00.000Z', '2028-02-29T23:59:59.999Z']) {
          expect((await meetingsFrom(value)()).statusCode, value).toBe(200);
        }
      });
    });
  });
}
