import ICAL from 'ical.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectEventsOfSubject } from '../../src/db/repositories/events.js';
import type { RenderedMessage } from '../../src/mail/message.js';
import { createApiKeyForUser } from '../../src/scheduling/account/api-keys.js';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, runJobsCapturingMail, type TestApp } from '../helpers.js';

type Slot = { start: string; username: string };
const HOUR = 3_600_000;

/** The invitation's METHOD, UID and SEQUENCE, read with ical.js as a calendar would. */
function invitation(message: RenderedMessage) {
  const calendar = new ICAL.Component(ICAL.parse(message.ics.content));
  const event = calendar.getFirstSubcomponent('vevent')!;
  return {
    method: calendar.getFirstPropertyValue('method'),
    uid: event.getFirstPropertyValue('uid'),
    sequence: event.getFirstPropertyValue('sequence'),
    start: (event.getFirstPropertyValue('dtstart') as ICAL.Time).toJSDate().toISOString(),
  };
}

for (const dialect of DIALECTS) {
  describe(`POST /meetings/{uuid}/reschedule [${dialect}]`, () => {
    let t: TestApp;
    let acme: CreatedAccount;
    let topic: { uuid: string };
    const sent: RenderedMessage[] = [];

    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'));
      acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['offline', 'zoom'] });
      // An hour on a 15-minute grid: a move by a quarter of an hour stays inside the meeting's own span.
      topic = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Consult', durationMinutes: 60, slotIntervalMinutes: 15, places: ['zoom'] })).json();
    });
    afterAll(async () => t.close());

    const slots = async () => {
      const body = (
        await call(t.app, null, 'POST', '/api/v1/calculate-schedule', { username: acme.owner.username, meetingTopic: topic.uuid, timezone: 'Europe/Warsaw', offset: 0 })
      ).json();
      return (body.days as { slots: Slot[] }[]).flatMap((day) => day.slots);
    };
    const book = async (slot: Slot, email: string, lang = 'en') => {
      const response = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
        dates: [slot],
        email,
        lang,
        name: 'Jan Kowalski',
        place: 'zoom',
        meetingTopic: topic.uuid,
        timezone: 'Europe/Warsaw',
      });
      expect(response.statusCode).toBe(201);
      return response.json().meetings[0] as { uuid: string; start: string; end: string };
    };
    const move = (uuid: string, body: unknown, key = acme.apiKey) => call(t.app, key, 'POST', `/api/v1/meetings/${uuid}/reschedule`, body);
    const deliver = async () => {
      await runJobsCapturingMail(t.ctx, sent);
    };
    const freeSlotOn = async (day: string, hourUtc: number) => (await slots()).find((slot) => slot.start === `${day}T${String(hourUtc).padStart(2, '0')}:00:00.000Z`)!;

    it('moves to a free slot: same uuid and status, new start and end; the old time is free again and the new one taken', async () => {
      const meeting = await book(await freeSlotOn('2027-01-05', 8), 'move@example.com');
      const target = await freeSlotOn('2027-01-05', 12);
      const response = await move(meeting.uuid, { start: target.start });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({
        uuid: meeting.uuid,
        status: 'confirmed',
        start: target.start,
        end: new Date(Date.parse(target.start) + HOUR).toISOString(),
        username: acme.owner.username,
      });
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${meeting.uuid}`)).json().start).toBe(target.start);
      const offered = (await slots()).map((slot) => slot.start);
      expect(offered).toContain(meeting.start);
      expect(offered).not.toContain(target.start);
      // The history: meeting.scheduled, then meeting.rescheduled with where it was.
      const history = await selectEventsOfSubject(t.ctx.db, meeting.uuid);
      expect(history.map((event) => event.type)).toEqual(['meeting.scheduled', 'meeting.rescheduled']);
      expect(history[1]!.data).toMatchObject({ previous: { start: Date.parse(meeting.start), end: Date.parse(meeting.end), username: acme.owner.username } });
    });

    it('allows a move by 15 minutes into its own span (the meeting does not block itself), and refuses a taken or off-grid time', async () => {
      const meeting = await book(await freeSlotOn('2027-01-06', 9), 'shift@example.com');
      const later = new Date(Date.parse(meeting.start) + 15 * 60_000).toISOString();
      const response = await move(meeting.uuid, { start: later });
      expect(response.statusCode).toBe(200);
      expect(response.json().start).toBe(later);
      const other = await book(await freeSlotOn('2027-01-06', 13), 'other@example.com');
      const taken = expectProblem(await move(meeting.uuid, { start: other.start }), 409, 'SLOT_UNAVAILABLE');
      expect(taken.errors).toEqual([{ path: '/start', message: 'is not an available slot' }]);
      expectProblem(await move(meeting.uuid, { start: '2027-01-06T09:07:00.000Z' }), 409, 'SLOT_UNAVAILABLE');
      expectProblem(await move(meeting.uuid, { start: '2027-01-09T09:00:00.000Z' }), 409, 'SLOT_UNAVAILABLE'); // a Saturday
      expectProblem(await move(meeting.uuid, { start: 'tomorrow' }), 400, 'VALIDATION_FAILED');
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${meeting.uuid}`)).json().start).toBe(later);
    });

    it('of two concurrent moves into one slot, one wins and the other gets 409; never two meetings there', async () => {
      const a = await book(await freeSlotOn('2027-01-07', 8), 'race-a@example.com');
      const b = await book(await freeSlotOn('2027-01-07', 10), 'race-b@example.com');
      const target = await freeSlotOn('2027-01-07', 13);
      const results = await Promise.all([move(a.uuid, { start: target.start }), move(b.uuid, { start: target.start })]);
      expect(results.map((response) => response.statusCode).sort()).toEqual([200, 409]);
      const there = await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings?from=${target.start}&to=${new Date(Date.parse(target.start) + HOUR).toISOString()}&status=confirmed`);
      expect(there.json().meetings).toHaveLength(1);
    });

    it('moves only confirmed or pending meetings, only for those who may cancel them, only in the account', async () => {
      const meeting = await book(await freeSlotOn('2027-01-08', 8), 'rights@example.com');
      const target = await freeSlotOn('2027-01-08', 12);
      const other = await createTestAccount(t.ctx);
      expectProblem(await move(meeting.uuid, { start: target.start }, other.apiKey), 404, 'NOT_FOUND');
      const member = (await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, { firstName: 'Nia', lastName: 'Noadmin', email: 'nia@acme.test' })).json();
      const memberKey = (await createApiKeyForUser(t.ctx, member.uuid)).apiKey;
      expectProblem(await move(meeting.uuid, { start: target.start }, memberKey), 403, 'FORBIDDEN');
      expectProblem(await move(meeting.uuid, { start: target.start, username: 'ghost' }), 404, 'NOT_FOUND');
      await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${meeting.uuid}/cancel`, {});
      const cancelled = expectProblem(await move(meeting.uuid, { start: target.start }), 400, 'VALIDATION_FAILED');
      expect(cancelled.detail).toContain('cancelled');
    });

    it('sends both sides an updated invitation: same UID, SEQUENCE + 1, METHOD:REQUEST, the participant’s in their language', async () => {
      const meeting = await book(await freeSlotOn('2027-01-05', 10), 'ics@example.com', 'pl');
      await deliver();
      const target = await freeSlotOn('2027-01-05', 14);
      expect((await move(meeting.uuid, { start: target.start })).statusCode).toBe(200);
      sent.length = 0;
      await deliver();
      const toParticipant = sent.filter((message) => message.to.email === 'ics@example.com');
      const toHost = sent.filter((message) => message.to.email === acme.owner.email);
      expect(toParticipant).toHaveLength(1);
      expect(toHost).toHaveLength(1);
      for (const message of [...toParticipant, ...toHost]) {
        expect(invitation(message)).toEqual({ method: 'REQUEST', uid: `${meeting.uuid}@termin`, sequence: 1, start: target.start });
      }
      expect(toParticipant[0]!.subject).toMatch(/^Zmiana terminu: Consult/);
      expect(toParticipant[0]!.text).toContain('Poprzednio:');
      expect(toParticipant[0]!.text).toMatch(/\/booking\/[0-9a-f-]{36}\.[A-Za-z0-9_-]{32}/);
      expect(toHost[0]!.subject).toMatch(/^Booking moved: Consult/);
      // The host gets the same manage link: moving or cancelling for the participant is theirs to do too.
      expect(toHost[0]!.text).toMatch(/\/booking\/[0-9a-f-]{36}\.[A-Za-z0-9_-]{32}/);
    });
  });
}
