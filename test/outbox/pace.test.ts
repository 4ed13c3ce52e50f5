import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startBackgroundJobs } from '../../src/background.js';
import { createOutboxPace } from '../../src/outbox/pace.js';
import { EMAIL_JOB_KIND, WEBHOOK_JOB_KIND } from '../../src/outbox/job-kinds.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp } from '../helpers.js';

/**
 * The outbox's pace holds new bookings back only while the confirmations are late: at once
 * while they keep up, until they catch up while they lag, and never longer than its bound.
 */
describe('the outbox pace', () => {
  const settle = async (promise: Promise<void>, withinMs: number) =>
    Promise.race([promise.then(() => 'admitted' as const), new Promise<'waiting'>((resolve) => setTimeout(() => resolve('waiting'), withinMs))]);

  it('adds up the stages a confirmation goes through, the latest kind of each, and counts a backlog as growing while nobody claims', () => {
    let now = 100_000;
    const pace = createOutboxPace({ stages: [['event'], ['email', 'webhook']], lagMs: 1_000, maxWaitMs: 5_000, now: () => now });
    expect(pace.lagMs(now)).toBe(0);
    pace.report('event', now, now - 300, false);
    pace.report('email', now, now - 700, false);
    pace.report('webhook', now, now - 200, true);
    // A kind nobody paces is ignored.
    pace.report('calendar-write', now, now - 60_000, true);
    expect(pace.lagMs(now)).toBe(1_000);
    now += 2_000;
    // The webhooks' claim took all it asked for: two seconds on, their oldest is two seconds later.
    expect(pace.lagMs(now)).toBe(300 + 2_200);
    pace.report('webhook', now, null, false);
    expect(pace.lagMs(now)).toBe(1_000);
  });

  it('admits at once while the outbox keeps pace, holds bookings while it lags, and lets them go when it catches up', async () => {
    let now = 100_000;
    const pace = createOutboxPace({ stages: [['event'], ['email']], lagMs: 1_000, maxWaitMs: 60_000, now: () => now });
    pace.report('email', now, now - 900, false);
    expect(await settle(pace.admit(), 50)).toBe('admitted');

    pace.report('email', now, now - 1_500, true);
    const held = [pace.admit(), pace.admit()];
    expect(await settle(held[0]!, 50)).toBe('waiting');
    now += 100;
    // Still late: they wait on.
    pace.report('email', now, now - 1_200, true);
    expect(await settle(held[1]!, 50)).toBe('waiting');
    pace.report('email', now, now - 100, false);
    expect(
      await settle(
        Promise.all(held).then(() => undefined),
        50,
      ),
    ).toBe('admitted');
  });

  it('holds a booking no longer than its bound, and never when switched off', async () => {
    const now = 100_000;
    const bounded = createOutboxPace({ stages: [['email']], lagMs: 1_000, maxWaitMs: 100, now: () => now });
    bounded.report('email', now, now - 10_000, true);
    const held = bounded.admit();
    expect(await settle(held, 20)).toBe('waiting');
    expect(await settle(held, 500)).toBe('admitted');

    const off = createOutboxPace({ stages: [['email']], lagMs: 0, maxWaitMs: 60_000, now: () => now });
    off.report('email', now, now - 10_000, true);
    expect(await settle(off.admit(), 50)).toBe('admitted');
  });
});

