import { DefaultQueryExecutor } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, type TestApp } from '../helpers.js';

/**
 * A booking's statements are compiled once (src/db/compiled-query.ts) and re-run with each
 * booking's values: building and compiling them again on every booking was a fifth of a
 * booking's CPU (bench/README.md). A read added to the booking's path without compileOnce
 * makes every booking slower without failing any other test, so: once one booking has run,
 * the next compiles nothing, on both databases.
 */
describe.each(DIALECTS)('a booking compiles no query once warm (%s)', (dialect) => {
  let t: TestApp;
  let acme: CreatedAccount;
  let topic: { uuid: string };

  beforeAll(async () => {
    t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'));
    acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['zoom'] });
    topic = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Intro', durationMinutes: 30, places: ['zoom'] })).json();
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await t.close();
  });

  it('books the second slot with the first booking’s compiled statements', async () => {
    const calculated = (
      await call(t.app, null, 'POST', '/api/v1/calculate-schedule', { username: acme.owner.username, meetingTopic: topic.uuid, timezone: 'Europe/Warsaw', offset: 0 })
    ).json();
    const [first, second] = (calculated.days as { slots: { start: string; username: string }[] }[]).flatMap((day) => day.slots);
    const book = (slot: { start: string; username: string }) =>
      call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
        dates: [slot],
        email: 'jan@example.com',
        lang: 'pl',
        name: 'Jan',
        place: 'zoom',
        meetingTopic: topic.uuid,
        timezone: 'Europe/Warsaw',
      });
    expect((await book(first!)).statusCode).toBe(201);
    const compiles = vi.spyOn(DefaultQueryExecutor.prototype, 'compileQuery');
    const response = await book(second!);
    expect(response.statusCode).toBe(201);
    expect(response.json().meetings[0].start).toBe(second!.start);
    // What was compiled, by the SQL's start, if anything was.
    expect(compiles.mock.results.map((result) => (result.value as { sql: string }).sql.slice(0, 80))).toEqual([]);
    compiles.mockRestore();
  });
});
