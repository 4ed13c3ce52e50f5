import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { createApiKeyForUser } from '../../src/scheduling/account/api-keys.js';
import { DIALECTS, call, createTestAccount, createTestApp, expectProblem, type TestApp } from '../helpers.js';

/**
 * The account's owner: co-admins cannot rename, demote or remove them, the owner stays an
 * admin of some team, and only the owner (or the operator) hands the account over.
 */
for (const dialect of DIALECTS) {
  describe(`the account's owner [${dialect}]`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(dialect);
    });
    afterAll(async () => t.close());

    /** An account whose owner shares the first team with a second admin, Cleo, who has a key of her own. */
    async function accountWithCoAdmin() {
      const acme = await createTestAccount(t.ctx, { maxUsers: 10 });
      const added = await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, {
        firstName: 'Cleo',
        lastName: 'Admin',
        email: `cleo-${acme.account.uuid}@acme.test`,
        admin: true,
      });
      expect(added.statusCode).toBe(201);
      const cleo = added.json() as { uuid: string };
      const cleoKey = (await createApiKeyForUser(t.ctx, cleo.uuid)).apiKey;
      return { acme, cleo, cleoKey };
    }
    const member = async (key: string, teamUuid: string, userUuid: string) =>
      ((await call(t.app, key, 'GET', `/api/v1/teams/${teamUuid}/users`)).json().users as { uuid: string; firstName: string; admin: boolean }[]).find((m) => m.uuid === userUuid);

    it('shows the owner on the account; a new account is owned by the user it was created with', async () => {
      const { acme } = await accountWithCoAdmin();
      const account = await call(t.app, acme.apiKey, 'GET', '/api/v1/account');
      expect(account.statusCode).toBe(200);
      expect(account.json().owner).toBe(acme.owner.uuid);
    });

    it('refuses a co-admin renaming, demoting or removing the owner (403), and changes nothing', async () => {
      const { acme, cleoKey } = await accountWithCoAdmin();
      const ownerPath = `/api/v1/teams/${acme.team.uuid}/users/${acme.owner.uuid}`;
      expectProblem(await call(t.app, cleoKey, 'PATCH', ownerPath, { firstName: 'Mallory' }), 403, 'FORBIDDEN');
      expectProblem(await call(t.app, cleoKey, 'PATCH', ownerPath, { admin: false }), 403, 'FORBIDDEN');
      expectProblem(await call(t.app, cleoKey, 'DELETE', ownerPath), 403, 'FORBIDDEN');
      expect(await member(acme.apiKey, acme.team.uuid, acme.owner.uuid)).toMatchObject({ firstName: 'Olga', admin: true });
      // Nor can the co-admin take the account over.
      expectProblem(await call(t.app, cleoKey, 'POST', '/api/v1/account/owner', { userUuid: acme.owner.uuid }), 403, 'FORBIDDEN');
    });

    it('lets the owner rename themselves, but not step down from the last team they administer', async () => {
      const { acme } = await accountWithCoAdmin();
      const ownerPath = `/api/v1/teams/${acme.team.uuid}/users/${acme.owner.uuid}`;
      expect((await call(t.app, acme.apiKey, 'PATCH', ownerPath, { firstName: 'Olivia' })).statusCode).toBe(200);
      const demoted = expectProblem(await call(t.app, acme.apiKey, 'PATCH', ownerPath, { admin: false }), 403, 'FORBIDDEN');
      expect(demoted.detail).toContain('/api/v1/account/owner');
      expectProblem(await call(t.app, acme.apiKey, 'DELETE', ownerPath), 403, 'FORBIDDEN');
      expect(await member(acme.apiKey, acme.team.uuid, acme.owner.uuid)).toMatchObject({ firstName: 'Olivia', admin: true });

      // Admin of a second team, the owner may step down in the first.
      const second = (await call(t.app, acme.apiKey, 'POST', '/api/v1/teams', { name: 'Second' })).json() as { uuid: string };
      expect((await call(t.app, acme.apiKey, 'PATCH', ownerPath, { admin: false })).statusCode).toBe(200);
      expect(await member(acme.apiKey, second.uuid, acme.owner.uuid)).toMatchObject({ admin: true });
    });

    it('hands the account over to a team admin, after which the old owner is an ordinary admin', async () => {
      const { acme, cleo, cleoKey } = await accountWithCoAdmin();
      const added = await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, {
        firstName: 'Dan',
        lastName: 'Member',
        email: `dan-${acme.account.uuid}@acme.test`,
      });
      const dan = added.json() as { uuid: string };
      const notAdmin = expectProblem(await call(t.app, acme.apiKey, 'POST', '/api/v1/account/owner', { userUuid: dan.uuid }), 400, 'VALIDATION_FAILED');
      expect(notAdmin.errors?.map((e) => e.path)).toEqual(['/userUuid']);
      expectProblem(await call(t.app, acme.apiKey, 'POST', '/api/v1/account/owner', { userUuid: '00000000-0000-4000-8000-000000000000' }), 404, 'NOT_FOUND');
      expect((await call(t.app, acme.apiKey, 'GET', '/api/v1/account')).json().owner).toBe(acme.owner.uuid);

      const handedOver = await call(t.app, acme.apiKey, 'POST', '/api/v1/account/owner', { userUuid: cleo.uuid });
      expect(handedOver.statusCode).toBe(200);
      expect(handedOver.json().owner).toBe(cleo.uuid);
      // The new owner is protected and the old one is not.
      expectProblem(await call(t.app, acme.apiKey, 'PATCH', `/api/v1/teams/${acme.team.uuid}/users/${cleo.uuid}`, { admin: false }), 403, 'FORBIDDEN');
      expect((await call(t.app, cleoKey, 'PATCH', `/api/v1/teams/${acme.team.uuid}/users/${acme.owner.uuid}`, { admin: false })).statusCode).toBe(200);
      expectProblem(await call(t.app, acme.apiKey, 'POST', '/api/v1/account/owner', { userUuid: acme.owner.uuid }), 403, 'FORBIDDEN');
    });

    it('lets the operator hand an account over with the CLI', async () => {
      const { acme, cleo } = await accountWithCoAdmin();
      const out: string[] = [];
      const err: string[] = [];
      const io = { out: { write: (text: string) => out.push(text) }, err: { write: (text: string) => err.push(text) } };
      const { database, dataDir } = t.ctx.config;
      const env = { DATABASE_URL: database.dialect === 'postgres' ? database.url : `sqlite:${database.filename}`, DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
      expect(await runCli(['account', 'owner', '--account', acme.account.uuid, '--user', cleo.uuid, '--json'], io, env)).toBe(0);
      expect(JSON.parse(out.join(''))).toEqual({ account: { uuid: acme.account.uuid, name: acme.account.name, owner: cleo.uuid } });
      expect((await call(t.app, acme.apiKey, 'GET', '/api/v1/account')).json().owner).toBe(cleo.uuid);
      expect(await runCli(['account', 'owner', '--account', acme.account.uuid, '--user', '00000000-0000-4000-8000-000000000000'], io, env)).toBe(1);
      expect(err.join('')).toContain('--user 00000000-0000-4000-8000-000000000000: no such user');
    });
  });
}
