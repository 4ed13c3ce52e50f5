import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { expect } from 'vitest';
import type { Dialect } from '../../src/db/connect.js';
import { createApiKeyForUser } from '../../src/scheduling/account/api-keys.js';
import { createManageToken } from '../../src/scheduling/meetings/manage-token.js';
import { call, createTestAccount, type TestApp } from '../helpers.js';

/**
 * What the fuzz needs to reach past a 404: an account with a member, topics (free, paid with
 * variants, team, public), meetings (one paid), a discount code, a webhook, a calendar, keys,
 * offered slots and manage tokens. Built afresh before each operation's run, so no operation
 * depends on what another one's run deleted or changed.
 */
export interface Fixture {
  ownerKey: string;
  memberKey: string;
  pools: Map<string, string[]>;
  slots: { start: string; username: string }[];
}

export const POOL_LIMIT = 40;

export function addToPool(pools: Map<string, string[]>, pool: string, value: string): void {
  const list = pools.get(pool) ?? [];
  if (!list.includes(value) && list.length < POOL_LIMIT) list.push(value);
  pools.set(pool, list);
}

export async function buildFixture(t: TestApp, foreign: Map<string, string[]>): Promise<Fixture> {
  const acme = await createTestAccount(t.ctx, { places: ['offline', 'phone-call', 'zoom'] });
  const key = acme.apiKey;
  const pools = new Map<string, string[]>();
  const ok = async (response: Awaited<ReturnType<typeof call>>, status: number) => {
    if (response.statusCode !== status) throw new Error(`fixture: ${response.statusCode} ${response.body.slice(0, 400)}`);
    return response.statusCode === 204 ? null : response.json();
  };
  addToPool(pools, 'accounts', acme.account.uuid);
  addToPool(pools, 'teams', acme.team.uuid);
  addToPool(pools, 'users', acme.owner.uuid);
  addToPool(pools, 'usernames', acme.owner.username);

  const member = await ok(await call(t.app, key, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, { firstName: 'Marek', lastName: 'Member', email: 'marek@example.com' }), 201);
  addToPool(pools, 'users', member.uuid);
  addToPool(pools, 'usernames', member.username);
  const memberKey = (await createApiKeyForUser(t.ctx, member.uuid)).apiKey;
  const sales = await ok(await call(t.app, key, 'POST', '/api/v1/teams', { name: 'Sales' }), 201);
  addToPool(pools, 'teams', sales.uuid);

  await ok(await call(t.app, key, 'PATCH', '/api/v1/account', { gateways: { stripe: { secretKey: 'sk_test_fuzz', webhookSecret: 'whsec_fuzz' } } }), 200);

  const free = await ok(
    await call(t.app, key, 'POST', '/api/v1/meeting-topics', { name: 'Intro', durationMinutes: 30, places: ['zoom', 'offline', 'phone-call'], public: true }),
    201,
  );
  const paid = await ok(
    await call(t.app, key, 'POST', '/api/v1/meeting-topics', {
      name: 'Consultation',
      durationMinutes: 60,
      places: ['zoom'],
      price: { amount: 15000, currency: 'PLN' },
      priceVariants: [{ name: 'Short', price: { amount: 9000, currency: 'PLN' } }],
    }),
    201,
  );
  const team = await ok(
    await call(t.app, key, 'POST', '/api/v1/meeting-topics', {
      name: 'Team demo',
      durationMinutes: 30,
      places: ['zoom'],
      team: acme.team.uuid,
      allTeamMembers: true,
      public: true,
    }),
    201,
  );
  for (const topic of [free, paid, team]) addToPool(pools, 'meeting-topics', topic.uuid);
  for (const variant of paid.priceVariants ?? []) addToPool(pools, 'price-variants', variant.uuid);

  // Independent of each other: made side by side.
  const [discount, apiKey, webhook, calendar] = await Promise.all([
    call(t.app, key, 'POST', '/api/v1/discount-codes', { code: 'SPRING', percentOff: 10 }).then((response) => ok(response, 201)),
    call(t.app, key, 'POST', '/api/v1/api-keys', { name: 'CRM' }).then((response) => ok(response, 201)),
    call(t.app, key, 'POST', '/api/v1/webhooks', { url: `${stubUrl()}/hook`, events: ['meeting.scheduled'] }).then((response) => ok(response, 201)),
    call(t.app, key, 'POST', `/api/v1/users/${acme.owner.uuid}/calendars`, { type: 'ics', url: `${stubUrl()}/calendar.ics` }).then((response) => ok(response, 201)),
  ]);
  addToPool(pools, 'discount-codes', discount.uuid);
  addToPool(pools, 'api-keys', apiKey.uuid);
  addToPool(pools, 'webhooks', webhook.uuid);
  addToPool(pools, 'calendars', calendar.uuid);

  const slots: { start: string; username: string }[] = [];
  const topicOfSlot = new Map<{ start: string; username: string }, string>();
  for (const topic of [free, team, paid]) {
    const body = {
      username: topic === team ? undefined : acme.owner.username,
      meetingTopic: topic.uuid,
      team: topic === team ? acme.team.uuid : undefined,
      timezone: 'Europe/Warsaw',
      offset: 0,
    };
    const schedule = await ok(await call(t.app, null, 'POST', '/api/v1/calculate-schedule', body), 200);
    const offered = (schedule.days as { slots: { start: string; username: string }[] }[]).flatMap((day) => day.slots);
    for (const slot of offered.slice(0, 15)) topicOfSlot.set(slot, topic.uuid);
    slots.push(...offered.slice(0, 15));
  }
  expect(slots.length).toBeGreaterThan(20);
  // Each offered slot with the topic it was offered for, so a generated booking can name both.
  for (const slot of slots) addToPool(pools, 'slots', JSON.stringify({ ...slot, topic: topicOfSlot.get(slot) }));

  const booking = { email: 'jan@example.com', lang: 'pl', name: 'Jan Kowalski', place: 'zoom', timezone: 'Europe/Warsaw' };
  const booked = await ok(await call(t.app, key, 'POST', '/api/v1/schedule', { ...booking, dates: [slots[0]], meetingTopic: free.uuid }), 201);
  const paidSlot = slots.at(-1)!;
  const booked2 = await ok(await call(t.app, key, 'POST', '/api/v1/schedule', { ...booking, dates: [paidSlot], meetingTopic: paid.uuid, gateway: 'stripe' }), 201);
  for (const meeting of [...booked.meetings, ...booked2.meetings]) {
    addToPool(pools, 'meetings', meeting.uuid);
    addToPool(pools, 'tokens', createManageToken(t.ctx.secretKey, meeting.uuid));
  }
  addToPool(pools, 'payments', booked2.payment.uuid);

  // Another account's records: every request naming them must 404 (or 401/403), never act.
  for (const [pool, values] of foreign) for (const value of values) addToPool(pools, pool, value);
  return { ownerKey: key, memberKey, pools, slots };
}

