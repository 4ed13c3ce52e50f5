import SqliteDatabase from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbOrTrx } from '../../src/db/database.js';
import { createKyselyReads, createSqliteReads, type FastReads } from '../../src/db/fast-reads.js';
import { replaceExternalBusy } from '../../src/db/repositories/busy-time.js';
import { insertConnection, markConnectionFailed, storeConnected } from '../../src/db/repositories/connections.js';
import { inTransaction } from '../../src/db/transaction.js';
import { newId } from '../../src/ids.js';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { call, createClock, createTestAccount, createTestApp, type TestApp } from '../helpers.js';

/**
 * The calculation's prepared SQLite reads (src/db/fast-reads.ts) are hand-written SQL that
 * mirrors the repositories. This runs both implementations on one database through the
 * cases that matter to a participant, so the copies cannot drift apart unnoticed.
 */
describe('prepared SQLite reads agree with the repository queries', () => {
  let t: TestApp;
  let prepared: FastReads;
  let kysely: FastReads;
  let acme: CreatedAccount;
  let other: CreatedAccount;
  const users: Record<string, { uuid: string; username: string }> = {};
  const topics: Record<string, string> = {};

  beforeAll(async () => {
    t = await createTestApp('sqlite', createClock('2027-01-04T06:00:00.000Z'));
    const config = t.ctx.config.database;
    if (config.dialect !== 'sqlite') throw new Error('sqlite expected');
    prepared = createSqliteReads(config.filename);
    kysely = createKyselyReads(t.ctx.db);
    acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['zoom'] });
    other = await createTestAccount(t.ctx);
    await call(t.app, acme.apiKey, 'PATCH', '/api/v1/account', { gateways: { p24: { merchantId: 1, posId: 1, apiKey: 'k', crc: 'c' } } });
    for (const name of ['Anna', 'Bea', 'Cleo']) {
      const member = (
        await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, { firstName: name, lastName: 'Host', email: `${name.toLowerCase()}@acme.test` })
      ).json();
      users[name] = member;
    }
    const create = async (fields: Record<string, unknown>) =>
      (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { durationMinutes: 30, places: ['zoom'], ...fields })).json().uuid as string;
    topics.listed = await create({ name: 'Listed', hosts: [users.Bea!.username, users.Anna!.username, users.Cleo!.username], bufferBeforeMinutes: 10, bufferAfterMinutes: 20 });
    topics.team = await create({ name: 'Team', team: acme.team.uuid });
    topics.paid = await create({ name: 'Paid', hosts: [users.Anna!.username], price: { amount: 1000, currency: 'PLN' } });
    topics.deleted = await create({ name: 'Gone', hosts: [users.Anna!.username] });
    await call(t.app, acme.apiKey, 'DELETE', `/api/v1/meeting-topics/${topics.deleted}`);
    // Cleo leaves: she is deactivated and must no longer be offered as a host by either path.
    await call(t.app, acme.apiKey, 'DELETE', `/api/v1/teams/${acme.team.uuid}/users/${users.Cleo!.uuid}`);

    const book = async (topic: string, start: string, extra: Record<string, unknown> = {}) =>
      call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
        dates: [{ start, username: users.Anna!.username }],
        email: 'p@example.com',
        lang: 'en',
        name: 'P',
        place: 'zoom',
        meetingTopic: topic,
        timezone: 'UTC',
        ...extra,
      });
    await book(topics.listed!, '2027-01-05T08:00:00.000Z');
    const cancelled = (await book(topics.listed!, '2027-01-05T09:00:00.000Z')).json().meetings[0].uuid;
    await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${cancelled}/cancel`);
    await book(topics.paid!, '2027-01-05T10:00:00.000Z', { gateway: 'p24' }); // held until 06:30
    expect((await book(topics.team!, '2027-01-06T08:00:00.000Z', { team: acme.team.uuid })).statusCode).toBe(201);
    await replaceExternalBusy(t.ctx.db, users.Anna!.uuid, newId(), [
      { uuid: newId(), start: Date.parse('2027-01-03T00:00:00.000Z'), end: Date.parse('2027-01-10T00:00:00.000Z') }, // starts before the window
      { uuid: newId(), start: Date.parse('2027-02-01T00:00:00.000Z'), end: Date.parse('2027-02-02T00:00:00.000Z') }, // after it
    ]);
  });
  afterAll(async () => {
    prepared.close();
    await t.close();
  });

  it('find the same topics with the same active hosts, and none of another account or deleted', async () => {
    for (const [accountUuid, topicUuid] of [
      [acme.account.uuid, topics.listed!],
      [acme.account.uuid, topics.team!],
      [null, topics.paid!],
      [other.account.uuid, topics.listed!],
      [acme.account.uuid, topics.deleted!],
      [acme.account.uuid, '00000000-0000-4000-8000-000000000000'],
    ] as const) {
      const fromPrepared = await prepared.findTopic(accountUuid, topicUuid);
      const fromKysely = await kysely.findTopic(accountUuid, topicUuid);
      // The repository leaves calendar versions to a separate read; compare everything else.
      const strip = (topic: typeof fromKysely) => topic && { ...topic, hosts: topic.hosts.map(({ uuid, username }) => ({ uuid, username })) };
      expect(strip(fromPrepared), `${accountUuid} ${topicUuid}`).toEqual(strip(fromKysely));
    }
    const listed = await prepared.findTopic(acme.account.uuid, topics.listed!);
    expect(listed!.hosts.map((host) => host.username)).toEqual([users.Bea!.username, users.Anna!.username]);
    // A host's month view asks for that host only: both paths give just them, and nobody for a non-host or a host who left.
    for (const [topicUuid, username, expected] of [
      [topics.listed!, users.Anna!.username, [users.Anna!.username]],
      [topics.team!, users.Bea!.username, [users.Bea!.username]],
      [topics.paid!, users.Bea!.username, []],
      [topics.listed!, users.Cleo!.username, []],
    ] as const) {
      for (const reads of [prepared, kysely]) {
        const topic = await reads.findTopic(acme.account.uuid, topicUuid, username);
        expect(
          topic!.hosts.map((host) => host.username),
          `${topicUuid} ${username}`,
        ).toEqual(expected);
      }
    }
    expect(await prepared.findTopic(other.account.uuid, topics.listed!)).toBeUndefined();
    expect(await prepared.findTopic(acme.account.uuid, topics.deleted!)).toBeUndefined();
  });

  it('load the same busy time: live meetings with their buffers, live holds, remote-calendar spans', async () => {
    const from = Date.parse('2027-01-04T00:00:00.000Z');
    const to = Date.parse('2027-01-11T00:00:00.000Z');
    const sort = (spans: Awaited<ReturnType<FastReads['findBusySpans']>>) =>
      spans.map((span) => ({ ...span, holdExpiresAt: span.holdExpiresAt ?? null })).sort((a, b) => a.start - b.start || a.topicUuid.localeCompare(b.topicUuid));
    for (const now of [Date.parse('2027-01-04T06:00:00.000Z'), Date.parse('2027-01-04T07:00:00.000Z')]) {
      const fromPrepared = sort(await prepared.findBusySpans(users.Anna!.uuid, from, to, now));
      expect(fromPrepared).toEqual(sort(await kysely.findBusySpans(users.Anna!.uuid, from, to, now)));
    }
    const early = sort(await prepared.findBusySpans(users.Anna!.uuid, from, to, Date.parse('2027-01-04T06:00:00.000Z')));
    // The confirmed listed meeting (buffers 10/20), the held paid one, the team one, the week-long remote span.
    expect(early.map((span) => [new Date(span.start).toISOString(), span.bufferBeforeMinutes, span.bufferAfterMinutes])).toEqual([
      ['2027-01-03T00:00:00.000Z', 0, 0],
      ['2027-01-05T08:00:00.000Z', 10, 20],
      ['2027-01-05T10:00:00.000Z', 0, 0],
      ['2027-01-06T08:00:00.000Z', 0, 0],
    ]);
    // After the hold lapsed it no longer blocks.
    const late = await prepared.findBusySpans(users.Anna!.uuid, from, to, Date.parse('2027-01-04T07:00:00.000Z'));
    expect(late).toHaveLength(3);
  });

  it("load several hosts at once exactly as one by one, on both paths (the cold team view's batch)", async () => {
    const from = Date.parse('2027-01-04T00:00:00.000Z');
    const to = Date.parse('2027-01-11T00:00:00.000Z');
    const now = Date.parse('2027-01-04T06:00:00.000Z');
    const missing = newId();
    const hosts = [users.Anna!.uuid, users.Bea!.uuid, acme.owner.uuid, missing];
    for (const reads of [prepared, kysely]) {
      const busy = await reads.findBusySpansOfHosts(hosts, from, to, now);
      expect([...busy.keys()].sort()).toEqual([...hosts].sort());
      for (const host of hosts) expect(busy.get(host)).toEqual(await reads.findBusySpans(host, from, to, now));
      expect(busy.get(users.Anna!.uuid)).toHaveLength(4);
      expect(busy.get(missing)).toEqual([]);
      const hours = await reads.findAvailabilityJsonOfHosts(hosts);
      expect(hours.has(missing)).toBe(false);
      for (const host of hosts.slice(0, 3)) expect(hours.get(host)).toBe(await reads.findAvailabilityJson(host));
    }
  });

  it('read the same place facts: working connections only, and the host’s own place details', async () => {
    const now = t.clock.now();
    const connect = async (userUuid: string, status: 'connected' | 'error') => {
      const uuid = newId();
      await insertConnection(
        t.ctx.db,
        { uuid, accountUuid: acme.account.uuid, userUuid, provider: 'zoom', status: 'pending', accountEmail: null, lastError: null, createdAt: now, connectedAt: null },
        now,
      );
      await storeConnected(t.ctx.db, uuid, { accountEmail: null, tokens: { accessTokenSealed: null, refreshTokenSealed: null, accessExpiresAt: null } }, now);
      if (status === 'error') await markConnectionFailed(t.ctx.db, uuid, 'refused', now);
    };
    await connect(users.Anna!.uuid, 'connected');
    await connect(users.Bea!.uuid, 'error');
    const link = 'https://zoom.us/j/100200300';
    expect((await call(t.app, acme.apiKey, 'PUT', `/api/v1/users/${users.Bea!.uuid}/place-details`, { zoom: link })).statusCode).toBe(200);
    const hosts = [users.Anna!.uuid, users.Bea!.uuid, acme.owner.uuid, newId()];
    const [fromPrepared, fromKysely] = [await prepared.findPlaceFactsOfHosts(hosts), await kysely.findPlaceFactsOfHosts(hosts)];
    expect(fromPrepared).toEqual(fromKysely);
    expect(fromPrepared.get(users.Anna!.uuid)).toEqual({ connected: ['zoom'], details: {} });
    expect(fromPrepared.get(users.Bea!.uuid)).toEqual({ connected: [], details: { zoom: link } });
    expect(fromPrepared.size).toBe(3);
  });

  it('read the same calendar version and hours', async () => {
    for (const user of [users.Anna!, users.Bea!, acme.owner]) {
      const version = await prepared.findCalendarVersion(user.uuid);
      expect(version).toBeGreaterThanOrEqual(0);
      expect(version).toBe(await kysely.findCalendarVersion(user.uuid));
      expect(await prepared.findAvailabilityJson(user.uuid)).toBe(await kysely.findAvailabilityJson(user.uuid));
    }
    expect(await prepared.findCalendarVersion(users.Anna!.uuid)).toBeGreaterThan(0);
  });

  it('read the same named schedules (only for their owner) and host limits, one by one and batched', async () => {
    const weekly = { monday: [{ start: '18:00', end: '20:00' }] };
    const schedule = (await call(t.app, acme.apiKey, 'POST', `/api/v1/users/${users.Anna!.uuid}/schedules`, { name: 'Evenings', timezone: 'UTC', weekly })).json();
    expect((await call(t.app, acme.apiKey, 'PUT', `/api/v1/users/${users.Bea!.uuid}/limits`, { daily: 2, weekly: 7 })).statusCode).toBe(200);
    for (const [scheduleUuid, userUuid] of [
      [schedule.uuid, users.Anna!.uuid],
      [schedule.uuid, users.Bea!.uuid],
      [newId(), users.Anna!.uuid],
    ] as const) {
      expect(await prepared.findScheduleJson(scheduleUuid, userUuid)).toBe(await kysely.findScheduleJson(scheduleUuid, userUuid));
    }
    expect(JSON.parse((await prepared.findScheduleJson(schedule.uuid, users.Anna!.uuid))!).weekly.monday).toEqual(weekly.monday);
    expect(await prepared.findScheduleJson(schedule.uuid, users.Bea!.uuid)).toBeUndefined();
    const hosts = [users.Anna!.uuid, users.Bea!.uuid, newId()];
    for (const host of hosts) expect(await prepared.findHostLimits(host)).toEqual(await kysely.findHostLimits(host));
    expect(await prepared.findHostLimitsOfHosts(hosts)).toEqual(await kysely.findHostLimitsOfHosts(hosts));
    expect(await prepared.findHostLimits(users.Bea!.uuid)).toEqual({ timezone: 'Europe/Warsaw', daily: 2, weekly: 7 });
    expect(await prepared.findHostLimits(users.Anna!.uuid)).toEqual({ timezone: 'Europe/Warsaw', daily: null, weekly: null });
  });

  it("load a collective meeting into each co-host's busy time, on both paths, until it is cancelled", async () => {
    const topic = (
      await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', {
        name: 'Panel',
        durationMinutes: 30,
        places: ['zoom'],
        team: acme.team.uuid,
        assignment: 'collective',
        bufferAfterMinutes: 15,
      })
    ).json().uuid as string;
    const booked = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
      dates: [{ start: '2027-01-12T09:00:00.000Z', username: acme.owner.username }],
      email: 'p@example.com',
      lang: 'en',
      name: 'P',
      place: 'zoom',
      meetingTopic: topic,
      team: acme.team.uuid,
      timezone: 'UTC',
    });
    expect(booked.statusCode).toBe(201);
    const from = Date.parse('2027-01-11T00:00:00.000Z');
    const to = Date.parse('2027-01-18T00:00:00.000Z');
    const now = Date.parse('2027-01-04T06:00:00.000Z');
    const expected = [
      {
        start: Date.parse('2027-01-12T09:00:00.000Z'),
        end: Date.parse('2027-01-12T09:30:00.000Z'),
        topicUuid: topic,
        holdExpiresAt: null,
        bufferBeforeMinutes: 0,
        bufferAfterMinutes: 15,
      },
    ];
    for (const reads of [prepared, kysely]) {
      for (const host of [users.Anna!.uuid, users.Bea!.uuid, acme.owner.uuid]) expect(await reads.findBusySpans(host, from, to, now)).toEqual(expected);
      const batch = await reads.findBusySpansOfHosts([users.Anna!.uuid, users.Bea!.uuid], from, to, now);
      expect(batch.get(users.Bea!.uuid)).toEqual(expected);
    }
    await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${booked.json().meetings[0].uuid}/cancel`);
    for (const reads of [prepared, kysely]) expect(await reads.findBusySpans(users.Bea!.uuid, from, to, now)).toEqual([]);
  });
});

