import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertAppSession } from '../../src/db/repositories/app-sessions.js';
import { inTransaction } from '../../src/db/transaction.js';
import { updateAccountAsOperator } from '../../src/scheduling/account/account.js';
import { createApiKeyForUser } from '../../src/scheduling/account/api-keys.js';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { handOverOwnershipAsOperator } from '../../src/scheduling/account/owner.js';
import { recordAuditEvent } from '../../src/scheduling/audit/record-audit.js';
import { rescheduleMeeting } from '../../src/scheduling/booking/reschedule.js';
import { resumeAppSession } from '../../src/scheduling/host-app/sign-in.js';
import { createManageToken } from '../../src/scheduling/meetings/manage-token.js';
import { revokeKeyAsOperator } from '../../src/scheduling/operator/operator.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, type TestApp } from '../helpers.js';

type Slot = { start: string; username: string };
interface AuditEventJson {
  uuid: string;
  at: string;
  action: string;
  actor: { type: string; userUuid?: string; via: string };
  target: { type: string; uuid: string };
  details: Record<string, unknown>;
}

const PARTICIPANT = { name: 'Zofia Participant', email: 'zofia.private@example.org', phone: '+48600700800' };
const MEMBER_EMAIL = 'marek.member@example.com';
const ZOOM_SECRET = 'zoom-client-secret-XYZ';
const STRIPE_SECRET = 'sk_live_51AuditSecret';

