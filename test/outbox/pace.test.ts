import { describe, expect, it } from 'vitest';
import { EMAIL_JOB_KIND } from '../../src/mail/booking-message.js';
import { createOutboxPace } from '../../src/outbox/pace.js';
import { WEBHOOK_JOB_KIND } from '../../src/scheduling/webhooks-delivery.js';
import { createTestApp } from '../helpers.js';

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
