import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKeyForUser } from '../../src/scheduling/account/api-keys.js';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { DIALECTS, call, createTestAccount, createTestApp, expectProblem, type TestApp } from '../helpers.js';

/** PATCH /teams/{teamUuid}/users/{userUuid}: rename a member, make or unmake an admin, never leave a team without one. */
for (const dialect of DIALECTS) {
  describe(`editing members [${dialect}]`, () => {
    let t: TestApp;
    let acme: CreatedAccount;
    let other: CreatedAccount;

    beforeAll(async () => {
      t = await createTestApp(dialect);
      acme = await createTestAccount(t.ctx, { name: 'Acme', maxUsers: 10 });
      other = await createTestAccount(t.ctx, { name: 'Other', maxUsers: 10 });
    });
    afterAll(async () => t.close());

    const members = async (key: string, teamUuid: string) =>
      (await call(t.app, key, 'GET', `/api/v1/teams/${teamUuid}/users`)).json().users as { uuid: string; firstName: string; lastName: string; username: string; admin: boolean }[];
    const patch = (key: string, teamUuid: string, userUuid: string, body: unknown) => call(t.app, key, 'PATCH', `/api/v1/teams/${teamUuid}/users/${userUuid}`, body);
    async function addMember(teamUuid: string, firstName: string, admin = false) {
      const response = await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${teamUuid}/users`, {
        firstName,
        lastName: 'Member',
        email: `${firstName.toLowerCase()}@acme.test`,
        admin,
      });
      expect(response.statusCode).toBe(201);
      return response.json() as { uuid: string; username: string };
    }

    it('renames a member, keeps the username, and the team list shows the new name', async () => {
      const anna = await addMember(acme.team.uuid, 'Anna');
      const response = await patch(acme.apiKey, acme.team.uuid, anna.uuid, { firstName: '  Anne ', lastName: 'Nowak-Kowalska' });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ uuid: anna.uuid, firstName: 'Anne', lastName: 'Nowak-Kowalska', username: anna.username, admin: false });
      expect((await members(acme.apiKey, acme.team.uuid)).find((m) => m.uuid === anna.uuid)).toMatchObject({
        firstName: 'Anne',
        lastName: 'Nowak-Kowalska',
        username: anna.username,
      });
    });

    it('lets the owner hand over admin and then leave, as the LAST_ADMIN message advises', async () => {
      const team = (await call(t.app, acme.apiKey, 'POST', '/api/v1/teams', { name: 'Handover' })).json() as { uuid: string };
      const bob = await addMember(team.uuid, 'Bob');
      // The owner is the only admin: leaving is refused, demoting themselves too.
      expectProblem(await call(t.app, acme.apiKey, 'DELETE', `/api/v1/teams/${team.uuid}/users/${acme.owner.uuid}`), 409, 'LAST_ADMIN');
      expectProblem(await patch(acme.apiKey, team.uuid, acme.owner.uuid, { admin: false }), 409, 'LAST_ADMIN');

      const promoted = await patch(acme.apiKey, team.uuid, bob.uuid, { admin: true });
      expect(promoted.statusCode).toBe(200);
      expect(promoted.json().admin).toBe(true);
      expect((await call(t.app, acme.apiKey, 'DELETE', `/api/v1/teams/${team.uuid}/users/${acme.owner.uuid}`)).statusCode).toBe(204);

      // Bob now runs the team with a key of his own.
      const bobKey = (await createApiKeyForUser(t.ctx, bob.uuid)).apiKey;
      expect((await members(bobKey, team.uuid)).map((m) => [m.firstName, m.admin])).toEqual([['Bob', true]]);
      expectProblem(await patch(bobKey, team.uuid, bob.uuid, { admin: false }), 409, 'LAST_ADMIN');
    });

    it('demotes an admin while another remains, and the demoted one loses the team list', async () => {
      const team = (await call(t.app, acme.apiKey, 'POST', '/api/v1/teams', { name: 'Two admins' })).json() as { uuid: string };
      const cleo = await addMember(team.uuid, 'Cleo', true);
      const cleoKey = (await createApiKeyForUser(t.ctx, cleo.uuid)).apiKey;
      expect((await call(t.app, cleoKey, 'GET', `/api/v1/teams/${team.uuid}/users`)).statusCode).toBe(200);
      const demoted = await patch(acme.apiKey, team.uuid, cleo.uuid, { admin: false });
      expect(demoted.statusCode).toBe(200);
      expect(demoted.json().admin).toBe(false);
      expectProblem(await call(t.app, cleoKey, 'GET', `/api/v1/teams/${team.uuid}/users`), 403, 'FORBIDDEN');
      // And a non-admin cannot promote themselves back.
      expectProblem(await patch(cleoKey, team.uuid, cleo.uuid, { admin: true }), 403, 'FORBIDDEN');
    });

    it('two admins demoting each other at once: one wins, the team keeps an admin', async () => {
      const team = (await call(t.app, acme.apiKey, 'POST', '/api/v1/teams', { name: 'Race' })).json() as { uuid: string };
      const dora = await addMember(team.uuid, 'Dora', true);
      const doraKey = (await createApiKeyForUser(t.ctx, dora.uuid)).apiKey;
      const [first, second] = await Promise.all([patch(acme.apiKey, team.uuid, dora.uuid, { admin: false }), patch(doraKey, team.uuid, acme.owner.uuid, { admin: false })]);
      const statuses = [first.statusCode, second.statusCode].sort();
      expect(statuses[0]).toBe(200);
      expect(statuses[1]).not.toBe(200); // 409 LAST_ADMIN, or 403 when the other demotion took the caller's right first
      const admins = (await members(first.statusCode === 200 ? acme.apiKey : doraKey, team.uuid)).filter((m) => m.admin);
      expect(admins).toHaveLength(1);
    });

    it('refuses bad input and other accounts, changing nothing', async () => {
      const eve = await addMember(acme.team.uuid, 'Eve');
      expectProblem(await patch(acme.apiKey, acme.team.uuid, eve.uuid, { firstName: '   ' }), 400, 'VALIDATION_FAILED');
      const typo = expectProblem(await patch(acme.apiKey, acme.team.uuid, eve.uuid, { admn: true }), 400, 'VALIDATION_FAILED');
      expect(typo.errors?.map((e) => e.path)).toEqual(['/admn']);
      expectProblem(await patch(acme.apiKey, acme.team.uuid, eve.uuid, { admin: 'yes' }), 400, 'VALIDATION_FAILED');
      // Another account's key sees neither the team nor the member.
      expectProblem(await patch(other.apiKey, acme.team.uuid, eve.uuid, { firstName: 'Mallory' }), 404, 'NOT_FOUND');
      // A user of the account who is not in this team.
      expectProblem(await patch(other.apiKey, other.team.uuid, eve.uuid, { firstName: 'Mallory' }), 404, 'NOT_FOUND');
      expectProblem(await patch(acme.apiKey, acme.team.uuid, other.owner.uuid, { firstName: 'Mallory' }), 404, 'NOT_FOUND');
      expect((await members(acme.apiKey, acme.team.uuid)).find((m) => m.uuid === eve.uuid)).toMatchObject({ firstName: 'Eve', admin: false });
      // An empty body changes nothing and shows the member.
      const unchanged = await patch(acme.apiKey, acme.team.uuid, eve.uuid, {});
      expect(unchanged.statusCode).toBe(200);
      expect(unchanged.json()).toMatchObject({ firstName: 'Eve', lastName: 'Member', admin: false });
    });
  });
}
