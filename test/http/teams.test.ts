import { createApiKeyForUser } from '../../src/scheduling/account/api-keys.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { DIALECTS, call, createTestAccount, createTestApp, expectProblem, type TestApp } from '../helpers.js';

for (const dialect of DIALECTS) {
  describe(`teams and members [${dialect}]`, () => {
    let t: TestApp;
    let acme: CreatedAccount;
    let other: CreatedAccount;

    beforeAll(async () => {
      t = await createTestApp(dialect);
      acme = await createTestAccount(t.ctx, { name: 'Acme', maxUsers: 5 });
      other = await createTestAccount(t.ctx, { name: 'Other', maxUsers: 5 });
    });
    afterAll(async () => t.close());

    const addMember = (key: string, teamUuid: string, body: Record<string, unknown>) => call(t.app, key, 'POST', `/api/v1/teams/${teamUuid}/users`, body);

    describe('authentication', () => {
      it('rejects a request without a key with 401 problem+json', async () => {
        expectProblem(await call(t.app, null, 'GET', '/api/v1/teams'), 401, 'UNAUTHENTICATED');
      });
      it('rejects malformed and unknown keys', async () => {
        expectProblem(await call(t.app, 'not-a-key', 'GET', '/api/v1/teams'), 401, 'UNAUTHENTICATED');
        const forged = `${acme.apiKey.slice(0, -4)}AAAA`;
        expectProblem(await call(t.app, forged, 'GET', '/api/v1/teams'), 401, 'UNAUTHENTICATED');
      });
      it('checks the key before the body: an invalid body without a key is 401, not 400', async () => {
        expectProblem(await call(t.app, null, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, '{not json'), 401, 'UNAUTHENTICATED');
      });
      it('stops accepting a revoked key', async () => {
        const created = await call(t.app, acme.apiKey, 'POST', '/api/v1/api-keys', { name: 'temporary' });
        expect(created.statusCode).toBe(201);
        const { uuid, apiKey } = created.json();
        expect((await call(t.app, apiKey, 'GET', '/api/v1/teams')).statusCode).toBe(200);
        expect((await call(t.app, apiKey, 'DELETE', `/api/v1/api-keys/${uuid}`)).statusCode).toBe(204);
        expectProblem(await call(t.app, apiKey, 'GET', '/api/v1/teams'), 401, 'UNAUTHENTICATED');
      });
    });

    describe('GET /teams', () => {
      it('lists only the teams where the caller is admin, oldest first (an order every database keeps alike, unlike names)', async () => {
        // Accounts of its own: other tests add teams to the shared ones.
        const own = await createTestAccount(t.ctx, { name: 'Beta' });
        const stranger = await createTestAccount(t.ctx, { name: 'Stranger' });
        const zulu = await call(t.app, own.apiKey, 'POST', '/api/v1/teams', { name: 'Zulu' });
        const alpha = await call(t.app, own.apiKey, 'POST', '/api/v1/teams', { name: 'Alpha' });
        expect([zulu.statusCode, alpha.statusCode]).toEqual([201, 201]);
        const response = await call(t.app, own.apiKey, 'GET', '/api/v1/teams');
        expect(response.statusCode).toBe(200);
        expect(response.json().teams.map((team: { name: string }) => team.name)).toEqual(['Beta', 'Zulu', 'Alpha']);
        expect(Object.keys(response.json().teams[0]).sort()).toEqual(['name', 'uuid']);
        // Another account's teams never show.
        expect((await call(t.app, stranger.apiKey, 'GET', '/api/v1/teams')).json().teams.map((team: { name: string }) => team.name)).toEqual(['Stranger']);
      });
    });

    describe('POST /teams/{teamUuid}/users', () => {
      it('creates a member with the contract record, a folded username and the account time zone', async () => {
        const response = await addMember(acme.apiKey, acme.team.uuid, { firstName: 'Łukasz', lastName: 'Żółć', email: ' Lukasz@Acme.test ', admin: true });
        expect(response.statusCode).toBe(201);
        const member = response.json();
        expect(member).toMatchObject({ firstName: 'Łukasz', lastName: 'Żółć', email: 'Lukasz@Acme.test', username: 'lukasz-zolc', admin: true, timezone: 'Europe/Warsaw' });
        expect(member.uuid).toMatch(/^[0-9a-f-]{36}$/);
        expect(new Date(member.createdAt).toISOString()).toBe(member.createdAt);

        const list = await call(t.app, acme.apiKey, 'GET', `/api/v1/teams/${acme.team.uuid}/users`);
        expect(list.statusCode).toBe(200);
        expect(list.json().users).toContainEqual(member);
      });

      it('numbers colliding usernames, across accounts too', async () => {
        // A name no other test uses: usernames are unique across the whole database.
        const first = await addMember(acme.apiKey, acme.team.uuid, { firstName: 'Anna', lastName: 'Nowak', email: 'anna1@acme.test' });
        const second = await addMember(acme.apiKey, acme.team.uuid, { firstName: 'Anna', lastName: 'Nowak', email: 'anna2@acme.test' });
        const third = await addMember(other.apiKey, other.team.uuid, { firstName: 'ANNA', lastName: 'nowák', email: 'anna@other.test' });
        expect([first.json().username, second.json().username, third.json().username]).toEqual(['anna-nowak', 'anna-nowak-2', 'anna-nowak-3']);
      });

      it('answers 409 ALREADY_MEMBER for the same e-mail in another case, and changes nothing', async () => {
        const own = await createTestAccount(t.ctx);
        expect((await addMember(own.apiKey, own.team.uuid, { firstName: 'Dora', lastName: 'Member', email: 'dora@own.test' })).statusCode).toBe(201);
        const before = (await call(t.app, own.apiKey, 'GET', `/api/v1/teams/${own.team.uuid}/users`)).json().users.length;
        expectProblem(await addMember(own.apiKey, own.team.uuid, { firstName: 'A', lastName: 'N', email: 'DORA@own.TEST' }), 409, 'ALREADY_MEMBER');
        const after = (await call(t.app, own.apiKey, 'GET', `/api/v1/teams/${own.team.uuid}/users`)).json().users.length;
        expect(after).toBe(before);
      });

      it('adds an existing user of the account to another team without using a seat', async () => {
        const own = await createTestAccount(t.ctx);
        expect((await addMember(own.apiKey, own.team.uuid, { firstName: 'Ewa', lastName: 'Seatholder', email: 'ewa@own.test' })).statusCode).toBe(201);
        const team = (await call(t.app, own.apiKey, 'POST', '/api/v1/teams', { name: 'Support' })).json();
        const seatsBefore = (await call(t.app, own.apiKey, 'GET', '/api/v1/account')).json().activeUsers;
        const added = await addMember(own.apiKey, team.uuid, { firstName: 'Whatever', lastName: 'Name', email: 'ewa@OWN.test' });
        expect(added.statusCode).toBe(201);
        expect(added.json()).toMatchObject({ username: 'ewa-seatholder', firstName: 'Ewa', admin: false });
        expect((await call(t.app, own.apiKey, 'GET', '/api/v1/account')).json().activeUsers).toBe(seatsBefore);
      });

      it('an admin of another team cannot pull the owner (or anyone outside their teams) into their team', async () => {
        // Mallory is admin of her own team only; the owner is not a member of it.
        const own = await createTestAccount(t.ctx, { name: 'Takeover' });
        const team = (await call(t.app, own.apiKey, 'POST', '/api/v1/teams', { name: 'Mallory team' })).json();
        const mallory = (await addMember(own.apiKey, team.uuid, { firstName: 'Mallory', lastName: 'M', email: 'mallory@own.test', admin: true })).json();
        const malloryKey = (await createApiKeyForUser(t.ctx, mallory.uuid)).apiKey;
        // The owner's own team admin (the owner) leaves the team so Mallory is sole admin there.
        await call(t.app, own.apiKey, 'DELETE', `/api/v1/teams/${team.uuid}/users/${own.owner.uuid}`);
        const grab = await addMember(malloryKey, team.uuid, { firstName: 'O', lastName: 'O', email: own.owner.email });
        expectProblem(grab, 403, 'FORBIDDEN');
        // So she cannot touch the owner's hours either.
        expectProblem(
          await call(t.app, malloryKey, 'PUT', `/api/v1/users/${own.owner.uuid}/availability`, {
            timezone: 'UTC',
            weekly: { monday: [], tuesday: [], wednesday: [], thursday: [], friday: [], saturday: [], sunday: [] },
            overrides: [],
          }),
          403,
          'FORBIDDEN',
        );
        // A brand-new person she may add, as before.
        expect((await addMember(malloryKey, team.uuid, { firstName: 'Fresh', lastName: 'Takeover-Test', email: 'fresh@own.test' })).statusCode).toBe(201);
      });

      it("enrolling an existing member needs an admin of one of their teams or the owner: a plain member's team admin is refused with a clear detail, the owner is not", async () => {
        // Nina administers "Ops" only; Bob works in the owner's team; Zed works in Ops only.
        const own = await createTestAccount(t.ctx, { name: 'Enrol', maxUsers: 10 });
        const ops = (await call(t.app, own.apiKey, 'POST', '/api/v1/teams', { name: 'Ops' })).json();
        const nina = (await addMember(own.apiKey, ops.uuid, { firstName: 'Nina', lastName: 'Ops', email: 'nina@enrol.test', admin: true })).json();
        const ninaKey = (await createApiKeyForUser(t.ctx, nina.uuid)).apiKey;
        const bob = (await addMember(own.apiKey, own.team.uuid, { firstName: 'Bob', lastName: 'Main', email: 'bob@enrol.test' })).json();
        expect((await call(t.app, own.apiKey, 'DELETE', `/api/v1/teams/${ops.uuid}/users/${own.owner.uuid}`)).statusCode).toBe(204);
        const zed = (await addMember(ninaKey, ops.uuid, { firstName: 'Zed', lastName: 'Ops', email: 'zed@enrol.test' })).json();

        // Nina may not pull Bob (nor the owner) into Ops: she would then manage his connections and feed.
        for (const email of ['bob@enrol.test', own.owner.email]) {
          const refused = expectProblem(await addMember(ninaKey, ops.uuid, { firstName: 'X', lastName: 'Y', email }), 403, 'FORBIDDEN');
          expect(refused.detail).toContain("only an admin of one of their teams, or the account's owner, may add them");
        }
        expect((await call(t.app, own.apiKey, 'GET', `/api/v1/teams/${own.team.uuid}/users`)).json().users.map((user: { uuid: string }) => user.uuid)).toContain(bob.uuid);
        expect((await call(t.app, ninaKey, 'GET', `/api/v1/teams/${ops.uuid}/users`)).json().users.map((user: { uuid: string }) => user.uuid)).not.toContain(bob.uuid);
        // The owner, admin of no team Zed is in, may enrol Zed in the owner's team.
        const enrolled = await addMember(own.apiKey, own.team.uuid, { firstName: 'Z', lastName: 'Z', email: 'zed@enrol.test' });
        expect(enrolled.statusCode, enrolled.body).toBe(201);
        expect(enrolled.json()).toMatchObject({ uuid: zed.uuid, username: zed.username });
      });

      it('validates every field with JSON Pointer paths and rejects unknown fields', async () => {
        const response = await addMember(acme.apiKey, acme.team.uuid, { firstName: '', email: 'not-an-email', admin: 'yes', nickname: 'x' });
        const problem = expectProblem(response, 400, 'VALIDATION_FAILED');
        const paths = problem.errors!.map((error) => error.path).sort();
        expect(paths).toEqual(['/admin', '/email', '/firstName', '/lastName', '/nickname']);
      });

      it('rejects a malformed team uuid in the path as a validation error', async () => {
        const problem = expectProblem(await call(t.app, acme.apiKey, 'GET', '/api/v1/teams/not-a-uuid/users'), 400, 'VALIDATION_FAILED');
        expect(problem.errors![0]!.path).toBe('/params/teamUuid');
      });

      it("answers 404 for another account's team, and 403 for a team the caller does not administer", async () => {
        expectProblem(await call(t.app, acme.apiKey, 'GET', `/api/v1/teams/${other.team.uuid}/users`), 404, 'NOT_FOUND');
        expectProblem(await addMember(acme.apiKey, other.team.uuid, { firstName: 'X', lastName: 'Y', email: 'x@y.test' }), 404, 'NOT_FOUND');
        expectProblem(await call(t.app, acme.apiKey, 'DELETE', `/api/v1/teams/${other.team.uuid}/users/${other.owner.uuid}`), 404, 'NOT_FOUND');

        const member = await addMember(acme.apiKey, acme.team.uuid, { firstName: 'Non', lastName: 'Admin', email: 'nonadmin@acme.test' });
        const { createApiKeyForUser } = await import('../../src/scheduling/account/api-keys.js');
        const nonAdminKey = (await createApiKeyForUser(t.ctx, member.json().uuid)).apiKey;
        expectProblem(await call(t.app, nonAdminKey, 'GET', `/api/v1/teams/${acme.team.uuid}/users`), 403, 'FORBIDDEN');
        expectProblem(await addMember(nonAdminKey, acme.team.uuid, { firstName: 'X', lastName: 'Y', email: 'x@y.test' }), 403, 'FORBIDDEN');
        expect((await call(t.app, nonAdminKey, 'GET', '/api/v1/teams')).json()).toEqual({ teams: [], nextCursor: null });
      });
    });

    describe('DELETE /teams/{teamUuid}/users/{userUuid}', () => {
      it('refuses to remove the last admin with 409 LAST_ADMIN', async () => {
        const fresh = await createTestAccount(t.ctx);
        const problem = expectProblem(await call(t.app, fresh.apiKey, 'DELETE', `/api/v1/teams/${fresh.team.uuid}/users/${fresh.owner.uuid}`), 409, 'LAST_ADMIN');
        expect(problem.detail).toMatch(/admin/);
      });

      it('deactivates a user left in no team: seat freed, keys stop working, re-adding reactivates', async () => {
        const fresh = await createTestAccount(t.ctx, { maxUsers: 2 });
        const added = (await addMember(fresh.apiKey, fresh.team.uuid, { firstName: 'Temp', lastName: 'Worker', email: 'temp@fresh.test' })).json();
        const { createApiKeyForUser } = await import('../../src/scheduling/account/api-keys.js');
        const tempKey = (await createApiKeyForUser(t.ctx, added.uuid)).apiKey;
        expect((await call(t.app, tempKey, 'GET', '/api/v1/account')).statusCode).toBe(200);
        expectProblem(await addMember(fresh.apiKey, fresh.team.uuid, { firstName: 'No', lastName: 'Seat', email: 'noseat@fresh.test' }), 403, 'PLAN_LIMIT_REACHED');

        const removed = await call(t.app, fresh.apiKey, 'DELETE', `/api/v1/teams/${fresh.team.uuid}/users/${added.uuid}`);
        expect(removed.statusCode).toBe(204);
        expect(removed.body).toBe('');
        expectProblem(await call(t.app, tempKey, 'GET', '/api/v1/account'), 401, 'UNAUTHENTICATED');
        expect((await call(t.app, fresh.apiKey, 'GET', '/api/v1/account')).json().activeUsers).toBe(1);
        const list = (await call(t.app, fresh.apiKey, 'GET', `/api/v1/teams/${fresh.team.uuid}/users`)).json().users;
        expect(list.map((u: { uuid: string }) => u.uuid)).not.toContain(added.uuid);

        // The freed seat can be used, and then the plan is full again, for the deactivated user too.
        const newHire = (await addMember(fresh.apiKey, fresh.team.uuid, { firstName: 'New', lastName: 'Hire', email: 'new@fresh.test' })).json();
        expect(newHire.username).toBe('new-hire');
        expectProblem(await addMember(fresh.apiKey, fresh.team.uuid, { firstName: 'Temp', lastName: 'Worker', email: 'temp@fresh.test' }), 403, 'PLAN_LIMIT_REACHED');

        // Once a seat is free again the deactivated user comes back as themselves; their old key stays dead.
        expect((await call(t.app, fresh.apiKey, 'DELETE', `/api/v1/teams/${fresh.team.uuid}/users/${newHire.uuid}`)).statusCode).toBe(204);
        const back = await addMember(fresh.apiKey, fresh.team.uuid, { firstName: 'Temp', lastName: 'Worker', email: 'TEMP@fresh.test' });
        expect(back.statusCode).toBe(201);
        expect(back.json()).toMatchObject({ uuid: added.uuid, username: added.username });
        expectProblem(await call(t.app, tempKey, 'GET', '/api/v1/account'), 401, 'UNAUTHENTICATED');
      });

      it('answers 404 for a user who is not in the team', async () => {
        expectProblem(await call(t.app, acme.apiKey, 'DELETE', `/api/v1/teams/${acme.team.uuid}/users/${other.owner.uuid}`), 404, 'NOT_FOUND');
      });
    });

    describe('the plan limit under concurrency', () => {
      it('12 concurrent creations for 2 free seats give exactly 2 new users', async () => {
        const small = await createTestAccount(t.ctx, { maxUsers: 3 });
        const responses = await Promise.all(
          Array.from({ length: 12 }, (_, i) => addMember(small.apiKey, small.team.uuid, { firstName: 'Racer', lastName: `Number ${i}`, email: `racer${i}@small.test` })),
        );
        const statuses = responses.map((response) => response.statusCode).sort();
        expect(statuses.filter((status) => status === 201)).toHaveLength(2);
        expect(statuses.filter((status) => status === 403)).toHaveLength(10);
        for (const response of responses.filter((r) => r.statusCode === 403)) expectProblem(response, 403, 'PLAN_LIMIT_REACHED');
        expect((await call(t.app, small.apiKey, 'GET', '/api/v1/account')).json().activeUsers).toBe(3);
      });

      it('concurrent creations of one name get distinct usernames', async () => {
        const big = await createTestAccount(t.ctx, { maxUsers: 20 });
        const responses = await Promise.all(
          Array.from({ length: 8 }, (_, i) => addMember(big.apiKey, big.team.uuid, { firstName: 'Same', lastName: 'Name', email: `same${i}@big.test` })),
        );
        expect(responses.map((r) => r.statusCode)).toEqual(Array(8).fill(201));
        const usernames = responses.map((r) => r.json().username as string);
        expect(new Set(usernames).size).toBe(8);
        expect(usernames).toContain('same-name');
      });
    });
  });
}
