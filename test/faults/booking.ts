import { pino } from 'pino';
import { createContext, type AppContext } from '../../src/context.js';
import type { Dialect } from '../../src/db/connect.js';
import { createMeetingTopic } from '../../src/scheduling/topics/meeting-topics.js';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { createTestAccount, createTestDatabase, type TestDatabase } from '../helpers.js';

export interface Slot {
  start: string;
  username: string;
}

/** A database with an account and a 15-minute topic, for server processes to book against. */
export interface BookingFixture {
  database: TestDatabase;
  ctx: AppContext;
  account: CreatedAccount;
  topicUuid: string;
  /** The environment a server process needs to use the same database. */
  serverEnv: Record<string, string>;
  close(): Promise<void>;
}

/** `extraEnv` reaches the configuration of both the fixture and the server (a `DATA_DIR` on a small disk). */
export async function createBookingFixture(dialect: Dialect, extraEnv: Record<string, string> = {}): Promise<BookingFixture> {
  const database = await createTestDatabase(dialect, extraEnv);
  const ctx = await createContext(database.config, { log: pino({ level: 'silent' }) });
  const account = await createTestAccount(ctx, { timezone: 'UTC', places: ['zoom'] });
  const owner = { keyUuid: '', userUuid: account.owner.uuid, accountUuid: account.account.uuid, username: account.owner.username };
  const topic = await createMeetingTopic(ctx, owner, { name: 'Fault', durationMinutes: 15, slotIntervalMinutes: 15, places: ['zoom'] });
  const db = database.config.database;
  return {
    database,
    ctx,
    account,
    topicUuid: topic.uuid,
    serverEnv: {
      DATA_DIR: database.config.dataDir,
      DATABASE_URL: db.dialect === 'postgres' ? db.url : `sqlite:${db.filename}`,
      MIGRATE_ON_START: 'false',
    },
    async close() {
      await ctx.close();
      await database.drop();
    },
  };
}

/** Free slots of the next two months' weekdays, as the server offers them. */
export async function freeSlots(url: string, fixture: BookingFixture, count: number): Promise<Slot[]> {
  const now = new Date();
  const slots: Slot[] = [];
  for (let ahead = 1; ahead <= 2 && slots.length < count; ahead += 1) {
    const month = now.getUTCMonth() + 1 + ahead;
    const response = await fetch(`${url}/api/v1/calculate-schedule`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: fixture.account.owner.username, meetingTopic: fixture.topicUuid, timezone: 'UTC', offset: 0, month, year: now.getUTCFullYear() }),
    });
    if (response.status !== 200) throw new Error(`calculate-schedule: ${response.status} ${await response.text()}`);
    const body = (await response.json()) as { days: { slots: Slot[] }[] };
    for (const day of body.days) slots.push(...day.slots);
  }
  if (slots.length < count) throw new Error(`only ${slots.length} free slots`);
  return slots.slice(0, count);
}

export interface BookingOutcome {
  status: number | 'network-error';
  meetingUuids: string[];
}

/** POST /schedule for one slot; never throws (a dead server is an outcome too). */
export async function book(url: string, fixture: BookingFixture, slot: Slot, i: number): Promise<BookingOutcome> {
  try {
    const response = await fetch(`${url}/api/v1/schedule`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-api-key': fixture.account.apiKey },
      body: JSON.stringify({ dates: [slot], email: `p${i}@example.com`, lang: 'en', name: `P ${i}`, place: 'zoom', meetingTopic: fixture.topicUuid, timezone: 'UTC' }),
      signal: AbortSignal.timeout(20_000),
    });
    const text = await response.text();
    const meetingUuids = response.status === 201 ? (JSON.parse(text) as { meetings: { uuid: string }[] }).meetings.map((m) => m.uuid) : [];
    return { status: response.status, meetingUuids };
  } catch {
    return { status: 'network-error', meetingUuids: [] };
  }
}

/** The uuids among `uuids` that the database does not hold. */
export async function missingMeetings(fixture: BookingFixture, uuids: string[]): Promise<string[]> {
  if (uuids.length === 0) return [];
  const rows = await fixture.ctx.db.selectFrom('meetings').select('id').where('id', 'in', uuids).execute();
  const stored = new Set(rows.map((row) => row.id));
  return uuids.filter((uuid) => !stored.has(uuid));
}
