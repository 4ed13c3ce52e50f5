import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackgroundJobs } from '../../src/background.js';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, type TestApp } from '../helpers.js';

type Slot = { start: string; username: string };

for (const dialect of DIALECTS) {
  describe(`POST /schedule and meetings [${dialect}]`, () => {
    let t: TestApp;
    let acme: CreatedAccount;
    let other: CreatedAccount;
    let topic: { uuid: string };

    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'));
      acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['offline', 'phone-call', 'zoom'] });
      other = await createTestAccount(t.ctx);
      topic = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Intro', durationMinutes: 30, places: ['zoom', 'offline'] })).json();
    });
    afterAll(async () => t.close());

    const slotsOf = async (topicUuid: string, username = acme.owner.username, extra: Record<string, unknown> = {}) => {
      const body = (await call(t.app, null, 'POST', '/api/v1/calculate-schedule', { username, meetingTopic: topicUuid, timezone: 'Europe/Warsaw', offset: 0, ...extra })).json();
      return (body.days as { slots: Slot[] }[]).flatMap((day) => day.slots);
    };
    const booking = (dates: Slot[], extra: Record<string, unknown> = {}) => ({
      dates,
      email: 'jan@example.com',
      lang: 'pl',
      name: 'Jan Kowalski',
      place: 'zoom',
      meetingTopic: topic.uuid,
      timezone: 'Europe/Warsaw',
      ...extra,
    });
    const schedule = (body: unknown, key = acme.apiKey, headers: Record<string, string> = {}) => call(t.app, key, 'POST', '/api/v1/schedule', body, headers);
    const countMeetings = async () =>
      Number(
        (
          await t.ctx.db
            .selectFrom('meetings')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    it('books an offered slot: 201 with the contract record, and the slot is no longer offered', async () => {
      const [slot] = await slotsOf(topic.uuid);
      const response = await schedule(booking([slot!], { note: 'Hello', metadata: { crm: 42 }, invoiceName: 'ACME sp. z o.o.', invoiceTaxNumber: 'PL123' }));
      expect(response.statusCode).toBe(201);
      const body = response.json();
      expect(body.payment).toBeNull();
      expect(body.meetings).toHaveLength(1);
      expect(body.meetings[0]).toMatchObject({
        meetingTopic: topic.uuid,
        team: null,
        username: acme.owner.username,
        start: slot!.start,
        end: new Date(Date.parse(slot!.start) + 30 * 60_000).toISOString(),
        status: 'confirmed',
        place: 'zoom',
        participant: { name: 'Jan Kowalski', email: 'jan@example.com', phone: null, timezone: 'Europe/Warsaw', lang: 'pl' },
        note: 'Hello',
        priceVariant: null,
        form: {},
        metadata: { crm: 42 },
        invoice: { invoiceName: 'ACME sp. z o.o.', invoiceAddress: null, invoicePostalCode: null, invoiceCity: null, invoiceTaxNumber: 'PL123' },
      });
      expect((await slotsOf(topic.uuid)).map((s) => s.start)).not.toContain(slot!.start);
      const fetched = await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${body.meetings[0].uuid}`);
      expect(fetched.json()).toEqual(body.meetings[0]);
      // Booking the same slot again is refused.
      // A team sent for an individual topic is ignored: the meeting is still not a team meeting.
      const next = (await slotsOf(topic.uuid))[0]!;
      const withTeam = await schedule(booking([next], { team: acme.team.uuid }));
      expect(withTeam.statusCode).toBe(201);
      expect(withTeam.json().meetings[0].team).toBeNull();
      const again = expectProblem(await schedule(booking([slot!])), 409, 'SLOT_UNAVAILABLE');
      expect(again.errors).toEqual([{ path: '/dates/0', message: 'is not an available slot' }]);
    });

    it('rejects each invalid field with a path and stores nothing', async () => {
      const [slot] = await slotsOf(topic.uuid);
      const before = await countMeetings();
      const cases: [Record<string, unknown>, string][] = [
        [{ lang: 'it' }, '/lang'],
        [{ place: 'carrier-pigeon' }, '/place'],
        [{ place: 'phone-call' }, '/place'],
        [{ gateway: 'bitcoin' }, '/gateway'],
        [{ email: 'not-an-email' }, '/email'],
        [{ timezone: 'Nowhere/Special' }, '/timezone'],
        [{ dates: [] }, '/dates'],
        [{ dates: [{ start: '2027-01-04 09:00', username: acme.owner.username }] }, '/dates/0/start'],
        [{ dates: [{ start: '2027-01-04T10:00:00+02:00', username: acme.owner.username }] }, '/dates/0/start'],
        [{ dates: [{ start: slot!.start }] }, '/dates/0/username'],
        [{ nickname: 'x' }, '/nickname'],
        [{ name: undefined }, '/name'],
      ];
      for (const [patch, pointer] of cases) {
        const problem = expectProblem(await schedule(booking([slot!], patch)), 400, 'VALIDATION_FAILED');
        expect(
          problem.errors!.map((e) => e.path),
          JSON.stringify(patch),
        ).toContain(pointer);
      }
      // 'place' enabled for the account but not offered by the topic has its own message.
      const notOffered = expectProblem(await schedule(booking([slot!], { place: 'phone-call' })), 400, 'VALIDATION_FAILED');
      expect(notOffered.errors![0]!.message).toContain('not offered by the meeting topic');
      expectProblem(await schedule(booking([slot!], { priceVariant: '00000000-0000-4000-8000-000000000000' })), 404, 'NOT_FOUND');
      expectProblem(await schedule(booking([{ start: slot!.start, username: 'ghost' }])), 404, 'NOT_FOUND');
      expectProblem(await schedule(booking([slot!], { discount: 'FREE100' })), 422, 'DISCOUNT_INVALID');
      expect(await countMeetings()).toBe(before);
    });

    it('enforces phone, gateway, team and form rules of the topic', async () => {
      const strict = (
        await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', {
          name: 'Paid team consult',
          durationMinutes: 60,
          team: acme.team.uuid,
          places: ['phone-call'],
          phoneRequired: true,
          price: { amount: 15000, currency: 'PLN' },
          form: [{ key: 'company', label: 'Company', required: true }],
        })
      ).json();
      const [slot] = await slotsOf(strict.uuid, acme.owner.username, { team: acme.team.uuid });
      const problem = expectProblem(await schedule(booking([slot!], { meetingTopic: strict.uuid, place: 'phone-call', team: acme.team.uuid })), 400, 'VALIDATION_FAILED');
      expect(problem.errors!.map((e) => e.path).sort()).toEqual(['/form/company', '/gateway', '/phone']);
      expectProblem(
        await schedule(booking([slot!], { meetingTopic: strict.uuid, place: 'phone-call', phone: '+48 600 000 000', gateway: 'p24', form: { company: 'ACME' } })),
        400,
        'VALIDATION_FAILED',
      );

      // Only a gateway the account enabled and configured takes bookings.
      expect((await call(t.app, acme.apiKey, 'PATCH', '/api/v1/account', { gateways: { p24: { merchantId: 1, posId: 1, apiKey: 'k', crc: 'c' } } })).statusCode).toBe(200);
      const paid = await schedule(
        booking([slot!], { meetingTopic: strict.uuid, place: 'phone-call', team: acme.team.uuid, phone: '+48 600 000 000', gateway: 'p24', form: { company: 'ACME' } }),
      );
      expect(paid.statusCode).toBe(201);
      const body = paid.json();
      expect(body.meetings[0]).toMatchObject({ status: 'pending_payment', team: acme.team.uuid, form: { company: 'ACME' } });
      expect(body.payment).toMatchObject({ gateway: 'p24', status: 'pending', amount: 15000, currency: 'PLN' });
      expect(Date.parse(body.payment.expiresAt)).toBeGreaterThan(t.clock.now());

      // The slot is held while the payment is pending, and free again once the hold expired.
      expect((await slotsOf(strict.uuid, acme.owner.username, { team: acme.team.uuid })).map((s) => s.start)).not.toContain(slot!.start);
      t.clock.set(Date.parse(body.payment.expiresAt) + 1000);
      const after = await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${body.meetings[0].uuid}`);
      expect(after.json().status).toBe('expired');
      expect((await slotsOf(strict.uuid, acme.owner.username, { team: acme.team.uuid })).map((s) => s.start)).toContain(slot!.start);
    });

    it('books all dates or none, and refuses dates overlapping each other', async () => {
      const slots = await slotsOf(topic.uuid);
      const [a, b, c] = [slots[4]!, slots[6]!, slots[8]!];
      // c is taken first, so the request [a, b, c] fails as a whole, naming /dates/2.
      expect((await schedule(booking([c]))).statusCode).toBe(201);
      const before = await countMeetings();
      const failed = expectProblem(await schedule(booking([a, b, c])), 409, 'SLOT_UNAVAILABLE');
      expect(failed.errors).toEqual([{ path: '/dates/2', message: 'is not an available slot' }]);
      expect(await countMeetings()).toBe(before);
      expect((await slotsOf(topic.uuid)).map((s) => s.start)).toEqual(expect.arrayContaining([a.start, b.start]));

      const twice = expectProblem(await schedule(booking([a, a])), 400, 'VALIDATION_FAILED');
      expect(twice.errors).toEqual([{ path: '/dates/1', message: 'overlaps /dates/0 for the same host' }]);

      const both = await schedule(booking([a, b]));
      expect(both.statusCode).toBe(201);
      expect(both.json().meetings.map((m: { start: string }) => m.start)).toEqual([a.start, b.start]);
    });

    it('frees the slot on cancel, and the slot can be booked again', async () => {
      const [slot] = await slotsOf(topic.uuid);
      const meeting = (await schedule(booking([slot!]))).json().meetings[0];
      expectProblem(await call(t.app, other.apiKey, 'POST', `/api/v1/meetings/${meeting.uuid}/cancel`, { reason: 'x' }), 404, 'NOT_FOUND');
      const cancelled = await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${meeting.uuid}/cancel`, { reason: 'Sick' });
      expect(cancelled.statusCode).toBe(200);
      expect(cancelled.json()).toMatchObject({ uuid: meeting.uuid, status: 'cancelled', cancelReason: 'Sick' });
      expect((await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${meeting.uuid}/cancel`)).json().status).toBe('cancelled');
      expect((await slotsOf(topic.uuid)).map((s) => s.start)).toContain(slot!.start);
      expect((await schedule(booking([slot!]))).statusCode).toBe(201);
    });

    it('replays an idempotent request and refuses the key with another body', async () => {
      const [slot, next] = (await slotsOf(topic.uuid)).slice(10);
      const headers = { 'idempotency-key': 'order-1234' };
      const first = await schedule(booking([slot!]), acme.apiKey, headers);
      expect(first.statusCode).toBe(201);
      const before = await countMeetings();
      const second = await schedule(booking([slot!]), acme.apiKey, headers);
      expect(second.statusCode).toBe(201);
      expect(second.json()).toEqual(first.json());
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect(await countMeetings()).toBe(before);
      expectProblem(await schedule(booking([next!]), acme.apiKey, headers), 409, 'IDEMPOTENCY_KEY_REUSED');
      // Keys are per account: another account's key of the same name is unrelated.
      expectProblem(await schedule(booking([slot!]), other.apiKey, headers), 404, 'NOT_FOUND');
    });

    it('creates one meeting for concurrent retries with one idempotency key', async () => {
      const [slot] = (await slotsOf(topic.uuid)).slice(-1);
      const before = await countMeetings();
      const responses = await Promise.all(Array.from({ length: 10 }, () => schedule(booking([slot!]), acme.apiKey, { 'idempotency-key': 'retry-storm' })));
      expect(responses.map((r) => r.statusCode)).toEqual(Array(10).fill(201));
      expect(new Set(responses.map((r) => r.json().meetings[0].uuid)).size).toBe(1);
      expect(await countMeetings()).toBe(before + 1);
    });

    it('never double-books under 50 concurrent requests for one slot', async () => {
      const slots = await slotsOf(topic.uuid);
      const slot = slots[Math.floor(slots.length / 2)]!;
      const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => schedule(booking([slot], { email: `racer${i}@example.com` }))));
      const statuses = responses.map((r) => r.statusCode);
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(49);
    });

    it('never double-books overlapping slots on a finer grid under concurrency', async () => {
      const fine = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Long', durationMinutes: 60, slotIntervalMinutes: 15, places: ['zoom'] })).json();
      const slots = (await slotsOf(fine.uuid)).filter((s) => s.start.startsWith('2027-01-07'));
      const window = slots.slice(0, 8); // 8 starts 15 minutes apart: any two within 60 minutes overlap.
      const responses = await Promise.all(
        Array.from({ length: 56 }, (_, i) => schedule(booking([window[i % window.length]!], { meetingTopic: fine.uuid, email: `p${i}@example.com` }))),
      );
      const booked = responses
        .filter((r) => r.statusCode === 201)
        .map((r) => Date.parse(r.json().meetings[0].start))
        .sort((a, b) => a - b);
      expect(responses.every((r) => r.statusCode === 201 || r.statusCode === 409)).toBe(true);
      expect(booked.length).toBeGreaterThanOrEqual(1);
      for (let i = 1; i < booked.length; i += 1) expect(booked[i]! - booked[i - 1]!).toBeGreaterThanOrEqual(60 * 60_000);
      const stored = await t.ctx.db
        .selectFrom('meetings')
        .select(['starts_at', 'ends_at'])
        .where('topic_id', '=', fine.uuid)
        .where('status', '=', 'confirmed')
        .orderBy('starts_at')
        .execute();
      for (let i = 1; i < stored.length; i += 1) expect(stored[i]!.starts_at).toBeGreaterThanOrEqual(stored[i - 1]!.ends_at);
    });

    it('lists meetings by start with filters and cursor pagination, per account', async () => {
      // An account of its own, so the list is exactly what this test booked.
      const own = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['zoom'] });
      const ownTopic = (await call(t.app, own.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Intro', durationMinutes: 30, places: ['zoom'] })).json();
      const free = await slotsOf(ownTopic.uuid, own.owner.username);
      const booked: string[] = [];
      // Booked out of order: the list still comes sorted by start.
      for (const slot of [free[6]!, free[0]!, free[3]!, free[9]!, free[1]!, free[7]!, free[4]!]) {
        booked.push((await schedule(booking([slot], { meetingTopic: ownTopic.uuid }), own.apiKey)).json().meetings[0].start);
      }
      const cancelled = (await schedule(booking([free[12]!], { meetingTopic: ownTopic.uuid }), own.apiKey)).json().meetings[0];
      await call(t.app, own.apiKey, 'POST', `/api/v1/meetings/${cancelled.uuid}/cancel`);
      const all: { uuid: string; start: string }[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: string = `/api/v1/meetings?limit=3&status=confirmed${cursor ? `&cursor=${cursor}` : ''}`;
        const page = (await call(t.app, own.apiKey, 'GET', query)).json();
        expect(page.meetings.length).toBeLessThanOrEqual(3);
        all.push(...page.meetings);
        cursor = page.nextCursor;
        pages += 1;
      } while (cursor);
      expect(pages).toBe(3);
      expect(all.map((m) => m.start)).toEqual([...booked].sort());
      expect(new Set(all.map((m) => m.uuid)).size).toBe(7);
      const withCancelled = (await call(t.app, own.apiKey, 'GET', '/api/v1/meetings?status=cancelled')).json().meetings;
      expect(withCancelled.map((m: { uuid: string }) => m.uuid)).toEqual([cancelled.uuid]);
      expect((await call(t.app, other.apiKey, 'GET', '/api/v1/meetings')).json()).toEqual({ meetings: [], nextCursor: null });
      expectProblem(await call(t.app, own.apiKey, 'GET', '/api/v1/meetings?cursor=garbage'), 400, 'VALIDATION_FAILED');
      expectProblem(await call(t.app, other.apiKey, 'GET', `/api/v1/meetings/${all[0]!.uuid}`), 404, 'NOT_FOUND');
    });

    it('queues confirmations for participant and host and writes them as .eml files without SMTP', async () => {
      const own = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['zoom'] });
      const ownTopic = (await call(t.app, own.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Intro', durationMinutes: 30, places: ['zoom'] })).json();
      const [first, second] = await slotsOf(ownTopic.uuid, own.owner.username);
      const email = 'mail-test-participant@example.com';
      await schedule(booking([first!], { meetingTopic: ownTopic.uuid, email }), own.apiKey);
      const toCancel = (await schedule(booking([second!], { meetingTopic: ownTopic.uuid, email }), own.apiKey)).json().meetings[0];
      await call(t.app, own.apiKey, 'POST', `/api/v1/meetings/${toCancel.uuid}/cancel`);
      const jobs = startBackgroundJobs(t.ctx, { jobIntervalMs: 3_600_000 });
      try {
        await jobs.runOnce();
        const dir = t.ctx.config.mail.outboxDir;
        const contents = fs
          .readdirSync(dir)
          .filter((f) => f.endsWith('.eml'))
          .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'));
        const toParticipant = contents.filter((c) => c.includes(`To: Jan Kowalski <${email}>`));
        const toHost = contents.filter((c) => c.includes(`<${own.owner.email}>`) && /^To: /m.test(c) && c.split(/^To: /m)[1]!.includes(own.owner.email));
        // Two invitations and one cancellation, to each side.
        expect(toParticipant.filter((c) => c.includes('METHOD:REQUEST'))).toHaveLength(2);
        expect(toParticipant.filter((c) => c.includes('METHOD:CANCEL'))).toHaveLength(1);
        expect(toHost.filter((c) => c.includes('METHOD:REQUEST'))).toHaveLength(2);
        expect(toHost.filter((c) => c.includes('METHOD:CANCEL'))).toHaveLength(1);
        expect(toParticipant[0]).toMatch(/Subject: =\?UTF-8\?|Subject: Potwierdzenie/);
        const pending = await t.ctx.db.selectFrom('outbox').select('id').where('status', '!=', 'done').execute();
        expect(pending).toEqual([]);
        // Finished jobs are kept 30 days, then housekeeping forgets them.
        const kept = (await t.ctx.db.selectFrom('outbox').select('id').execute()).length;
        expect(kept).toBeGreaterThan(0);
        t.clock.advance(29 * 86_400_000);
        await jobs.runOnce();
        expect((await t.ctx.db.selectFrom('outbox').select('id').execute()).length).toBe(kept);
        t.clock.advance(2 * 86_400_000);
        await jobs.runOnce();
        expect(await t.ctx.db.selectFrom('outbox').select('id').execute()).toEqual([]);
      } finally {
        t.clock.set('2027-01-04T06:00:00.000Z');
        await jobs.stop();
      }
    });

    it('forgets an idempotency key after 24 hours', async () => {
      const [slot, other] = (await slotsOf(topic.uuid)).slice(2);
      const headers = { 'idempotency-key': 'daily-order' };
      expect((await schedule(booking([slot!]), acme.apiKey, headers)).statusCode).toBe(201);
      t.clock.advance(23 * 3_600_000);
      expectProblem(await schedule(booking([other!]), acme.apiKey, headers), 409, 'IDEMPOTENCY_KEY_REUSED');
      t.clock.advance(2 * 3_600_000);
      const later = (await slotsOf(topic.uuid))[0]!;
      const fresh = await schedule(booking([later]), acme.apiKey, headers);
      expect(fresh.statusCode).toBe(201);
      expect(fresh.headers['idempotent-replayed']).toBeUndefined();
      expect(fresh.json().meetings[0].start).toBe(later.start);
    });
  });
}