describe('the outbox pace, told of bookings as they commit', () => {
  it('counts the first stage late from the first booking no claim has seen, until a claim that began after it reports', () => {
    let now = 100_000;
    const pace = createOutboxPace({ stages: [['event'], ['email']], lagMs: 300, maxWaitMs: 5_000, now: () => now });
    // Without a worker listening (a process that runs no outbox), nothing would ever clear the mark: none is set.
    pace.queued(now);
    expect(pace.lagMs(now + 10_000)).toBe(0);
    const unsubscribe = pace.onQueued(() => undefined);
    pace.queued(now);
    now += 200;
    pace.queued(now); // a later booking does not move the first one's mark
    now += 200;
    expect(pace.lagMs(now)).toBe(400);
    // A claim that began before the booking committed cannot have seen it.
    pace.report('event', 99_000, null, false);
    expect(pace.lagMs(now)).toBe(400);
    pace.report('event', now, null, false);
    expect(pace.lagMs(now)).toBe(0);
    pace.queued(now);
    // The worker gone (stopped), its mark goes with it.
    unsubscribe();
    expect(pace.lagMs(now + 10_000)).toBe(0);
  });

  it('holds the next booking once the unseen one is later than the bound, before any claim reported', async () => {
    let now = 100_000;
    const pace = createOutboxPace({ stages: [['event'], ['email']], lagMs: 300, maxWaitMs: 60_000, now: () => now });
    pace.onQueued(() => undefined);
    pace.queued(now);
    now += 301;
    const held = pace.admit();
    const outcome = await Promise.race([held.then(() => 'admitted'), new Promise((resolve) => setTimeout(() => resolve('waiting'), 50))]);
    expect(outcome).toBe('waiting');
    pace.report('event', now, null, false);
    await held;
  });

  it('wakes its listeners on every booking, pacing on or off, until they unsubscribe', () => {
    const pace = createOutboxPace({ stages: [['event']], lagMs: 0, maxWaitMs: 5_000, now: () => 100_000 });
    let woken = 0;
    const unsubscribe = pace.onQueued(() => (woken += 1));
    pace.queued(100_000);
    pace.queued(100_000);
    expect(woken).toBe(2);
    // Switched off, the pace never counts a booking as late.
    expect(pace.lagMs(200_000)).toBe(0);
    unsubscribe();
    pace.queued(100_000);
    expect(woken).toBe(2);
  });

  for (const dialect of DIALECTS) {
    it(`sends a booking's confirmation at once, without waiting for the worker's tick [${dialect}]`, async () => {
      const t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'));
      // An hour between ticks: only the booking's own wake-up can send its e-mail within the test.
      const jobs = startBackgroundJobs(t.ctx, { jobIntervalMs: 3_600_000 });
      try {
        const acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['offline'] });
        const topic = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Intro', durationMinutes: 30, places: ['offline'] })).json() as { uuid: string };
        const calculated = await call(t.app, null, 'POST', '/api/v1/calculate-schedule', {
          username: acme.owner.username,
          meetingTopic: topic.uuid,
          timezone: 'Europe/Warsaw',
          offset: 0,
        });
        const slot = (calculated.json().days as { slots: { start: string; username: string }[] }[]).flatMap((day) => day.slots)[0]!;
        const email = 'at-once@example.com';
        const booked = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
          dates: [slot],
          email,
          lang: 'en',
          name: 'Ada Quick',
          place: 'offline',
          meetingTopic: topic.uuid,
          timezone: 'Europe/Warsaw',
        });
        expect(booked.statusCode).toBe(201);
        const dir = t.ctx.config.mail.outboxDir;
        const sent = () =>
          fs.existsSync(dir) &&
          fs
            .readdirSync(dir)
            .filter((file) => file.endsWith('.eml'))
            .some((file) => fs.readFileSync(`${dir}/${file}`, 'utf8').includes(`<${email}>`));
        const deadline = Date.now() + 10_000;
        while (!sent() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
        expect(sent()).toBe(true);
      } finally {
        await jobs.stop();
        await t.close();
      }
    });
  }
});

/** The service's own pace: late e-mails hold bookings back, a subscriber's slow webhooks never do. */
describe('the service context paces on events and e-mails only', () => {
  it('a minute-late webhook backlog admits a booking at once; a minute-late e-mail backlog holds it', async () => {
    const t = await createTestApp('sqlite');
    try {
      const now = t.ctx.now();
      t.ctx.outboxPace.report(WEBHOOK_JOB_KIND, now, now - 60_000, true);
      expect(t.ctx.outboxPace.lagMs(now)).toBe(0);
      t.ctx.outboxPace.report(EMAIL_JOB_KIND, now, now - 60_000, false);
      expect(t.ctx.outboxPace.lagMs(now)).toBe(60_000);
    } finally {
      await t.close();
    }
  });
});

/**
 * The default serves participants first (issue 44): a burst's e-mails a few seconds late never
 * hold a booking back; a backlog half a minute behind does, until the outbox catches up.
 */
describe('the default pace', () => {
  const settle = async (promise: Promise<unknown>, withinMs: number) =>
    Promise.race([promise.then(() => 'answered' as const), new Promise<'waiting'>((resolve) => setTimeout(() => resolve('waiting'), withinMs))]);

  for (const dialect of DIALECTS) {
    it(`answers a booking at once while e-mails are 5 s late, and holds it while they are a minute late [${dialect}]`, async () => {
      // Only the wait's bound is raised (the lag is the default): a held booking stays held for the test's length.
      const t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'), { OUTBOX_PACE_MAX_WAIT_MS: '60000' });
      try {
        const acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['offline'] });
        const topic = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Intro', durationMinutes: 30, places: ['offline'] })).json() as { uuid: string };
        const calculated = await call(t.app, null, 'POST', '/api/v1/calculate-schedule', {
          username: acme.owner.username,
          meetingTopic: topic.uuid,
          timezone: 'Europe/Warsaw',
          offset: 0,
        });
        const [first, second] = (calculated.json().days as { slots: { start: string; username: string }[] }[]).flatMap((day) => day.slots);
        const book = (slot: { start: string; username: string } | undefined, email: string) =>
          call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
            dates: [slot],
            email,
            lang: 'en',
            name: 'Ada',
            place: 'offline',
            meetingTopic: topic.uuid,
            timezone: 'Europe/Warsaw',
          });

        const now = t.ctx.now();
        // A burst's backlog: the e-mails being claimed were due 5 s ago.
        t.ctx.outboxPace.report(EMAIL_JOB_KIND, now, now - 5_000, false);
        const late = book(first, 'late@example.com');
        expect(await settle(late, 2_000)).toBe('answered');
        expect((await late).statusCode).toBe(201);

        // A backlog past the bound: the booking waits for the outbox, and answers once it has caught up.
        t.ctx.outboxPace.report(EMAIL_JOB_KIND, now, now - 60_000, false);
        const held = book(second, 'held@example.com');
        expect(await settle(held, 500)).toBe('waiting');
        t.ctx.outboxPace.report(EMAIL_JOB_KIND, now, now, false);
        expect((await held).statusCode).toBe(201);
      } finally {
        await t.close();
      }
    });
  }
});
