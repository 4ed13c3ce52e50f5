import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext, type AppContext } from '../src/context.js';
import { createMeetingTopic } from '../src/scheduling/topics/meeting-topics.js';
import type { CreatedAccount } from '../src/scheduling/account/create-account.js';
import { DIALECTS, createTestAccount, createTestDatabase, type TestDatabase } from './helpers.js';
import { startServer, stopServer, type ServerProcess } from './process.js';

describe.runIf(DIALECTS.includes('postgres'))('two server processes sharing one PostgreSQL database', () => {
  let database: TestDatabase;
  let ctx: AppContext;
  let acme: CreatedAccount;
  let topicUuid: string;
  const servers: ServerProcess[] = [];
  // Instances share the database and the secret key, nothing else (each has its own data folder).
  const secretKey = randomBytes(32).toString('hex');
  const dataDirs = [0, 1].map(() => fs.mkdtempSync(path.join(os.tmpdir(), 'termin-instance-')));

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    ctx = await createContext(database.config, { log: pino({ level: 'silent' }) });
    acme = await createTestAccount(ctx, { timezone: 'UTC', places: ['zoom'] });
    const owner = { keyUuid: '', userUuid: acme.owner.uuid, accountUuid: acme.account.uuid, username: acme.owner.username };
    topicUuid = (await createMeetingTopic(ctx, owner, { name: 'Race', durationMinutes: 60, slotIntervalMinutes: 15, places: ['zoom'] })).uuid;
    if (database.config.database.dialect !== 'postgres') throw new Error('expected PostgreSQL');
    const url = database.config.database.url;
    servers.push(...(await Promise.all(dataDirs.map((dataDir) => startServer({ DATABASE_URL: url, DATA_DIR: dataDir, TERMIN_SECRET_KEY: secretKey })))));
  }, 90_000);

  afterAll(async () => {
    await Promise.all(servers.map((server) => stopServer(server)));
    for (const dataDir of dataDirs) fs.rmSync(dataDir, { recursive: true, force: true });
    await ctx?.close();
    await database?.drop();
  });

  it('books one meeting when 60 requests for overlapping slots hit both instances at once', async () => {
    const schedule = await fetch(`${servers[0]!.url}/api/v1/calculate-schedule`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: acme.owner.username, meetingTopic: topicUuid, timezone: 'UTC', offset: 7 }),
    });
    const days = (await schedule.json()) as { days: { slots: { start: string; username: string }[] }[] };
    const slots = days.days.find((day) => day.slots.length >= 4)!.slots.slice(0, 4); // four starts 15 minutes apart, all overlapping
    const requests = Array.from({ length: 60 }, (_, i) =>
      fetch(`${servers[i % 2]!.url}/api/v1/schedule`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-api-key': acme.apiKey },
        body: JSON.stringify({ dates: [slots[i % 4]], email: `p${i}@example.com`, lang: 'en', name: `P ${i}`, place: 'zoom', meetingTopic: topicUuid, timezone: 'UTC' }),
      }).then((response) => response.status),
    );
    const statuses = await Promise.all(requests);
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    // The rest refused: 409, or, under a load average of ~15, a lock wait that gave up
    // (503, retry later); never a second booking, never any other answer.
    expect(statuses.filter((status) => status !== 201 && status !== 409 && status !== 503)).toEqual([]);
    expect(statuses.filter((status) => status === 409).length).toBeGreaterThan(0);
    const stored = await ctx.db.selectFrom('meetings').select('id').where('topic_id', '=', topicUuid).execute();
    expect(stored).toHaveLength(1);
  }, 60_000);

  it('fills a 5-seat slot with exactly five of 20 concurrent bookings, and both instances see the seats go', async () => {
    const owner = { keyUuid: '', userUuid: acme.owner.uuid, accountUuid: acme.account.uuid, username: acme.owner.username };
    const seated = (await createMeetingTopic(ctx, owner, { name: 'Class', durationMinutes: 60, places: ['zoom'], seats: 5 })).uuid;
    type Slot = { start: string; username: string; seatsLeft?: number };
    const view = async (server: ServerProcess) => {
      const response = await fetch(`${server.url}/api/v1/calculate-schedule`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: acme.owner.username, meetingTopic: seated, timezone: 'UTC', offset: 14 }),
      });
      return ((await response.json()) as { days: { slots: Slot[] }[] }).days.flatMap((day) => day.slots);
    };
    const book = (server: ServerProcess, slot: Slot, i: number) =>
      fetch(`${server.url}/api/v1/schedule`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-api-key': acme.apiKey },
        body: JSON.stringify({ dates: [slot], email: `s${i}@example.com`, lang: 'en', name: `S ${i}`, place: 'zoom', meetingTopic: seated, timezone: 'UTC' }),
      }).then((response) => response.status);
    const slot = (await view(servers[0]!))[0]!;
    expect(slot.seatsLeft).toBe(5);
    // Both instances cache the view (and remember the host's calendar version); a booking
    // through one shows in its own view at once, and in the other's as soon as PostgreSQL's
    // change notice reaches it (milliseconds; seconds allowed for a loaded machine).
    expect((await view(servers[1]!)).find((other) => other.start === slot.start)?.seatsLeft).toBe(5);
    expect(await book(servers[1]!, slot, 100)).toBe(201);
    expect((await view(servers[1]!)).find((other) => other.start === slot.start)?.seatsLeft).toBe(4);
    await expect.poll(async () => (await view(servers[0]!)).find((other) => other.start === slot.start)?.seatsLeft, { timeout: 5_000 }).toBe(4);

    const statuses = await Promise.all(Array.from({ length: 20 }, (_, i) => book(servers[i % 2]!, slot, i)));
    expect(statuses.filter((status) => status === 201)).toHaveLength(4);
    // The rest refused: 409, or under heavy machine load a lock wait that timed out; never a booking.
    expect(statuses.filter((status) => status < 400)).toHaveLength(4);
    expect(statuses.filter((status) => status === 409).length).toBeGreaterThan(0);
    const stored = await ctx.db.selectFrom('meetings').select('id').where('topic_id', '=', seated).execute();
    expect(stored).toHaveLength(5);
    for (const server of servers) await expect.poll(async () => (await view(server)).find((other) => other.start === slot.start), { timeout: 5_000 }).toBeUndefined();
  }, 60_000);

  it("a change of a team topic's host weights through one instance changes the other's cached team view as soon as it hears of it", async () => {
    const api = (server: ServerProcess, method: string, url: string, body?: unknown) =>
      fetch(`${server.url}/api/v1${url}`, {
        method,
        headers: { 'content-type': 'application/json', 'x-service-api-key': acme.apiKey },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const member = await api(servers[0]!, 'POST', `/teams/${acme.team.uuid}/users`, { firstName: 'Wanda', lastName: 'Weight', email: 'wanda@example.com' });
    expect(member.status).toBe(201);
    const wanda = ((await member.json()) as { username: string }).username;
    const created = await api(servers[0]!, 'POST', '/meeting-topics', { name: 'Weighted', durationMinutes: 60, team: acme.team.uuid, places: ['zoom'] });
    const topic = ((await created.json()) as { uuid: string }).uuid;
    const lastHost = async (server: ServerProcess) => {
      const response = await api(server, 'POST', '/calculate-schedule', { meetingTopic: topic, team: acme.team.uuid, timezone: 'UTC', offset: 28 });
      return ((await response.json()) as { days: { slots: { username: string }[] }[] }).days.flatMap((day) => day.slots).at(-1)!.username;
    };
    // Equal weights, nobody booked: the smaller username, on both instances (each now caches the view).
    const [smaller, larger] = [acme.owner.username, wanda].sort() as [string, string];
    expect(await lastHost(servers[0]!)).toBe(smaller);
    expect(await lastHost(servers[1]!)).toBe(smaller);
    expect((await api(servers[0]!, 'PATCH', `/meeting-topics/${topic}`, { hostWeights: { [larger]: 5 } })).status).toBe(200);
    await expect.poll(() => lastHost(servers[1]!), { timeout: 5_000 }).toBe(larger);
  }, 60_000);
});