/**
 * The prepared reads share one SQLite snapshot while nothing was written: a read must still
 * never miss a commit made before it, or a participant would be offered a slot just booked.
 */
describe('prepared SQLite reads see every commit made before them', () => {
  let t: TestApp;
  let prepared: FastReads;
  let acme: CreatedAccount;
  let filename: string;

  beforeAll(async () => {
    t = await createTestApp('sqlite', createClock('2027-01-04T06:00:00.000Z'));
    const config = t.ctx.config.database;
    if (config.dialect !== 'sqlite') throw new Error('sqlite expected');
    filename = config.filename;
    prepared = createSqliteReads(filename);
    acme = await createTestAccount(t.ctx);
  });
  afterAll(async () => {
    prepared.close();
    await t.close();
  });

  const bumpVersion = (db: DbOrTrx) =>
    db
      .updateTable('users')
      .set((eb) => ({ calendar_version: eb('calendar_version', '+', 1) }))
      .where('id', '=', acme.owner.uuid)
      .execute();
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

  it('a write by this process shows at once, in the same turn of the event loop', async () => {
    const before = await prepared.findCalendarVersion(acme.owner.uuid);
    await bumpVersion(t.ctx.db);
    expect(await prepared.findCalendarVersion(acme.owner.uuid)).toBe(before! + 1);
    // And inside a transaction once it has committed (group commit answers after COMMIT).
    await inTransaction(t.ctx.db, (trx) => bumpVersion(trx));
    expect(await prepared.findCalendarVersion(acme.owner.uuid)).toBe(before! + 2);
  });

  it('a write by another process (the operator CLI) shows within the configured bound', async () => {
    const bounded = createSqliteReads(filename, 100);
    try {
      const before = await bounded.findCalendarVersion(acme.owner.uuid);
      const cli = new SqliteDatabase(filename);
      try {
        cli.prepare('update users set calendar_version = calendar_version + 1 where id = ?').run(acme.owner.uuid);
      } finally {
        cli.close();
      }
      // Remembered answers are re-checked against another process's commits at most every 100 ms.
      await new Promise((resolve) => setTimeout(resolve, 110));
      expect(await bounded.findCalendarVersion(acme.owner.uuid)).toBe(before! + 1);
    } finally {
      bounded.close();
    }
  });

  it('with a bound of 0, a write by another process shows from the next turn on', async () => {
    const unbounded = createSqliteReads(filename, 0);
    try {
      const before = await unbounded.findCalendarVersion(acme.owner.uuid);
      const cli = new SqliteDatabase(filename);
      try {
        cli.prepare('update users set calendar_version = calendar_version + 1 where id = ?').run(acme.owner.uuid);
      } finally {
        cli.close();
      }
      await nextTurn();
      expect(await unbounded.findCalendarVersion(acme.owner.uuid)).toBe(before! + 1);
    } finally {
      unbounded.close();
    }
  });

  it('a booking answered 201 is missing from the very next month view of that host', async () => {
    const body = { username: acme.owner.username, meetingTopic: '', timezone: 'UTC', offset: 0, month: 1 };
    const topic = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Snap', durationMinutes: 30, places: ['zoom'], hosts: [acme.owner.username] })).json()
      .uuid as string;
    body.meetingTopic = topic;
    const slotsOf = async () =>
      (await call(t.app, null, 'POST', '/api/v1/calculate-schedule', body))
        .json()
        .days.flatMap((day: { slots: { start: string }[] }) => day.slots.map((slot) => slot.start)) as string[];
    const offered = await slotsOf();
    for (const start of offered.slice(0, 3)) {
      const booked = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
        dates: [{ start, username: acme.owner.username }],
        email: 'p@example.com',
        lang: 'en',
        name: 'P',
        place: 'zoom',
        meetingTopic: topic,
        timezone: 'UTC',
      });
      expect(booked.statusCode).toBe(201);
      expect(await slotsOf()).not.toContain(start);
    }
  });
});
