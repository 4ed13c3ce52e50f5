import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { LightMyRequestResponse } from 'fastify';
import { pino } from 'pino';
import { buildApp } from '../../src/app.js';
import { type BackgroundJobs, startBackgroundJobs } from '../../src/background.js';
import { type AppContext, createContext } from '../../src/context.js';
import type { Dialect } from '../../src/db/connect.js';
import { WEBHOOK_EVENT_TYPES } from '../../src/domain/events.js';
import type { RenderedMessage } from '../../src/mail/message.js';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import type { OAuthProvider } from '../fakes/oauth-provider.js';
import { call, createTestAccount, createTestDatabase, type TestClock, type TestDatabase } from '../helpers.js';
import { startReceiver, type Receiver } from '../net/receivers.js';

/**
 * One termin (or two, on one database) wired to a provider's stand-in, as the integration
 * tests of every provider use it: every log line and every API answer kept, to look for
 * tokens in; e-mails captured; a webhook receiver subscribed to every event; and the host's
 * browser played through the provider's consent and back to the callback.
 */
export const PUBLIC_URL = 'http://termin.test';

export interface Instance {
  app: FastifyInstance;
  ctx: AppContext;
  jobs: BackgroundJobs;
}

export interface Harness extends Instance {
  clock: TestClock;
  database: TestDatabase;
  acme: CreatedAccount;
  sent: RenderedMessage[];
  logs: string[];
  /** Every body the API answered, to look for tokens in. */
  answers: string[];
  webhooks: Receiver;
  /** `call` that keeps the answer's body. */
  api(method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, body?: unknown, apiKey?: string | null): Promise<LightMyRequestResponse>;
  /** A second instance on the same database, with its own jobs. */
  startInstance(): Promise<Instance>;
  /** Runs every due job (rooms, e-mails, webhooks) until none is left. */
  runJobs(): Promise<void>;
  /** POST /connections, the browser at the provider's consent and back at the callback: the callback's answer. */
  connect(userUuid: string, provider: string, fake: OAuthProvider): Promise<{ started: Record<string, unknown>; callback: LightMyRequestResponse; callbackUrl: string }>;
  /** Webhook events received so far, by type. */
  webhookEvents(type: string): Record<string, unknown>[];
  close(): Promise<void>;
}

export async function startHarness(dialect: Dialect, clock: TestClock, env: Record<string, string>, places: string[]): Promise<Harness> {
  const fullEnv = { PUBLIC_URL, ALLOW_PRIVATE_URLS: 'true', ...env };
  const database = await createTestDatabase(dialect, fullEnv);
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(chunk.toString('utf8'));
      done();
    },
  });
  const sent: RenderedMessage[] = [];
  const transport = { send: async (message: RenderedMessage) => void sent.push(message), close: () => undefined, describe: () => 'memory' };
  const instances: Instance[] = [];
  const startInstance = async (): Promise<Instance> => {
    const ctx = await createContext(database.config, { now: clock.now, log: pino({ level: 'debug' }, sink) });
    const app = await buildApp(ctx);
    await app.ready();
    const jobs = startBackgroundJobs(ctx, { jobIntervalMs: 3_600_000, wakeOnBooking: false, transport, calendarSyncTickMs: 3_600_000 });
    const instance = { app, ctx, jobs };
    instances.push(instance);
    return instance;
  };
  const first = await startInstance();
  const acme = await createTestAccount(first.ctx, { timezone: 'UTC', places: places as never });
  const webhooks = await startReceiver((_req, res) => res.writeHead(204).end());
  const answers: string[] = [];
  const api: Harness['api'] = async (method, url, body, apiKey = acme.apiKey) => {
    const response = await call(first.app, apiKey, method, url, body);
    answers.push(response.body);
    return response;
  };
  const subscribed = await api('POST', '/api/v1/webhooks', { url: `${webhooks.url}/hook`, events: [...WEBHOOK_EVENT_TYPES] });
  if (subscribed.statusCode !== 201) throw new Error(`webhook subscription: ${subscribed.statusCode} ${subscribed.body}`);
  return {
    ...first,
    clock,
    database,
    acme,
    sent,
    logs,
    answers,
    webhooks,
    api,
    startInstance,
    async runJobs() {
      // Jobs enqueue jobs (an event's reactions, their e-mails): run until a round finds nothing new.
      for (let round = 0; round < 6; round += 1) await first.jobs.runOnce();
    },
    async connect(userUuid, provider, fake) {
      const startedAnswer = await api('POST', `/api/v1/users/${userUuid}/connections`, { provider });
      if (startedAnswer.statusCode !== 201 && startedAnswer.statusCode !== 200) throw new Error(`connect: ${startedAnswer.statusCode} ${startedAnswer.body}`);
      const started = startedAnswer.json() as Record<string, unknown>;
      const consent = await fetch(String(started.authorizeUrl), { redirect: 'manual' });
      const back = consent.headers.get('location');
      if (consent.status !== 302 || back === null || !back.startsWith(`${PUBLIC_URL}/oauth/${provider}/callback?`)) {
        throw new Error(`${fake.baseUrl} did not send the browser back: ${consent.status} ${back}`);
      }
      const callbackUrl = back.slice(PUBLIC_URL.length);
      const callback = await first.app.inject({ method: 'GET', url: callbackUrl });
      answers.push(callback.body);
      return { started, callback, callbackUrl };
    },
    webhookEvents(type) {
      return webhooks.requests.map((request) => JSON.parse(request.body) as Record<string, unknown>).filter((event) => event.type === type);
    },
    async close() {
      for (const instance of instances) {
        await instance.jobs.stop();
        await instance.app.close();
        await instance.ctx.close();
      }
      await webhooks.close();
      await database.drop();
    },
  };
}