/** The other account, whose uuids the fuzz mixes in (tenant isolation under fuzz). */
export async function buildForeignPools(t: TestApp): Promise<{ pools: Map<string, string[]>; key: string }> {
  const other = await createTestAccount(t.ctx);
  const pools = new Map<string, string[]>();
  const topic = (await call(t.app, other.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Other', durationMinutes: 30, places: ['zoom'], public: true })).json();
  addToPool(pools, 'accounts', other.account.uuid);
  addToPool(pools, 'teams', other.team.uuid);
  addToPool(pools, 'users', other.owner.uuid);
  addToPool(pools, 'usernames', other.owner.username);
  addToPool(pools, 'meeting-topics', topic.uuid);
  return { pools, key: other.apiKey };
}

let stub: { server: http.Server; url: string } | null = null;

/**
 * The only server the fuzz's URLs point at (calendars, webhooks, payment gateways): on
 * loopback, answering at once, so a registered URL never takes traffic off this machine.
 */
export async function startStub(): Promise<string> {
  const server = http.createServer((request, response) => {
    request.resume();
    if (request.method === 'GET' && request.url?.endsWith('.ics')) {
      response.writeHead(200, { 'content-type': 'text/calendar' });
      response.end('BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//fuzz//EN\r\nEND:VCALENDAR\r\n');
      return;
    }
    response.writeHead(404, { 'content-type': 'application/json' });
    response.end('{"error":"not here"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stub = { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  return stub.url;
}

export function stubUrl(): string {
  if (!stub) throw new Error('stub not started');
  return stub.url;
}

export async function stopStub(): Promise<void> {
  if (!stub) return;
  const { server } = stub;
  stub = null;
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** Every table of the database, for the row-count snapshot. */
export async function tablesOf(t: TestApp, dialect: Dialect): Promise<string[]> {
  const query =
    dialect === 'sqlite'
      ? sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`
      : sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`;
  const rows = (await query.execute(t.ctx.db)).rows.map((row) => row.name);
  expect(rows).toContain('outbox');
  expect(rows).toContain('meetings');
  return rows;
}

/** Row counts of every table in one statement (one round trip on PostgreSQL). */
export function rowCounter(t: TestApp, tables: string[]): () => Promise<Record<string, number>> {
  const statement = sql.raw<Record<string, number | string>>(`select ${tables.map((table, i) => `(select count(*) from "${table}") as c${i}`).join(', ')}`);
  return async () => {
    const row = (await statement.execute(t.ctx.db)).rows[0]!;
    return Object.fromEntries(tables.map((table, i) => [table, Number(row[`c${i}`])]));
  };
}
