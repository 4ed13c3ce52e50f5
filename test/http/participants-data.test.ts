import { sql } from 'kysely';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackgroundJobs, type BackgroundJobs } from '../../src/background.js';
import { runCli } from '../../src/cli/main.js';
import type { AppContext } from '../../src/context.js';
import { claimMaintenanceLease, releaseMaintenanceLease } from '../../src/db/repositories/maintenance-leases.js';
import { applyRetention } from '../../src/scheduling/participants/retention.js';
import { createApiKeyForUser } from '../../src/scheduling/account/api-keys.js';
import { startReceiver, type Receiver } from '../net/receivers.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, type TestApp } from '../helpers.js';

const FORM = [{ key: 'company', label: 'Company', required: true }];

function cliEnv(ctx: AppContext): Record<string, string> {
  const { config } = ctx;
  return config.database.dialect === 'postgres'
    ? { DATABASE_URL: config.database.url, DATA_DIR: config.dataDir, LOG_LEVEL: 'silent' }
    : { DATABASE_URL: `sqlite:${config.database.filename}`, DATA_DIR: config.dataDir, LOG_LEVEL: 'silent' };
}

/** Export, erasure and retention of a participant's data as the business and the participant see them. */
for (const dialect of DIALECTS) {
  describe(`participants' data [${dialect}]`, () => {
    let t: TestApp;
    let jobs: BackgroundJobs;
    let receiver: Receiver;
    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'), { ALLOW_PRIVATE_URLS: 'true' });
      receiver = await startReceiver((_req, res) => res.writeHead(204).end());
      jobs = startBackgroundJobs(t.ctx, { jobIntervalMs: 3_600_000, wakeOnBooking: false });
    });
    afterAll(async () => {
      await jobs.stop();
      await receiver.close();
      await t.close();
    });

    let counter = 0;
    const setUp = async () => {
      t.clock.set('2027-01-04T06:00:00.000Z');
      const acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['offline', 'phone-call'] });
      await call(t.app, acme.apiKey, 'PATCH', '/api/v1/account', { gateways: { p24: { merchantId: 1, posId: 1, apiKey: 'k', crc: 'c' } } });
      const topic = (
        await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Call', durationMinutes: 30, places: ['phone-call', 'offline'], form: FORM, allowGuests: true })
      ).json();
      const paid = (
        await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Paid', durationMinutes: 30, places: ['offline'], price: { amount: 5_000, currency: 'PLN' } })
      ).json();
      counter += 1;
      // Values of this test's participant alone, so the whole database can be searched for them.
      const email = `ala.${counter}@example.com`;
      const NAME = `Ala Nowakowska ${counter}x`;
      const PHONE = `+4860010${String(counter).padStart(4, '0')}`;
      const CRM = `lead-${counter}x`;
      // A guest the participant brings: their address is the participant's data too.
      const GUEST = `guest.of.ala.${counter}@example.com`;
      const book = async (start: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) => {
        const response = await call(
          t.app,
          acme.apiKey,
          'POST',
          '/api/v1/schedule',
          {
            dates: [{ start, username: acme.owner.username }],
            email,
            lang: 'en',
            name: NAME,
            place: 'phone-call',
            phone: PHONE,
            note: 'Please call after nine',
            form: { company: 'Nowak Sp. z o.o.' },
            metadata: { crmId: CRM },
            guests: [GUEST],
            meetingTopic: topic.uuid,
            timezone: 'Europe/Warsaw',
            ...extra,
          },
          headers,
        );
        expect(response.statusCode).toBe(201);
        return response.json();
      };
      return { acme, topic, paid, email, book, NAME, PHONE, CRM, GUEST };
    };

    /** The messages written to one address so far (no SMTP in tests: one .eml file each). */
    const messagesTo = (email: string) => {
      const dir = t.ctx.config.mail.outboxDir;
      if (!fs.existsSync(dir)) return [];
      return fs
        .readdirSync(dir)
        .map((file) => fs.readFileSync(path.join(dir, file), 'utf8'))
        .filter((text) => new RegExp(`^To: .*<${email.replaceAll('.', '\\.')}>`, 'm').test(text));
    };
    /** Every row of every table that could copy a participant, as one string to search. */
    /** The whole database as text: every table the schema has (read from the database itself), but the migrations' own bookkeeping. */
    const dump = async () => {
      const tables = (await t.ctx.db.introspection.getTables()).map((table) => table.name).filter((name) => !name.startsWith('kysely_'));
      expect(tables).toEqual(expect.arrayContaining(['meetings', 'events', 'outbox', 'webhook_deliveries', 'audit_events', 'payments']));
      const parts: string[] = [];
      for (const table of tables) parts.push(JSON.stringify(await sql`select * from ${sql.table(table)}`.execute(t.ctx.db).then((result) => result.rows)));
      return parts.join('\n').toLowerCase();
    };

    it('exports every meeting of the participant, whatever the case of the e-mail, with answers, metadata, payment and messages sent', async () => {
      const { acme, paid, email, book, NAME, PHONE, CRM, GUEST } = await setUp();
      const first = (await book('2027-01-05T08:00:00.000Z', { email: email.toUpperCase() })).meetings[0];
      const pending = await book('2027-01-06T08:00:00.000Z', { meetingTopic: paid.uuid, place: 'offline', gateway: 'p24', form: undefined, guests: undefined });
      const other = (await book('2027-01-05T09:00:00.000Z', { email: 'someone.else@example.com' })).meetings[0];
      await jobs.runOnce();

      const response = await call(t.app, acme.apiKey, 'POST', '/api/v1/participants/export', { email: `  ${email.replace('ala', 'ALA')}` });
      expect(response.statusCode).toBe(200);
      const exported = response.json();
      expect(exported.exportedAt).toBe('2027-01-04T06:00:00.000Z');
      expect(exported.meetings.map((meeting: { uuid: string }) => meeting.uuid)).toEqual([first.uuid, pending.meetings[0].uuid]);
      expect(exported.meetings.map((meeting: { uuid: string }) => meeting.uuid)).not.toContain(other.uuid);
      const [one, two] = exported.meetings;
      expect(one).toMatchObject({
        status: 'confirmed',
        participant: { name: NAME, email: email.toUpperCase(), phone: PHONE },
        note: 'Please call after nine',
        form: { company: 'Nowak Sp. z o.o.' },
        metadata: { crmId: CRM },
        guests: [GUEST],
        payments: [],
      });
      // The confirmation went out by e-mail; the pending payment's e-mail carries its pay link.
      expect(one.messages).toEqual([{ kind: 'confirmed', channel: 'email', sentAt: '2027-01-04T06:00:00.000Z' }]);
      expect(two.status).toBe('pending_payment');
      expect(two.payments).toEqual([
        expect.objectContaining({
          uuid: pending.payment.uuid,
          amount: 5_000,
          currency: 'PLN',
          status: 'pending',
          gateway: 'p24',
          createdAt: '2027-01-04T06:00:00.000Z',
          paidAt: null,
        }),
      ]);
      expect(two.messages).toEqual([{ kind: 'payment-pending', channel: 'email', sentAt: '2027-01-04T06:00:00.000Z' }]);

      // Nobody with that address: an empty export, not a 404 (which would say nothing more).
      const none = await call(t.app, acme.apiKey, 'POST', '/api/v1/participants/export', { email: 'nobody@example.com' });
      expect(none.json()).toMatchObject({ email: 'nobody@example.com', meetings: [] });
    });

    it('erases every meeting of the participant: a coming one cancelled first (slot freed, host told, participant not), no copy left, idempotent', async () => {
      const { acme, topic, email, book, NAME, PHONE, CRM, GUEST } = await setUp();
      const hook = await call(t.app, acme.apiKey, 'POST', '/api/v1/webhooks', {
        url: `${receiver.url}/hooks-${counter}`,
        events: ['meeting.cancelled', 'meeting.scheduled', 'participant.erased'],
      });
      expect(hook.statusCode, hook.body).toBe(201);
      const past = (await book('2027-01-04T08:00:00.000Z')).meetings[0];
      const coming = (await book('2027-01-05T08:00:00.000Z', {}, { 'idempotency-key': `crm-${counter}` })).meetings[0];
      await jobs.runOnce();
      expect(messagesTo(email).filter((text) => text.includes('METHOD:REQUEST'))).toHaveLength(2);
      expect(messagesTo(GUEST).filter((text) => text.includes('METHOD:REQUEST'))).toHaveLength(2);
      const before = await dump();
      expect(before).toContain(GUEST);
      expect(before).toContain(email);
      expect(before).toContain(NAME.toLowerCase());

      // The first meeting is over; the second still to come.
      t.clock.set('2027-01-04T10:00:00.000Z');
      const receivedBefore = receiver.requests.length;
      const erased = await call(t.app, acme.apiKey, 'POST', '/api/v1/participants/erase', { email: email.toUpperCase() });
      expect(erased.statusCode).toBe(200);
      expect(erased.json()).toEqual({ erased: 2 });

      const read = async (uuid: string) => (await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${uuid}`)).json();
      const blank = { participant: { name: '(erased)', email: null, phone: null }, note: null, form: {}, metadata: {}, invoice: null, guests: [] };
      expect(await read(past.uuid)).toMatchObject({
        ...blank,
        status: 'confirmed',
        start: past.start,
        end: past.end,
        username: acme.owner.username,
        meetingTopic: topic.uuid,
        place: 'phone-call',
      });
      expect((await read(past.uuid)).location.phone).toBeNull();
      expect(await read(coming.uuid)).toMatchObject({ ...blank, status: 'cancelled', start: coming.start });

      // The slot is free again: someone else books it.
      const again = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
        dates: [{ start: coming.start, username: acme.owner.username }],
        email: 'next@example.com',
        lang: 'en',
        name: 'Next One',
        place: 'offline',
        form: { company: 'Other' },
        meetingTopic: topic.uuid,
        timezone: 'Europe/Warsaw',
      });
      expect(again.statusCode).toBe(201);

      await jobs.runOnce();
      // The host hears of the cancellation; the participant, who asked to be forgotten, does not.
      expect(messagesTo(acme.owner.email).filter((text) => text.includes('METHOD:CANCEL') && text.includes(coming.uuid))).toHaveLength(1);
      expect(messagesTo(email).filter((text) => text.includes('METHOD:CANCEL'))).toEqual([]);
      // Not even tried: no message was queued to the erased participant (it would go to an empty address), none waits or failed.
      const queued = await t.ctx.db
        .selectFrom('outbox')
        .select(['payload', 'status'])
        .where('kind', 'in', ['email', 'payment-email'])
        .where('created_at', '>=', Date.parse('2027-01-04T10:00:00.000Z'))
        .execute();
      expect(queued.map((job) => (JSON.parse(job.payload) as { to: { email: string } }).to.email)).not.toContain('');
      expect(queued.filter((job) => job.status !== 'done')).toEqual([]);

      // Webhooks: the cancellation and the erasure, neither with the e-mail or the name.
      const deliveries = await t.ctx.db.selectFrom('webhook_deliveries').select(['event_type', 'body']).where('account_id', '=', acme.account.uuid).execute();
      const erasure = deliveries.find((delivery) => delivery.event_type === 'participant.erased');
      expect(JSON.parse(erasure!.body).data).toEqual({ meetings: expect.arrayContaining([past.uuid, coming.uuid]) });
      expect(JSON.parse(erasure!.body).data.meetings).toHaveLength(2);
      expect(deliveries.map((delivery) => delivery.event_type)).toContain('meeting.cancelled');
      for (const delivery of deliveries) expect(delivery.body.toLowerCase()).not.toContain(email);
      // What receivers got since the erasure (but the new booking of the freed slot).
      const sent = receiver.requests
        .slice(receivedBefore)
        .map((request) => JSON.parse(request.body))
        .filter((body) => body.data.participant?.email !== 'next@example.com');
      expect(sent.map((body) => body.type).sort()).toEqual(['meeting.cancelled', 'participant.erased']);
      expect(sent.find((body) => body.type === 'meeting.cancelled').data.participant).toMatchObject({ name: '(erased)', email: null });

      // No table keeps the name, e-mail or phone; the idempotent replay shows the meeting erased.
      const after = await dump();
      expect(after).not.toContain(email);
      expect(after).not.toContain(NAME.toLowerCase());
      expect(after).not.toContain(PHONE);
      expect(after).not.toContain(CRM.toLowerCase());
      expect(after).not.toContain(GUEST);
      expect(messagesTo(GUEST)).toEqual([]);
      // Nor the mail outbox (the .eml files written without SMTP): the participant's own messages, and the host's naming them, are gone.
      expect(messagesTo(email)).toEqual([]);
      const mailOutbox = fs.readdirSync(t.ctx.config.mail.outboxDir).map((file) => fs.readFileSync(path.join(t.ctx.config.mail.outboxDir, file), 'utf8'));
      expect(mailOutbox.filter((text) => text.toLowerCase().includes(email) || text.includes(NAME) || text.includes(PHONE) || text.includes(GUEST))).toEqual([]);

      // Idempotent: nothing left to erase.
      expect((await call(t.app, acme.apiKey, 'POST', '/api/v1/participants/erase', { email })).json()).toEqual({ erased: 0 });
      expect((await call(t.app, acme.apiKey, 'POST', '/api/v1/participants/export', { email })).json().meetings).toEqual([]);

      // The audit log says who did it, in the erasure's own transaction: the cancellation, the erasure (twice: the second
      // erased nothing), the export; meeting uuids, never the e-mail.
      const audit = async (action: string) =>
        (await call(t.app, acme.apiKey, 'GET', `/api/v1/audit-events?action=${action}`)).json().auditEvents as {
          actor: unknown;
          target: unknown;
          details: Record<string, unknown>;
        }[];
      const byKey = { type: 'user', userUuid: acme.owner.uuid, via: 'api-key' };
      const erasures = await audit('participant.erased');
      expect(erasures.map((event) => event.actor)).toEqual([byKey, byKey]);
      expect(erasures[1]!.details).toEqual({ meetings: expect.arrayContaining([past.uuid, coming.uuid]), cancelled: [coming.uuid] });
      expect(erasures[0]!.details).toEqual({ meetings: [], cancelled: [] });
      const cancellations = await audit('meeting.cancelled');
      expect(cancellations.map((event) => [event.target, event.details.reason])).toEqual([[{ type: 'meeting', uuid: coming.uuid }, 'participant erased']]);
      expect((await audit('participant.exported')).map((event) => event.details)).toEqual([{ meetings: 0 }]);
      const log = JSON.stringify((await call(t.app, acme.apiKey, 'GET', '/api/v1/audit-events?limit=100')).json()).toLowerCase();
      expect(log).not.toContain(email);
      expect(log).not.toContain(NAME.toLowerCase());
    });

    it("only an admin of one of the account's teams may export or erase; bad input is 400 and changes nothing", async () => {
      const { acme, email, book, NAME } = await setUp();
      const meeting = (await book('2027-01-05T08:00:00.000Z')).meetings[0];
      const team = (await call(t.app, acme.apiKey, 'POST', '/api/v1/teams', { name: 'Support' })).json();
      const member = (
        await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${team.uuid}/users`, { firstName: 'Mia', lastName: 'Member', email: `mia${counter}@example.com` })
      ).json();
      const memberKey = (await createApiKeyForUser(t.ctx, member.uuid)).apiKey;
      expectProblem(await call(t.app, memberKey, 'POST', '/api/v1/participants/export', { email }), 403, 'FORBIDDEN');
      expectProblem(await call(t.app, memberKey, 'POST', '/api/v1/participants/erase', { email }), 403, 'FORBIDDEN');
      for (const body of [{ email: 'not an address' }, {}, { email, extra: 1 }, { email: 42 }]) {
        const problem = expectProblem(await call(t.app, acme.apiKey, 'POST', '/api/v1/participants/erase', body), 400, 'VALIDATION_FAILED');
        expect(problem.errors?.length).toBeGreaterThan(0);
      }
      const kept = (await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${meeting.uuid}`)).json();
      expect(kept).toMatchObject({ status: 'confirmed', participant: { name: NAME, email } });
      // Another account's admin finds nothing of this one's participants.
      const other = await createTestAccount(t.ctx);
      expect((await call(t.app, other.apiKey, 'POST', '/api/v1/participants/erase', { email })).json()).toEqual({ erased: 0 });
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${meeting.uuid}`)).json().participant.email).toBe(email);
    });

    it('retention: PATCH /account sets it (1..3650 or null); the background erases meetings that ended more than that many days ago, to the millisecond', async () => {
      const { acme, email, book } = await setUp();
      expect((await call(t.app, acme.apiKey, 'GET', '/api/v1/account')).json().retention).toEqual({ participantDataDays: null });
      for (const days of [0, 3651, 1.5, '30']) {
        expectProblem(await call(t.app, acme.apiKey, 'PATCH', '/api/v1/account', { retention: { participantDataDays: days } }), 400, 'VALIDATION_FAILED');
      }
      expect((await call(t.app, acme.apiKey, 'GET', '/api/v1/account')).json().retention).toEqual({ participantDataDays: null });
      const patched = await call(t.app, acme.apiKey, 'PATCH', '/api/v1/account', { retention: { participantDataDays: 30 } });
      expect(patched.statusCode).toBe(200);
      expect(patched.json().retention).toEqual({ participantDataDays: 30 });

      // 09:00-09:30 in Warsaw on 5 January; 30 days later is 4 February 09:30 in Warsaw, the same UTC offset (no DST between).
      const meeting = (await book('2027-01-05T08:00:00.000Z')).meetings[0];
      expect(meeting.end).toBe('2027-01-05T08:30:00.000Z');
      const later = (await book('2027-01-05T09:00:00.000Z', { email: 'later@example.com' })).meetings[0];
      await jobs.runOnce();
      const participantOf = async (uuid: string) => (await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${uuid}`)).json().participant;

      try {
        t.clock.set('2027-02-04T08:30:00.000Z'); // ended exactly 30 days ago: kept
        await jobs.runOnce();
        expect((await participantOf(meeting.uuid)).email).toBe(email);
        t.clock.set('2027-02-04T08:30:00.001Z'); // a millisecond more: erased, no cancellation
        await jobs.runOnce();
        expect(await participantOf(meeting.uuid)).toMatchObject({ name: '(erased)', email: null, phone: null });
        expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${meeting.uuid}`)).json().status).toBe('confirmed');
        expect((await participantOf(later.uuid)).email).toBe('later@example.com');
        // The background's batch is in the account's audit log, the system's doing.
        const applied = (await call(t.app, acme.apiKey, 'GET', '/api/v1/audit-events?action=retention.applied')).json().auditEvents;
        expect(applied).toMatchObject([
          { actor: { type: 'system', via: 'maintenance' }, details: { participantDataDays: 30, endedBefore: '2027-01-05T08:30:00.001Z', meetings: [meeting.uuid] } },
        ]);

        // null keeps data until erased.
        await call(t.app, acme.apiKey, 'PATCH', '/api/v1/account', { retention: { participantDataDays: null } });
        t.clock.set('2027-06-01T00:00:00.000Z');
        await jobs.runOnce();
        expect((await participantOf(later.uuid)).email).toBe('later@example.com');
      } finally {
        t.clock.set('2027-01-04T06:00:00.000Z');
      }
    });

    it('retention runs on one instance at a time: while another holds the lease, a background run does nothing', async () => {
      const { acme, book } = await setUp();
      await call(t.app, acme.apiKey, 'PATCH', '/api/v1/account', { retention: { participantDataDays: 1 } });
      const meeting = (await book('2027-01-05T08:00:00.000Z')).meetings[0];
      const now = Date.parse('2027-01-07T00:00:00.000Z');
      // Another instance took the lease a moment ago (its 5 minutes are not over).
      expect(await claimMaintenanceLease(t.ctx.db, 'retention', 'other-instance', now, now + 300_000)).toBe(true);
      const ctx = { ...t.ctx, now: () => now };
      expect(await applyRetention(ctx, { lease: true })).toMatchObject({ ran: false, accounts: [] });
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${meeting.uuid}`)).json().participant.name).not.toBe('(erased)');
      // Once it lets go (or its lease ends), this instance runs it.
      await releaseMaintenanceLease(t.ctx.db, 'retention', 'other-instance');
      const done = await applyRetention(ctx, { lease: true });
      expect(done.ran).toBe(true);
      expect(done.accounts).toContainEqual({ accountUuid: acme.account.uuid, days: 1, erased: 1 });
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${meeting.uuid}`)).json().participant.name).toBe('(erased)');
      // A lease held past its end is taken over.
      expect(await claimMaintenanceLease(t.ctx.db, 'retention', 'other-instance', now, now + 1)).toBe(true);
      expect(await claimMaintenanceLease(t.ctx.db, 'retention', 'third', now + 1, now + 300_000)).toBe(true);
      await releaseMaintenanceLease(t.ctx.db, 'retention', 'third');
    });

    it('the CLI: retention run --as-of applies it as if at that moment; participants export and erase by account and e-mail', async () => {
      const { acme, email, book, NAME } = await setUp();
      await call(t.app, acme.apiKey, 'PATCH', '/api/v1/account', { retention: { participantDataDays: 1 } });
      const meeting = (await book('2027-01-05T08:00:00.000Z')).meetings[0];
      const other = (await book('2027-01-06T08:00:00.000Z', { email: `cli.${counter}@example.com` })).meetings[0];
      const cli = async (...args: string[]) => {
        const out: string[] = [];
        const err: string[] = [];
        const code = await runCli([...args, '--json'], { out: { write: (text: string) => out.push(text) }, err: { write: (text: string) => err.push(text) } }, cliEnv(t.ctx));
        return { code, json: out.length > 0 ? JSON.parse(out.join('')) : null, err: err.join('') };
      };
      const participantOf = async (uuid: string) => (await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${uuid}`)).json().participant;

      const exactly = await cli('retention', 'run', '--as-of', '2027-01-06T08:30:00.000Z');
      expect(exactly.code).toBe(0);
      expect((await participantOf(meeting.uuid)).email).toBe(email);
      const after = await cli('retention', 'run', '--as-of', '2027-01-06T08:30:01Z');
      expect(after.code).toBe(0);
      expect(after.json.accounts).toContainEqual({ accountUuid: acme.account.uuid, days: 1, erased: 1 });
      expect((await participantOf(meeting.uuid)).name).toBe('(erased)');
      expect((await participantOf(other.uuid)).name).toBe(NAME);
      const applied = (await call(t.app, acme.apiKey, 'GET', '/api/v1/audit-events?action=retention.applied')).json().auditEvents;
      expect(applied).toMatchObject([{ actor: { type: 'operator', via: 'cli' }, details: { participantDataDays: 1, meetings: [meeting.uuid] } }]);
      expect((await cli('retention', 'run', '--as-of', 'yesterday')).code).toBe(2);

      const exported = await cli('participants', 'export', '--account', acme.account.uuid, '--email', `CLI.${counter}@example.com`);
      expect(exported.code).toBe(0);
      expect(exported.json.meetings.map((m: { uuid: string }) => m.uuid)).toEqual([other.uuid]);
      const erased = await cli('participants', 'erase', '--account', acme.account.uuid, '--email', `cli.${counter}@example.com`);
      expect(erased.json).toEqual({ erased: 1, cancelled: 1 });
      expect(await participantOf(other.uuid)).toMatchObject({ name: '(erased)', email: null });
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${other.uuid}`)).json().status).toBe('cancelled');
      const unknown = await cli('participants', 'erase', '--account', '00000000-0000-4000-8000-000000000000', '--email', 'x@example.com');
      expect(unknown.code).toBe(1);
      expect(unknown.err).toContain('no such account');
    });
  });
}
