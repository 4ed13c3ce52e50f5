import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RenderedMessage } from '../../src/mail/message.js';
import { createApiKeyForUser } from '../../src/scheduling/account/api-keys.js';
import { runMaintenance } from '../../src/scheduling/meetings/meetings.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, runJobsCapturingMail, type TestApp } from '../helpers.js';
import { startReceiver, type Receiver } from '../net/receivers.js';

const START = '2027-01-04T06:00:00.000Z';
const SLOT = '2027-01-06T08:00:00.000Z';

/** Requests a host approves: the slot held meanwhile, one decision of three, and the messages each sends. */
for (const dialect of DIALECTS) {
  describe(`approval [${dialect}]`, () => {
    let t: TestApp;
    let receiver: Receiver;
    const mail: RenderedMessage[] = [];
    beforeAll(async () => {
      t = await createTestApp(dialect, createClock(START), { ALLOW_PRIVATE_URLS: 'true' });
      receiver = await startReceiver((_req, res) => res.writeHead(204).end());
    });
    afterAll(async () => {
      await receiver.close();
      await t.close();
    });

    let counter = 0;
    const setUp = async (topicFields: Record<string, unknown> = {}) => {
      t.clock.set(START);
      counter += 1;
      const acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['offline'] });
      const path = `/hook-${counter}`;
      expect(
        (
          await call(t.app, acme.apiKey, 'POST', '/api/v1/webhooks', {
            url: `${receiver.url}${path}`,
            events: ['meeting.requested', 'meeting.approved', 'meeting.declined', 'meeting.confirmed', 'meeting.scheduled'],
          })
        ).statusCode,
      ).toBe(201);
      const topicResponse = await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', {
        name: 'Consultation',
        durationMinutes: 30,
        places: ['offline'],
        requiresApproval: true,
        ...topicFields,
      });
      expect(topicResponse.statusCode).toBe(201);
      const topic = topicResponse.json();
      const email = `participant${counter}@example.com`;
      const book = (start: string, lang = 'en', who = email) =>
        call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
          dates: [{ start, username: acme.owner.username }],
          email: who,
          lang,
          name: 'Jan Kowalski',
          place: 'offline',
          meetingTopic: topic.uuid,
          timezone: 'Europe/Warsaw',
        });
      const offered = async (start: string) => {
        const schedule = await call(t.app, null, 'POST', '/api/v1/calculate-schedule', {
          username: acme.owner.username,
          meetingTopic: topic.uuid,
          timezone: 'Europe/Warsaw',
          offset: 0,
        });
        return (schedule.json().days as { slots: { start: string }[] }[]).some((day) => day.slots.some((slot) => slot.start === start));
      };
      const hooks = () =>
        receiver.requests
          .filter((request) => request.url === path)
          .map((request) => JSON.parse(request.body) as { type: string; data: { uuid: string; status: string; declineReason: string | null } });
      const drain = async () => {
        mail.length = 0;
        await runJobsCapturingMail(t.ctx, mail);
        return mail.slice();
      };
      return { acme, topic, email, book, offered, hooks, drain };
    };

    it('a request holds its slot, tells the participant it was received, and approval sends the confirmation with the invitation', async () => {
      const { acme, topic, email, book, offered, hooks, drain } = await setUp();
      expect(topic).toMatchObject({ requiresApproval: true, approvalDeadlineHours: 24 });
      expect(await offered(SLOT)).toBe(true);
      const booked = await book(SLOT);
      expect(booked.statusCode).toBe(201);
      const request = booked.json().meetings[0];
      expect(request.status).toBe('pending_approval');
      // Held: not offered, and nobody else can take it.
      expect(await offered(SLOT)).toBe(false);
      expectProblem(await book(SLOT, 'en', 'other@example.com'), 409, 'SLOT_UNAVAILABLE');

      const received = await drain();
      const toParticipant = received.filter((message) => message.to.email === email);
      expect(toParticipant.map((message) => message.subject)).toEqual([expect.stringMatching(/^Request received: Consultation/)]);
      expect(toParticipant[0]!.text).toContain('Wednesday, January 6, 2027, 9:00');
      // The deadline: 24 hours after booking.
      expect(toParticipant[0]!.text).toContain('Jan 5, 2027, 7:00');
      expect(toParticipant[0]!.ics.content).toBe('');
      expect(received.filter((message) => message.to.email === acme.owner.email).map((message) => message.subject)).toEqual([
        'A request awaits your approval: Consultation with Jan Kowalski',
      ]);

      t.clock.set('2027-01-04T10:00:00.000Z');
      const approved = await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${request.uuid}/approve`);
      expect(approved.statusCode).toBe(200);
      expect(approved.json().status).toBe('confirmed');
      expect(await offered(SLOT)).toBe(false);
      // Approving again changes nothing.
      expect((await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${request.uuid}/approve`)).json().status).toBe('confirmed');

      const confirmations = (await drain()).filter((message) => message.to.email === email);
      expect(confirmations).toHaveLength(1);
      expect(confirmations[0]!.ics.method).toBe('REQUEST');
      expect(
        hooks()
          .map((body) => [body.type, body.data.status])
          .sort(),
      ).toEqual([
        ['meeting.approved', 'confirmed'],
        ['meeting.confirmed', 'confirmed'],
        ['meeting.requested', 'pending_approval'],
      ]);
      // A cancelled meeting can no longer be approved.
      expect((await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${request.uuid}/cancel`)).statusCode).toBe(200);
      expectProblem(await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${request.uuid}/approve`), 409, 'MEETING_STATE_CONFLICT');
    });

    it('a decline frees the slot and tells the participant the reason, in Polish; a declined request cannot be approved', async () => {
      const { acme, email, book, offered, hooks, drain } = await setUp();
      const request = (await book(SLOT, 'pl')).json().meetings[0];
      await drain();
      const declined = await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${request.uuid}/decline`, { reason: 'Urlop' });
      expect(declined.statusCode).toBe(200);
      expect(declined.json()).toMatchObject({ status: 'declined', declineReason: 'Urlop' });
      expect(await offered(SLOT)).toBe(true);
      expectProblem(await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${request.uuid}/approve`), 409, 'MEETING_STATE_CONFLICT');
      const told = (await drain()).filter((message) => message.to.email === email);
      expect(told.map((message) => message.subject)).toEqual([expect.stringMatching(/^Prośba odrzucona: Consultation/)]);
      expect(told[0]!.text).toContain('Powód: Urlop');
      expect(hooks().map((body) => [body.type, body.data.status, body.data.declineReason])).toEqual([
        ['meeting.requested', 'pending_approval', null],
        ['meeting.declined', 'declined', 'Urlop'],
      ]);
      // The slot is free again: someone else books it.
      expect((await book(SLOT, 'en', 'next@example.com')).statusCode).toBe(201);
    });

    it('left undecided, a request is declined at the earlier of its deadline and its start, "not approved in time"', async () => {
      const { acme, email, book, offered, drain } = await setUp({ approvalDeadlineHours: 3 });
      const request = (await book(SLOT)).json().meetings[0];
      // Starting within the 3 hours: its start is its deadline.
      const soon = (await book('2027-01-04T08:00:00.000Z', 'en', 'soon@example.com')).json().meetings[0];
      await drain();
      const status = async (uuid: string) => (await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${uuid}`)).json();

      t.clock.set('2027-01-04T07:59:59.999Z');
      await drain();
      expect((await status(soon.uuid)).status).toBe('pending_approval');
      t.clock.set('2027-01-04T08:00:00.000Z');
      await drain();
      expect(await status(soon.uuid)).toMatchObject({ status: 'declined', declineReason: 'not approved in time' });
      expect((await status(request.uuid)).status).toBe('pending_approval');
      expect(await offered(SLOT)).toBe(false);

      // At the deadline the slot is free and the request reads declined, before the sweeper ran.
      t.clock.set('2027-01-04T09:00:00.000Z');
      expect(await status(request.uuid)).toMatchObject({ status: 'declined', declineReason: 'not approved in time' });
      expect((await call(t.app, acme.apiKey, 'GET', '/api/v1/meetings?status=declined')).json().meetings.map((m: { uuid: string }) => m.uuid)).toEqual([soon.uuid, request.uuid]);
      expect(await offered(SLOT)).toBe(true);
      expectProblem(await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${request.uuid}/approve`), 409, 'MEETING_STATE_CONFLICT');
      const told = (await drain()).filter((message) => message.to.email === email);
      expect(told.map((message) => message.subject)).toEqual([expect.stringMatching(/^Request declined/)]);
      expect(told[0]!.text).toContain('Reason: not approved in time');
      expect(await status(request.uuid)).toMatchObject({ status: 'declined', declineReason: 'not approved in time' });
      // The sweeper declines once.
      expect((await drain()).filter((message) => message.to.email === email)).toEqual([]);
    });

    it('approve, decline and the deadline at once: exactly one wins, with one set of messages', async () => {
      for (const at of ['2027-01-05T05:59:59.999Z', '2027-01-05T06:00:00.000Z']) {
        const { acme, email, book, hooks, drain } = await setUp();
        const request = (await book(SLOT)).json().meetings[0];
        await drain();
        t.clock.set(at);
        const url = `/api/v1/meetings/${request.uuid}`;
        const [responses] = await Promise.all([
          Promise.all([
            ...Array.from({ length: 3 }, () => call(t.app, acme.apiKey, 'POST', `${url}/approve`)),
            ...Array.from({ length: 3 }, () => call(t.app, acme.apiKey, 'POST', `${url}/decline`, { reason: 'Busy' })),
          ]),
          runMaintenance(t.ctx),
          runMaintenance(t.ctx),
        ]);
        const final = (await call(t.app, acme.apiKey, 'GET', url)).json();
        const decisions = hooks().filter((body) => body.type === 'meeting.approved' || body.type === 'meeting.declined');
        const messages = (await drain()).filter((message) => message.to.email === email);
        const later = hooks().filter((body) => body.type === 'meeting.approved' || body.type === 'meeting.declined');
        expect(later).toHaveLength(1);
        expect(decisions.length).toBeLessThanOrEqual(1);
        // Every successful answer agrees with the outcome; every other is a conflict.
        for (const response of responses) {
          if (response.statusCode === 200) expect(response.json().status).toBe(final.status);
          else expect(response.json().code).toBe('MEETING_STATE_CONFLICT');
        }
        if (at === '2027-01-05T06:00:00.000Z') {
          expect(final).toMatchObject({ status: 'declined', declineReason: 'not approved in time' });
          expect(responses.every((response) => response.statusCode === 409 || response.json().status === 'declined')).toBe(true);
        }
        if (final.status === 'confirmed') {
          expect(later[0]!.type).toBe('meeting.approved');
          expect(messages.map((message) => message.ics.method)).toEqual(['REQUEST']);
        } else {
          expect(final.status).toBe('declined');
          expect(later[0]!.type).toBe('meeting.declined');
          expect(messages.map((message) => message.subject)).toEqual([expect.stringMatching(/^Request declined/)]);
        }
      }
    });

    it("a team topic's request: an admin of the team decides though neither host nor booker; a plain member may not", async () => {
      const { acme } = await setUp();
      const addMember = async (firstName: string) => {
        const member = (
          await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, {
            firstName,
            lastName: 'Team',
            email: `${firstName.toLowerCase()}${counter}@example.com`,
          })
        ).json();
        return { ...member, apiKey: (await createApiKeyForUser(t.ctx, member.uuid)).apiKey } as { uuid: string; username: string; apiKey: string };
      };
      const [bob, carl] = [await addMember('Bob'), await addMember('Carl')];
      const topic = (
        await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', {
          name: 'Team consult',
          durationMinutes: 30,
          places: ['offline'],
          team: acme.team.uuid,
          requiresApproval: true,
        })
      ).json();
      const booked = await call(t.app, carl.apiKey, 'POST', '/api/v1/schedule', {
        dates: [{ start: SLOT, username: bob.username }],
        email: 'team-request@example.com',
        lang: 'en',
        name: 'Jan Kowalski',
        place: 'offline',
        meetingTopic: topic.uuid,
        team: acme.team.uuid,
        timezone: 'Europe/Warsaw',
      });
      expect(booked.statusCode, booked.body).toBe(201);
      const request = booked.json().meetings[0];
      expect(request.status).toBe('pending_approval');
      const dana = await addMember('Dana');
      expectProblem(await call(t.app, dana.apiKey, 'POST', `/api/v1/meetings/${request.uuid}/approve`), 403, 'FORBIDDEN');
      const approved = await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${request.uuid}/approve`);
      expect(approved.statusCode).toBe(200);
      expect(approved.json().status).toBe('confirmed');
    });

    it("an admin of another team may not decide, neither the host's own topic's request nor another team topic's", async () => {
      const { acme, book } = await setUp();
      // Mia is an admin, but of "Front desk" only: neither the topic's team nor one the host is in.
      const frontDesk = (await call(t.app, acme.apiKey, 'POST', '/api/v1/teams', { name: 'Front desk' })).json();
      const mia = (
        await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${frontDesk.uuid}/users`, { firstName: 'Mia', lastName: 'Admin', email: `mia${counter}@example.com` })
      ).json();
      expect((await call(t.app, acme.apiKey, 'PATCH', `/api/v1/teams/${frontDesk.uuid}/users/${mia.uuid}`, { admin: true })).statusCode).toBe(200);
      const miaKey = (await createApiKeyForUser(t.ctx, mia.uuid)).apiKey;
      const teamTopic = (
        await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', {
          name: 'Team consult',
          durationMinutes: 30,
          places: ['offline'],
          team: acme.team.uuid,
          requiresApproval: true,
        })
      ).json();
      const own = (await book(SLOT)).json().meetings[0];
      const ofTeam = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
        dates: [{ start: '2027-01-06T10:00:00.000Z', username: acme.owner.username }],
        email: 'team-request@example.com',
        lang: 'en',
        name: 'Jan Kowalski',
        place: 'offline',
        meetingTopic: teamTopic.uuid,
        team: acme.team.uuid,
        timezone: 'Europe/Warsaw',
      });
      expect(ofTeam.statusCode, ofTeam.body).toBe(201);
      for (const request of [own, ofTeam.json().meetings[0]]) {
        expectProblem(await call(t.app, miaKey, 'POST', `/api/v1/meetings/${request.uuid}/approve`), 403, 'FORBIDDEN');
        expectProblem(await call(t.app, miaKey, 'POST', `/api/v1/meetings/${request.uuid}/decline`), 403, 'FORBIDDEN');
        expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${request.uuid}`)).json().status).toBe('pending_approval');
      }
    });

    it("a plain member's key that booked a request may not approve or decline it; a co-host and the owner (admin of no team of the topic) may", async () => {
      const { acme } = await setUp();
      // Carl, a plain member of the topic's team, books Bob's request with his own key.
      const addMember = async (teamUuid: string, firstName: string) => {
        const member = (
          await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${teamUuid}/users`, { firstName, lastName: 'Team', email: `${firstName.toLowerCase()}${counter}@example.com` })
        ).json();
        return { ...member, apiKey: (await createApiKeyForUser(t.ctx, member.uuid)).apiKey } as { uuid: string; username: string; apiKey: string };
      };
      const [bob, carl, cleo] = [await addMember(acme.team.uuid, 'Bob'), await addMember(acme.team.uuid, 'Carl'), await addMember(acme.team.uuid, 'Cleo')];
      const createTopic = async (topicFields: Record<string, unknown>) => {
        const topic = await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', {
          name: 'Team consult',
          durationMinutes: 30,
          places: ['offline'],
          team: acme.team.uuid,
          requiresApproval: true,
          ...topicFields,
        });
        expect(topic.statusCode, topic.body).toBe(201);
        return topic.json().uuid as string;
      };
      const bookWith = async (apiKey: string, topic: string, start: string) => {
        const booked = await call(t.app, apiKey, 'POST', '/api/v1/schedule', {
          dates: [{ start, username: bob.username }],
          email: 'self-approved@example.com',
          lang: 'en',
          name: 'Jan Kowalski',
          place: 'offline',
          meetingTopic: topic,
          team: acme.team.uuid,
          timezone: 'Europe/Warsaw',
        });
        expect(booked.statusCode, booked.body).toBe(201);
        return booked.json().meetings[0] as { uuid: string; status: string };
      };
      const bobsTopic = await createTopic({ hosts: [bob.username] });
      const request = await bookWith(carl.apiKey, bobsTopic, SLOT);
      expect(request.status).toBe('pending_approval');
      for (const action of ['approve', 'decline']) {
        const refused = expectProblem(await call(t.app, carl.apiKey, 'POST', `/api/v1/meetings/${request.uuid}/${action}`), 403, 'FORBIDDEN');
        expect(refused.detail).toContain("host, an admin of its topic's team, or the account's owner");
      }
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${request.uuid}`)).json().status).toBe('pending_approval');
      // The host decides.
      expect((await call(t.app, bob.apiKey, 'POST', `/api/v1/meetings/${request.uuid}/decline`, { reason: 'Busy' })).json().status).toBe('declined');

      // A collective request: a co-host decides though not the meeting's first host.
      const together = await bookWith(carl.apiKey, await createTopic({ hosts: [bob.username, cleo.username], assignment: 'collective' }), '2027-01-06T10:00:00.000Z');
      expectProblem(await call(t.app, carl.apiKey, 'POST', `/api/v1/meetings/${together.uuid}/approve`), 403, 'FORBIDDEN');
      expect((await call(t.app, cleo.apiKey, 'POST', `/api/v1/meetings/${together.uuid}/approve`)).json().status).toBe('confirmed');

      // The owner decides a team topic's request after leaving that team's admins (still admin of another team).
      const other = (await call(t.app, acme.apiKey, 'POST', '/api/v1/teams', { name: 'Back office' })).json();
      const dora = await addMember(other.uuid, 'Dora');
      expect((await call(t.app, acme.apiKey, 'PATCH', `/api/v1/teams/${acme.team.uuid}/users/${bob.uuid}`, { admin: true })).statusCode).toBe(200);
      expect((await call(t.app, acme.apiKey, 'DELETE', `/api/v1/teams/${acme.team.uuid}/users/${acme.owner.uuid}`)).statusCode).toBe(204);
      const third = await bookWith(bob.apiKey, bobsTopic, '2027-01-07T08:00:00.000Z');
      expectProblem(await call(t.app, dora.apiKey, 'POST', `/api/v1/meetings/${third.uuid}/approve`), 403, 'FORBIDDEN');
      expect((await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${third.uuid}/approve`)).json().status).toBe('confirmed');
    });

    it('only the host, an admin of the topic team or the owner decides; the topic fields are validated', async () => {
      const { acme, book } = await setUp();
      const request = (await book(SLOT)).json().meetings[0];
      const team = (await call(t.app, acme.apiKey, 'POST', '/api/v1/teams', { name: 'Front desk' })).json();
      const member = (await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${team.uuid}/users`, { firstName: 'Mia', lastName: 'Member', email: 'mia@example.com' })).json();
      const memberKey = (await createApiKeyForUser(t.ctx, member.uuid)).apiKey;
      expectProblem(await call(t.app, memberKey, 'POST', `/api/v1/meetings/${request.uuid}/approve`), 403, 'FORBIDDEN');
      expectProblem(await call(t.app, memberKey, 'POST', `/api/v1/meetings/${request.uuid}/decline`), 403, 'FORBIDDEN');
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${request.uuid}`)).json().status).toBe('pending_approval');
      const other = await createTestAccount(t.ctx, { places: ['offline'] });
      expectProblem(await call(t.app, other.apiKey, 'POST', `/api/v1/meetings/${request.uuid}/approve`), 404, 'NOT_FOUND');
      expectProblem(
        await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'X', durationMinutes: 30, places: ['offline'], requiresApproval: true, approvalDeadlineHours: 0 }),
        400,
        'VALIDATION_FAILED',
      );
    });
  });
}