/** The first free slots of a topic for a host, as POST /calculate-schedule offers them (UTC). */
export async function freeSlots(app: FastifyInstance, username: string, topicUuid: string, count: number): Promise<string[]> {
  const slots: string[] = [];
  for (let offset = 0; offset < 70 && slots.length < count; offset += 7) {
    const schedule = await call(app, null, 'POST', '/api/v1/calculate-schedule', { username, meetingTopic: topicUuid, timezone: 'UTC', offset });
    if (schedule.statusCode !== 200) throw new Error(`calculate-schedule: ${schedule.statusCode} ${schedule.body}`);
    for (const day of (schedule.json() as { days: { slots: { start: string }[] }[] }).days) slots.push(...day.slots.map((slot) => slot.start));
  }
  if (slots.length < count) throw new Error('no free slots');
  return slots.slice(0, count);
}

/** A meeting as the room suites read it back. */
export interface BookedMeeting {
  status: string;
  start: string;
  location: Record<string, unknown>;
}

/**
 * Booking and reading back as every room and calendar suite does: each booking is a new
 * participant (`guest{n}@example.com`, `Guest {n}`), at `place` in the next of `slots` unless
 * told otherwise. `participant` is the number of the last one.
 */
export interface RoomBookings {
  readonly participant: number;
  /** Books for the next participant (named `name`, when given); the meeting's uuid. */
  book(options?: { start?: string; place?: string; name?: string }): Promise<string>;
  /** Takes the next free slot (a reschedule's new start). */
  nextSlot(): string;
  meeting(uuid: string): Promise<BookedMeeting>;
  mailsTo(email: string): RenderedMessage[];
  /** `placesReady` of the host's schedule, as the booking page gets it. */
  placesReady(): Promise<Record<string, string[]>>;
  /** The host's first connection, as the API shows it. */
  connectionOf(): Promise<Record<string, unknown>>;
}

export function createRoomBookings(h: Harness, place: string, topicUuid: string, slots: readonly string[] = []): RoomBookings {
  let participant = 0;
  let next = 0;
  const nextSlot = () => {
    const slot = slots[next++];
    if (slot === undefined) throw new Error('createRoomBookings: out of slots');
    return slot;
  };
  return {
    get participant() {
      return participant;
    },
    async book(options = {}) {
      participant += 1;
      const answer = await h.api('POST', '/api/v1/schedule', {
        dates: [{ start: options.start ?? nextSlot(), username: h.acme.owner.username }],
        email: `guest${participant}@example.com`,
        lang: 'en',
        name: options.name ?? `Guest ${participant}`,
        place: options.place ?? place,
        meetingTopic: topicUuid,
        timezone: 'UTC',
      });
      if (answer.statusCode !== 201) throw new Error(`booking: ${answer.statusCode} ${answer.body}`);
      return (answer.json() as { meetings: { uuid: string }[] }).meetings[0]!.uuid;
    },
    nextSlot,
    async meeting(uuid) {
      return (await h.api('GET', `/api/v1/meetings/${uuid}`)).json() as BookedMeeting;
    },
    mailsTo(email) {
      return h.sent.filter((message) => message.to.email === email);
    },
    async placesReady() {
      const schedule = await h.api('POST', '/api/v1/calculate-schedule', { username: h.acme.owner.username, meetingTopic: topicUuid, timezone: 'UTC', offset: 0 }, null);
      return (schedule.json() as { placesReady: Record<string, string[]> }).placesReady;
    },
    async connectionOf() {
      return ((await h.api('GET', `/api/v1/users/${h.acme.owner.uuid}/connections`)).json() as { connections: Record<string, unknown>[] }).connections[0]!;
    },
  };
}
