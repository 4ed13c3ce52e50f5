import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKeyForUser } from '../../src/scheduling/account/api-keys.js';
import { DIALECTS, call, createTestAccount, createTestApp, expectProblem, type TestApp } from '../helpers.js';

for (const dialect of DIALECTS) {
  describe(`meeting topics and availability [${dialect}]`, () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await createTestApp(dialect);
    });
    afterAll(async () => t.close());

    /** An account of the test's own, with Mia as a member of its first team, so no test sees another's topics, members or hours. */
    const setUp = async () => {
      const acme = await createTestAccount(t.ctx, { name: 'Acme', places: ['offline', 'phone-call', 'zoom'] });
      const created = (await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, { firstName: 'Mia', lastName: 'Member', email: 'mia@acme.test' })).json();
      const member = { uuid: created.uuid as string, username: created.username as string, key: (await createApiKeyForUser(t.ctx, created.uuid)).apiKey };
      return { acme, member };
    };
    const otherAccount = () => createTestAccount(t.ctx, { name: 'Other' });

    it('creates a topic with every default filled in', async () => {
      const { acme } = await setUp();
      const response = await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Intro call', durationMinutes: 45 });
      expect(response.statusCode).toBe(201);
      expect(response.json()).toMatchObject({
        name: 'Intro call',
        durationMinutes: 45,
        slotIntervalMinutes: 45,
        bufferBeforeMinutes: 0,
        bufferAfterMinutes: 0,
        minimumNoticeMinutes: 0,
        bookingWindowDays: 60,
        dailyLimit: null,
        places: ['offline', 'phone-call', 'zoom'],
        phoneRequired: false,
        price: null,
        priceVariants: [],
        form: [],
        team: null,
        hosts: [acme.owner.username],
        paid: false,
      });
      const fetched = await call(t.app, acme.apiKey, 'GET', `/api/v1/meeting-topics/${response.json().uuid}`);
      expect(fetched.json()).toEqual(response.json());
    });

    it('creates a paid team topic hosted by all team members, with variants and form', async () => {
      const { acme, member } = await setUp();
      const response = await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', {
        name: 'Consultation',
        durationMinutes: 60,
        slotIntervalMinutes: 15,
        bufferBeforeMinutes: 10,
        bufferAfterMinutes: 5,
        dailyLimit: 3,
        places: ['zoom', 'phone-call'],
        phoneRequired: true,
        price: { amount: 15000, currency: 'PLN' },
        priceVariants: [{ name: '90 min', price: { amount: 20000, currency: 'PLN' } }],
        form: [{ key: 'company', label: 'Company', required: true }],
        team: acme.team.uuid,
      });
      expect(response.statusCode).toBe(201);
      const topic = response.json();
      expect(topic).toMatchObject({ team: acme.team.uuid, paid: true, phoneRequired: true, dailyLimit: 3, form: [{ key: 'company', label: 'Company', required: true }] });
      expect(topic.hosts.sort()).toEqual([acme.owner.username, member.username].sort());
      expect(topic.priceVariants[0]).toMatchObject({ uuid: expect.stringMatching(/^[0-9a-f-]{36}$/), name: '90 min', price: { amount: 20000, currency: 'PLN' } });

      // Variants keep their uuid when sent back on update.
      const patched = await call(t.app, acme.apiKey, 'PATCH', `/api/v1/meeting-topics/${topic.uuid}`, {
        priceVariants: [...topic.priceVariants, { name: '30 min', price: { amount: 9000, currency: 'PLN' } }],
        bufferAfterMinutes: 15,
      });
      expect(patched.statusCode).toBe(200);
      expect(patched.json().priceVariants[0].uuid).toBe(topic.priceVariants[0].uuid);
      expect(patched.json().priceVariants).toHaveLength(2);
      expect(patched.json()).toMatchObject({ bufferAfterMinutes: 15, bufferBeforeMinutes: 10, name: 'Consultation' });
    });

    it('rejects places the account has not enabled and other invalid settings with paths', async () => {
      const { acme } = await setUp();
      const problem = expectProblem(
        await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', {
          name: 'Bad',
          durationMinutes: 3,
          places: ['webex'],
          price: { amount: 100, currency: 'pln' },
          form: [
            { key: 'a', label: 'A' },
            { key: 'a', label: 'B' },
          ],
          colour: 'red',
        }),
        400,
        'VALIDATION_FAILED',
      );
      const paths = problem.errors!.map((error) => error.path);
      expect(paths).toEqual(expect.arrayContaining(['/durationMinutes', '/price/currency', '/colour']));
      const semantic = expectProblem(
        await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', {
          name: 'Bad',
          durationMinutes: 30,
          places: ['webex'],
          form: [
            { key: 'a', label: 'A' },
            { key: 'a', label: 'B' },
          ],
        }),
        400,
        'VALIDATION_FAILED',
      );
      expect(semantic.errors).toEqual(
        expect.arrayContaining([
          { path: '/places/0', message: expect.stringContaining('not enabled for the account') },
          { path: '/form/1/key', message: 'duplicates an earlier field' },
        ]),
      );
      expect((await call(t.app, acme.apiKey, 'GET', '/api/v1/meeting-topics')).json().meetingTopics.map((t: { name: string }) => t.name)).not.toContain('Bad');
    });

    it('lets a member create topics hosted by themselves only, and not team topics', async () => {
      const { acme, member } = await setUp();
      const own = await call(t.app, member.key, 'POST', '/api/v1/meeting-topics', { name: 'Mia 1:1', durationMinutes: 30 });
      expect(own.statusCode).toBe(201);
      expect(own.json().hosts).toEqual([member.username]);
      expectProblem(await call(t.app, member.key, 'POST', '/api/v1/meeting-topics', { name: 'X', durationMinutes: 30, hosts: [acme.owner.username] }), 403, 'FORBIDDEN');
      expectProblem(await call(t.app, member.key, 'POST', '/api/v1/meeting-topics', { name: 'X', durationMinutes: 30, team: acme.team.uuid }), 403, 'FORBIDDEN');
      // The admin may name the member as host.
      const byAdmin = await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Mia demo', durationMinutes: 30, hosts: [member.username] });
      expect(byAdmin.json().hosts).toEqual([member.username]);
      const unknown = expectProblem(
        await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'X', durationMinutes: 30, hosts: ['nobody-here'] }),
        400,
        'VALIDATION_FAILED',
      );
      expect(unknown.errors).toEqual([{ path: '/hosts/0', message: 'is not an active user of the account' }]);
    });

    it('keeps topics per account: 404 across accounts, filtered lists, soft delete', async () => {
      const { acme, member } = await setUp();
      const other = await otherAccount();
      // Besides the owner's topic: one the member hosts alone, and one of the team.
      expect((await call(t.app, member.key, 'POST', '/api/v1/meeting-topics', { name: 'Mia 1:1', durationMinutes: 30 })).statusCode).toBe(201);
      expect((await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Consultation', durationMinutes: 60, team: acme.team.uuid })).statusCode).toBe(201);
      const topic = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Private', durationMinutes: 30 })).json();
      expectProblem(await call(t.app, other.apiKey, 'GET', `/api/v1/meeting-topics/${topic.uuid}`), 404, 'NOT_FOUND');
      expectProblem(await call(t.app, other.apiKey, 'PATCH', `/api/v1/meeting-topics/${topic.uuid}`, { name: 'Mine' }), 404, 'NOT_FOUND');
      expectProblem(await call(t.app, other.apiKey, 'DELETE', `/api/v1/meeting-topics/${topic.uuid}`), 404, 'NOT_FOUND');
      expect((await call(t.app, other.apiKey, 'GET', '/api/v1/meeting-topics')).json().meetingTopics).toEqual([]);

      const byMember = (await call(t.app, acme.apiKey, 'GET', `/api/v1/meeting-topics?username=${member.username}`)).json().meetingTopics;
      expect(byMember.length).toBeGreaterThan(0);
      expect(byMember.every((t: { hosts: string[] }) => t.hosts.includes(member.username))).toBe(true);
      const byTeam = (await call(t.app, acme.apiKey, 'GET', `/api/v1/meeting-topics?team=${acme.team.uuid}`)).json().meetingTopics;
      expect(byTeam.map((t: { name: string }) => t.name)).toEqual(['Consultation']);

      expect((await call(t.app, acme.apiKey, 'DELETE', `/api/v1/meeting-topics/${topic.uuid}`)).statusCode).toBe(204);
      expectProblem(await call(t.app, acme.apiKey, 'GET', `/api/v1/meeting-topics/${topic.uuid}`), 404, 'NOT_FOUND');
    });

    it('lets a team topic follow its team, newcomers included, unless it names its hosts', async () => {
      const { acme } = await setUp();
      const following = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Follows team', durationMinutes: 30, team: acme.team.uuid })).json();
      const fixed = (
        await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Fixed hosts', durationMinutes: 30, team: acme.team.uuid, hosts: [acme.owner.username] })
      ).json();
      expect([following.allTeamMembers, fixed.allTeamMembers]).toEqual([true, false]);
      const newcomer = (await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, { firstName: 'Nina', lastName: 'New', email: 'nina@acme.test' })).json();
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meeting-topics/${following.uuid}`)).json().hosts).toContain(newcomer.username);
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meeting-topics/${fixed.uuid}`)).json().hosts).toEqual([acme.owner.username]);
      const slots = await call(t.app, null, 'POST', '/api/v1/calculate-schedule', {
        username: newcomer.username,
        meetingTopic: following.uuid,
        team: acme.team.uuid,
        timezone: 'UTC',
        offset: 0,
      });
      expect(slots.statusCode).toBe(200);
      const byHost = (await call(t.app, acme.apiKey, 'GET', `/api/v1/meeting-topics?username=${newcomer.username}`))
        .json()
        .meetingTopics.map((topic: { name: string }) => topic.name);
      expect(byHost).toContain('Follows team');
      expect(byHost).not.toContain('Fixed hosts');
      // Naming hosts turns following off; following cannot be combined with a host list.
      const pinned = await call(t.app, acme.apiKey, 'PATCH', `/api/v1/meeting-topics/${following.uuid}`, { hosts: [newcomer.username] });
      expect(pinned.json()).toMatchObject({ allTeamMembers: false, hosts: [newcomer.username] });
      expectProblem(
        await call(t.app, acme.apiKey, 'PATCH', `/api/v1/meeting-topics/${following.uuid}`, { hosts: [newcomer.username], allTeamMembers: true }),
        400,
        'VALIDATION_FAILED',
      );
      expectProblem(await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Solo', durationMinutes: 30, allTeamMembers: true }), 400, 'VALIDATION_FAILED');
      const again = await call(t.app, acme.apiKey, 'PATCH', `/api/v1/meeting-topics/${following.uuid}`, { allTeamMembers: true });
      expect(again.json().allTeamMembers).toBe(true);
      expect(again.json().hosts).toEqual(expect.arrayContaining([acme.owner.username, newcomer.username]));
    });

    it('stops a member who leaves the team from hosting its team topics', async () => {
      const { acme } = await setUp();
      const joiner = (await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, { firstName: 'Leo', lastName: 'Leaver', email: 'leo@acme.test' })).json();
      const teamTopic = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Team sync', durationMinutes: 30, team: acme.team.uuid })).json();
      expect(teamTopic.hosts).toContain(joiner.username);
      // Leo stays in another team, so he is not deactivated, but he no longer hosts this team's topic.
      const support = (await call(t.app, acme.apiKey, 'POST', '/api/v1/teams', { name: 'Support' })).json();
      await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${support.uuid}/users`, { firstName: 'Leo', lastName: 'Leaver', email: 'leo@acme.test' });
      expect((await call(t.app, acme.apiKey, 'DELETE', `/api/v1/teams/${acme.team.uuid}/users/${joiner.uuid}`)).statusCode).toBe(204);
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meeting-topics/${teamTopic.uuid}`)).json().hosts).not.toContain(joiner.username);
      expectProblem(
        await call(t.app, null, 'POST', '/api/v1/calculate-schedule', {
          username: joiner.username,
          meetingTopic: teamTopic.uuid,
          team: acme.team.uuid,
          timezone: 'UTC',
          offset: 0,
        }),
        404,
        'NOT_FOUND',
      );
    });

    describe('availability', () => {
      it('starts as Monday–Friday 09:00–17:00 in the account zone', async () => {
        const { member } = await setUp();
        const response = await call(t.app, member.key, 'GET', `/api/v1/users/${member.uuid}/availability`);
        expect(response.statusCode).toBe(200);
        expect(response.json()).toEqual({
          timezone: 'Europe/Warsaw',
          weekly: {
            monday: [{ start: '09:00', end: '17:00' }],
            tuesday: [{ start: '09:00', end: '17:00' }],
            wednesday: [{ start: '09:00', end: '17:00' }],
            thursday: [{ start: '09:00', end: '17:00' }],
            friday: [{ start: '09:00', end: '17:00' }],
            saturday: [],
            sunday: [],
          },
          overrides: [],
        });
      });

      it("is replaced by PUT, sorted, and the zone becomes the user's", async () => {
        const { acme, member } = await setUp();
        const body = {
          timezone: 'America/New_York',
          weekly: {
            monday: [
              { start: '13:00', end: '24:00' },
              { start: '08:00', end: '12:00' },
            ],
            saturday: [{ start: '10:00', end: '14:00' }],
          },
          overrides: [
            { date: '2027-12-27', intervals: [{ start: '10:00', end: '12:00' }] },
            { date: '2027-12-24', intervals: [] },
          ],
        };
        const response = await call(t.app, acme.apiKey, 'PUT', `/api/v1/users/${member.uuid}/availability`, body);
        expect(response.statusCode).toBe(200);
        expect(response.json().weekly.monday).toEqual([
          { start: '08:00', end: '12:00' },
          { start: '13:00', end: '24:00' },
        ]);
        expect(response.json().weekly.tuesday).toEqual([]);
        expect(response.json().overrides.map((o: { date: string }) => o.date)).toEqual(['2027-12-24', '2027-12-27']);
        const members = (await call(t.app, acme.apiKey, 'GET', `/api/v1/teams/${acme.team.uuid}/users`)).json().users;
        expect(members.find((m: { uuid: string }) => m.uuid === member.uuid).timezone).toBe('America/New_York');
      });

      it('rejects overlapping or inverted intervals, bad zones and dates, and changes nothing', async () => {
        const { member } = await setUp();
        const saved = await call(t.app, member.key, 'PUT', `/api/v1/users/${member.uuid}/availability`, {
          timezone: 'America/New_York',
          weekly: { monday: [{ start: '08:00', end: '12:00' }] },
          overrides: [{ date: '2027-12-24', intervals: [] }],
        });
        expect(saved.statusCode).toBe(200);
        const problem = expectProblem(
          await call(t.app, member.key, 'PUT', `/api/v1/users/${member.uuid}/availability`, {
            timezone: 'Europe/Atlantis',
            weekly: {
              monday: [
                { start: '09:00', end: '12:00' },
                { start: '11:00', end: '13:00' },
              ],
              tuesday: [{ start: '15:00', end: '14:00' }],
            },
            overrides: [
              { date: '2027-12-24', intervals: [] },
              { date: '2027-12-24', intervals: [{ start: '10:00', end: '11:00' }] },
            ],
          }),
          400,
          'VALIDATION_FAILED',
        );
        expect(problem.errors).toEqual([
          { path: '/timezone', message: 'must be a valid IANA time zone' },
          { path: '/weekly/monday/1', message: 'overlaps /weekly/monday/0' },
          { path: '/weekly/tuesday/0', message: 'must start before it ends' },
          { path: '/overrides/1/date', message: 'duplicates an earlier override' },
        ]);
        const badDate = expectProblem(
          await call(t.app, member.key, 'PUT', `/api/v1/users/${member.uuid}/availability`, { timezone: 'UTC', weekly: {}, overrides: [{ date: '2027-02-30', intervals: [] }] }),
          400,
          'VALIDATION_FAILED',
        );
        expect(badDate.errors![0]!.path).toBe('/overrides/0/date');
        expectProblem(
          await call(t.app, member.key, 'PUT', `/api/v1/users/${member.uuid}/availability`, { timezone: 'UTC', weekly: { monday: [{ start: '9:00', end: '25:00' }] } }),
          400,
          'VALIDATION_FAILED',
        );
        const after = (await call(t.app, member.key, 'GET', `/api/v1/users/${member.uuid}/availability`)).json();
        expect(after.timezone).toBe('America/New_York');
        expect(after).toEqual(saved.json());
      });

      it('is private to the user and the admins of their teams', async () => {
        const { acme, member } = await setUp();
        const other = await otherAccount();
        expectProblem(await call(t.app, member.key, 'GET', `/api/v1/users/${acme.owner.uuid}/availability`), 403, 'FORBIDDEN');
        expectProblem(await call(t.app, other.apiKey, 'GET', `/api/v1/users/${member.uuid}/availability`), 404, 'NOT_FOUND');
      });
    });
  });
}