for (const dialect of DIALECTS) {
  describe(`GET /audit-events [${dialect}]`, () => {
    let t: TestApp;
    let acme: CreatedAccount;
    let other: CreatedAccount;
    let topic: { uuid: string };
    /** Every secret and participant datum the changes below handle: none may reach the log. */
    const secrets: string[] = [PARTICIPANT.name, PARTICIPANT.email, PARTICIPANT.phone, MEMBER_EMAIL, ZOOM_SECRET, STRIPE_SECRET, 'hook-token-123'];

    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'), { ALLOW_PRIVATE_URLS: 'true' });
      acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['offline', 'phone-call', 'zoom'] });
      other = await createTestAccount(t.ctx);
      topic = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Consult', durationMinutes: 60, places: ['phone-call'] })).json();
    });
    afterAll(async () => t.close());

    const list = async (query = '', key = acme.apiKey) => {
      const response = await call(t.app, key, 'GET', `/api/v1/audit-events${query}`);
      expect(response.statusCode, response.body).toBe(200);
      return response.json() as { auditEvents: AuditEventJson[]; nextCursor: string | null };
    };
    const latest = async (action: string) => (await list(`?action=${action}&limit=1`)).auditEvents[0];
    const owner = () => ({ type: 'user', userUuid: acme.owner.uuid, via: 'api-key' });
    const slots = async () => {
      const body = (
        await call(t.app, null, 'POST', '/api/v1/calculate-schedule', { username: acme.owner.username, meetingTopic: topic.uuid, timezone: 'Europe/Warsaw', offset: 0 })
      ).json();
      return (body.days as { slots: Slot[] }[]).flatMap((day) => day.slots);
    };
    let slotIndex = 0;
    const book = async () => {
      const all = await slots();
      const slot = all[slotIndex++ * 2]!;
      const response = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
        dates: [slot],
        email: PARTICIPANT.email,
        name: PARTICIPANT.name,
        phone: PARTICIPANT.phone,
        lang: 'en',
        place: 'phone-call',
        meetingTopic: topic.uuid,
        timezone: 'Europe/Warsaw',
      });
      expect(response.statusCode, response.body).toBe(201);
      return response.json().meetings[0] as { uuid: string; start: string };
    };
    const freeStart = async () => (await slots()).at(-1)!.start;

    it('records each team, member and key change with who made it and what it is about', async () => {
      const team = (await call(t.app, acme.apiKey, 'POST', '/api/v1/teams', { name: 'Sales' })).json();
      expect(await latest('team.created')).toMatchObject({ actor: owner(), target: { type: 'team', uuid: team.uuid }, details: { name: 'Sales' } });

      const member = (await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${team.uuid}/users`, { firstName: 'Marek', lastName: 'Member', email: MEMBER_EMAIL })).json();
      expect(await latest('member.created')).toMatchObject({ actor: owner(), target: { type: 'member', uuid: member.uuid }, details: { teamUuid: team.uuid, admin: false } });
      await call(t.app, acme.apiKey, 'PATCH', `/api/v1/teams/${team.uuid}/users/${member.uuid}`, { firstName: 'Mark', admin: true });
      expect(await latest('member.updated')).toMatchObject({ actor: owner(), target: { type: 'member', uuid: member.uuid }, details: { changed: ['admin', 'firstName'] } });

      const key = (await call(t.app, acme.apiKey, 'POST', '/api/v1/api-keys', { name: 'CI' })).json();
      secrets.push(key.apiKey);
      expect(await latest('key.created')).toMatchObject({ actor: owner(), target: { type: 'api-key', uuid: key.uuid }, details: { name: 'CI', userUuid: acme.owner.uuid } });
      expect((await call(t.app, acme.apiKey, 'DELETE', `/api/v1/api-keys/${key.uuid}`)).statusCode).toBe(204);
      expect(await latest('key.revoked')).toMatchObject({ actor: owner(), target: { type: 'api-key', uuid: key.uuid } });

      // The operator's CLI acts as the operator.
      const issued = await createApiKeyForUser(t.ctx, member.uuid);
      secrets.push(issued.apiKey);
      expect(await latest('key.created')).toMatchObject({ actor: { type: 'operator', via: 'cli' }, target: { type: 'api-key', uuid: issued.uuid } });
      await revokeKeyAsOperator(t.ctx, issued.uuid);
      expect(await latest('key.revoked')).toMatchObject({ actor: { type: 'operator', via: 'cli' }, target: { type: 'api-key', uuid: issued.uuid } });
      await handOverOwnershipAsOperator(t.ctx, acme.account.uuid, member.uuid);
      expect(await latest('owner.transferred')).toMatchObject({
        actor: { type: 'operator', via: 'cli' },
        target: { type: 'account', uuid: acme.account.uuid },
        details: { fromUserUuid: acme.owner.uuid, toUserUuid: member.uuid },
      });
      await handOverOwnershipAsOperator(t.ctx, acme.account.uuid, acme.owner.uuid);

      expect((await call(t.app, acme.apiKey, 'DELETE', `/api/v1/teams/${team.uuid}/users/${member.uuid}`)).statusCode).toBe(204);
      expect(await latest('member.deleted')).toMatchObject({ actor: owner(), target: { type: 'member', uuid: member.uuid }, details: { teamUuid: team.uuid } });
      // The CLI's `user` actor carries no userUuid: the operator is nobody's user.
      expect((await latest('owner.transferred'))!.actor).not.toHaveProperty('userUuid');
    });

    it('records account, integration, connection, calendar, topic, webhook and discount changes naming fields, never values', async () => {
      await call(t.app, acme.apiKey, 'PATCH', '/api/v1/account', {
        name: 'Acme Renamed',
        gateways: [{ code: 'stripe', settings: { secretKey: STRIPE_SECRET, webhookSecret: 'whsec_AuditSecret' } }],
        integrations: { zoom: { clientId: 'zoom-client', clientSecret: ZOOM_SECRET } },
      });
      secrets.push('whsec_AuditSecret');
      expect(await latest('account.updated')).toMatchObject({ actor: owner(), target: { type: 'account', uuid: acme.account.uuid }, details: { changed: ['gateways', 'name'] } });
      expect(await latest('integration.updated')).toMatchObject({ actor: owner(), details: { provider: 'zoom', removed: false, changed: ['clientId', 'clientSecret'] } });
      await updateAccountAsOperator(t.ctx, acme.account.uuid, { maxUsers: 20 });
      expect(await latest('account.updated')).toMatchObject({ actor: { type: 'operator', via: 'cli' }, details: { changed: ['maxUsers'] } });

      const connection = (await call(t.app, acme.apiKey, 'POST', `/api/v1/users/${acme.owner.uuid}/connections`, { provider: 'zoom' })).json().connection ?? null;
      const created = await latest('connection.created');
      expect(created).toMatchObject({ actor: owner(), target: { type: 'connection' }, details: { provider: 'zoom', userUuid: acme.owner.uuid } });
      if (connection) expect(created!.target.uuid).toBe(connection.uuid);
      expect((await call(t.app, acme.apiKey, 'DELETE', `/api/v1/users/${acme.owner.uuid}/connections/${created!.target.uuid}`)).statusCode).toBe(204);
      expect(await latest('connection.deleted')).toMatchObject({ actor: owner(), target: created!.target });

      // A calendar: its kind, never its URL (an iCalendar link is a secret of its own).
      const calendar = await call(t.app, acme.apiKey, 'POST', `/api/v1/users/${acme.owner.uuid}/calendars`, { type: 'ics', url: 'http://127.0.0.1:9/private-cal-token.ics' });
      expect(calendar.statusCode, calendar.body).toBe(201);
      secrets.push('private-cal-token');
      expect(await latest('calendar.created')).toMatchObject({ actor: owner(), target: { type: 'calendar', uuid: calendar.json().uuid }, details: { type: 'ics' } });
      expect((await call(t.app, acme.apiKey, 'DELETE', `/api/v1/users/${acme.owner.uuid}/calendars/${calendar.json().uuid}`)).statusCode).toBe(204);
      expect(await latest('calendar.deleted')).toMatchObject({ actor: owner(), target: { type: 'calendar', uuid: calendar.json().uuid } });

      const made = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Audit me', durationMinutes: 30, places: ['offline'] })).json();
      expect(await latest('topic.created')).toMatchObject({ actor: owner(), target: { type: 'topic', uuid: made.uuid } });
      await call(t.app, acme.apiKey, 'PATCH', `/api/v1/meeting-topics/${made.uuid}`, { durationMinutes: 45, description: 'Longer' });
      expect(await latest('topic.updated')).toMatchObject({ target: { type: 'topic', uuid: made.uuid }, details: { changed: ['description', 'durationMinutes'] } });
      await call(t.app, acme.apiKey, 'DELETE', `/api/v1/meeting-topics/${made.uuid}`);
      expect(await latest('topic.deleted')).toMatchObject({ actor: owner(), target: { type: 'topic', uuid: made.uuid } });

      const hook = (await call(t.app, acme.apiKey, 'POST', '/api/v1/webhooks', { url: 'http://127.0.0.1:9/hooks?token=hook-token-123', events: ['meeting.cancelled'] })).json();
      secrets.push(hook.secret);
      expect(await latest('webhook.created')).toMatchObject({ actor: owner(), target: { type: 'webhook', uuid: hook.uuid }, details: { host: '127.0.0.1:9' } });
      await call(t.app, acme.apiKey, 'PATCH', `/api/v1/webhooks/${hook.uuid}`, { enabled: false });
      expect(await latest('webhook.updated')).toMatchObject({ target: { type: 'webhook', uuid: hook.uuid }, details: { changed: ['enabled'] } });
      const rotated = (await call(t.app, acme.apiKey, 'POST', `/api/v1/webhooks/${hook.uuid}/rotate-secret`)).json();
      if (rotated.secret) secrets.push(rotated.secret);
      await call(t.app, acme.apiKey, 'DELETE', `/api/v1/webhooks/${hook.uuid}`);
      expect(await latest('webhook.deleted')).toMatchObject({ actor: owner(), target: { type: 'webhook', uuid: hook.uuid } });

      const discount = (await call(t.app, acme.apiKey, 'POST', '/api/v1/discount-codes', { code: 'AUDIT10', percentOff: 10 })).json();
      expect(await latest('discount.created')).toMatchObject({ target: { type: 'discount-code', uuid: discount.uuid }, details: { code: 'AUDIT10' } });
      await call(t.app, acme.apiKey, 'DELETE', `/api/v1/discount-codes/${discount.uuid}`);
      expect(await latest('discount.deleted')).toMatchObject({ actor: owner(), target: { type: 'discount-code', uuid: discount.uuid } });
    });

    it('says who cancelled or moved a meeting: the host by key or /app, the participant by the manage link', async () => {
      const byKey = await book();
      await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${byKey.uuid}/reschedule`, { start: await freeStart() });
      expect(await latest('meeting.moved')).toMatchObject({ actor: owner(), target: { type: 'meeting', uuid: byKey.uuid }, details: { fromStart: byKey.start } });
      await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${byKey.uuid}/cancel`, { reason: `Call ${PARTICIPANT.phone}` });
      expect(await latest('meeting.cancelled')).toMatchObject({ actor: owner(), target: { type: 'meeting', uuid: byKey.uuid }, details: { previousStatus: 'confirmed' } });

      const byLink = await book();
      const token = createManageToken(t.ctx.secretKey, byLink.uuid);
      expect((await call(t.app, null, 'POST', `/api/v1/public/bookings/${token}/reschedule`, { start: await freeStart() })).statusCode).toBe(200);
      expect(await latest('meeting.moved')).toMatchObject({ actor: { type: 'participant', via: 'manage-link' }, target: { type: 'meeting', uuid: byLink.uuid } });
      expect((await call(t.app, null, 'POST', `/api/v1/public/bookings/${token}/cancel`, { reason: PARTICIPANT.email })).statusCode).toBe(200);
      const cancelled = await latest('meeting.cancelled');
      expect(cancelled).toMatchObject({ actor: { type: 'participant', via: 'manage-link' }, target: { type: 'meeting', uuid: byLink.uuid } });
      expect(cancelled!.actor).not.toHaveProperty('userUuid');

      // The host's web app: a session's principal acts "via app".
      const sessionToken = 'a'.repeat(43);
      const now = t.clock.now();
      await insertAppSession(t.ctx.db, {
        uuid: crypto.randomUUID(),
        tokenHash: createHash('sha256').update(sessionToken).digest('hex'),
        userUuid: acme.owner.uuid,
        now,
        expiresAt: now + 86_400_000,
      });
      const session = (await resumeAppSession(t.ctx, sessionToken))!;
      const inApp = await book();
      await rescheduleMeeting(t.ctx, session.principal, inApp.uuid, { start: await freeStart() });
      expect(await latest('meeting.moved')).toMatchObject({ actor: { type: 'user', userUuid: acme.owner.uuid, via: 'app' }, target: { type: 'meeting', uuid: inApp.uuid } });
    });

    it('never holds a secret, a token or a participant’s e-mail, name or phone', async () => {
      const rows = await t.ctx.db.selectFrom('audit_events').selectAll().execute();
      expect(rows.length).toBeGreaterThan(20);
      const dump = JSON.stringify(rows);
      for (const secret of secrets) expect(dump, secret).not.toContain(secret);
    });

    it('pages newest first with an opaque cursor, and filters by since and action', async () => {
      const all = (await list('?limit=200')).auditEvents;
      const keys = all.map((event) => `${event.at}|${event.uuid}`);
      expect(keys).toEqual([...keys].sort().reverse());
      const paged: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { auditEvents: AuditEventJson[]; nextCursor: string | null } = await list(`?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(page.auditEvents.length).toBeLessThanOrEqual(3);
        paged.push(...page.auditEvents.map((event) => event.uuid));
        cursor = page.nextCursor;
      } while (cursor !== null);
      expect(paged).toEqual(all.map((event) => event.uuid));

      const cancels = (await list('?action=meeting.cancelled')).auditEvents;
      expect(cancels.length).toBe(2);
      expect(cancels.every((event) => event.action === 'meeting.cancelled')).toBe(true);

      t.clock.advance(3_600_000);
      const since = new Date(t.clock.now()).toISOString();
      expect((await list(`?since=${since}`)).auditEvents).toEqual([]);
      await call(t.app, acme.apiKey, 'POST', '/api/v1/teams', { name: 'Later' });
      expect((await list(`?since=${since}`)).auditEvents.map((event) => event.action)).toEqual(['team.created']);
      // Another account sees only its own.
      expect((await list('', other.apiKey)).auditEvents).toEqual([]);
    });

    it('400 for a bad since, action or cursor; 403 for a key whose user administers no team', async () => {
      expect(expectProblem(await call(t.app, acme.apiKey, 'GET', '/api/v1/audit-events?since=yesterday'), 400, 'VALIDATION_FAILED').errors?.[0]?.path).toBe('/query/since');
      expect(expectProblem(await call(t.app, acme.apiKey, 'GET', '/api/v1/audit-events?action=meeting.deleted'), 400, 'VALIDATION_FAILED').errors?.[0]?.path).toBe('/query/action');
      expect(expectProblem(await call(t.app, acme.apiKey, 'GET', '/api/v1/audit-events?cursor=nonsense'), 400, 'VALIDATION_FAILED').errors?.[0]?.path).toBe('/query/cursor');
      const plain = (await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, { firstName: 'Pia', lastName: 'Plain', email: 'pia@example.com' })).json();
      const key = await createApiKeyForUser(t.ctx, plain.uuid);
      expectProblem(await call(t.app, key.apiKey, 'GET', '/api/v1/audit-events'), 403, 'FORBIDDEN');
    });

    it('offers no way to change or delete an entry: the OpenAPI document has only GET /audit-events', async () => {
      const document = (await call(t.app, null, 'GET', '/api/v1/openapi.json')).json() as { paths: Record<string, Record<string, unknown>> };
      const auditPaths = Object.keys(document.paths).filter((path) => path.includes('audit'));
      expect(auditPaths).toEqual(['/api/v1/audit-events']);
      expect(Object.keys(document.paths['/api/v1/audit-events']!).filter((method) => method !== 'parameters')).toEqual(['get']);
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
        expect((await call(t.app, acme.apiKey, method, '/api/v1/audit-events', method === 'DELETE' ? undefined : {})).statusCode).toBe(405);
      }
    });

    it('commits a change and its entry together: a failed entry rolls the change back, a failed change leaves no entry', async () => {
      const count = async () =>
        (
          await t.ctx.db
            .selectFrom('meeting_topics')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('name', '=', 'Unlogged')
            .executeTakeFirstOrThrow()
        ).n;
      // The log's table out of reach: every audit insert fails, and with it the change.
      await sql`alter table audit_events rename to audit_events_away`.execute(t.ctx.db);
      try {
        const refused = await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Unlogged', durationMinutes: 30, places: ['offline'] });
        expect(refused.statusCode).toBe(500);
      } finally {
        await sql`alter table audit_events_away rename to audit_events`.execute(t.ctx.db);
      }
      expect(Number(await count())).toBe(0);
      // The other way round: an entry recorded in a transaction that then fails is not kept.
      await expect(
        inTransaction(t.ctx.db, async (trx) => {
          await recordAuditEvent(trx, {
            accountUuid: acme.account.uuid,
            action: 'topic.created',
            actor: { type: 'system', via: 'maintenance' },
            target: { type: 'topic', uuid: acme.team.uuid },
            now: t.clock.now(),
          });
          throw new Error('the change failed');
        }),
      ).rejects.toThrow('the change failed');
      expect((await list('?action=topic.created')).auditEvents.some((event) => event.target.uuid === acme.team.uuid)).toBe(false);
    });
  });
}
