import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RenderedMessage } from '../../src/mail/message.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, runJobsCapturingMail, type TestApp } from '../helpers.js';

const START = '2027-01-04T06:00:00.000Z';
// Wednesday 09:00 in Warsaw, inside the default weekday hours.
const SLOT = '2027-01-06T08:00:00.000Z';

/** Group meetings: a slot offered until its seats are held, one meeting per participant. */
for (const dialect of DIALECTS) {
  describe(`seats [${dialect}]`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(dialect, createClock(START));
    });
    afterAll(async () => {
      await t.close();
    });

    const setUp = async (seats: number) => {
      t.clock.set(START);
      const acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['offline'] });
      const created = await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Workshop', durationMinutes: 60, places: ['offline'], seats });
      expect(created.statusCode).toBe(201);
      const topic = created.json() as { uuid: string; seats: number };
      const book = (start: string, who: string, meetingTopic = topic.uuid) =>
        call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
          dates: [{ start, username: acme.owner.username }],
          email: `${who}@example.com`,
          lang: 'en',
          name: who,
          place: 'offline',
          meetingTopic,
          timezone: 'Europe/Warsaw',
        });
      /** The slot at `start` as calculate-schedule shows it, or undefined when not offered. */
      const slotAt = async (start: string, meetingTopic = topic.uuid) => {
        const schedule = await call(t.app, null, 'POST', '/api/v1/calculate-schedule', { username: acme.owner.username, meetingTopic, timezone: 'Europe/Warsaw', offset: 0 });
        expect(schedule.statusCode).toBe(200);
        const days = schedule.json().days as { slots: { start: string; username: string; seatsLeft?: number }[] }[];
        return days.flatMap((day) => day.slots).find((slot) => slot.start === start);
      };
      return { acme, topic, book, slotAt };
    };

    it('offers a slot until its seats are held, each participant a meeting of their own', async () => {
      const { acme, topic, book, slotAt } = await setUp(3);
      expect(topic.seats).toBe(3);
      expect(await slotAt(SLOT)).toMatchObject({ seatsLeft: 3 });
      const first = await book(SLOT, 'ala');
      expect(first.statusCode).toBe(201);
      expect(await slotAt(SLOT)).toMatchObject({ seatsLeft: 2 });
      // The slot can go back to POST /schedule as it came, seatsLeft and all.
      const slot = (await slotAt(SLOT))!;
      const second = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
        dates: [slot],
        email: 'bartek@example.com',
        lang: 'en',
        name: 'Bartek',
        place: 'offline',
        meetingTopic: topic.uuid,
        timezone: 'Europe/Warsaw',
      });
      expect(second.statusCode).toBe(201);
      expect(await slotAt(SLOT)).toMatchObject({ seatsLeft: 1 });
      expect((await book(SLOT, 'celina')).statusCode).toBe(201);
      // Full: no longer offered, and a fourth participant is refused.
      expect(await slotAt(SLOT)).toBeUndefined();
      expectProblem(await book(SLOT, 'darek'), 409, 'SLOT_UNAVAILABLE');
      const meetings = [first, second].map((response) => response.json().meetings[0] as { uuid: string; start: string });
      expect(new Set(meetings.map((meeting) => meeting.uuid)).size).toBe(2);
      expect(meetings.map((meeting) => meeting.start)).toEqual([SLOT, SLOT]);
    });

    it('a cancel frees exactly one seat', async () => {
      const { acme, book, slotAt } = await setUp(2);
      const first = (await book(SLOT, 'ala')).json().meetings[0] as { uuid: string };
      expect((await book(SLOT, 'bartek')).statusCode).toBe(201);
      expect(await slotAt(SLOT)).toBeUndefined();
      expect((await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${first.uuid}/cancel`, { reason: 'Ill' })).statusCode).toBe(200);
      expect(await slotAt(SLOT)).toMatchObject({ seatsLeft: 1 });
      expect((await book(SLOT, 'celina')).statusCode).toBe(201);
      expectProblem(await book(SLOT, 'darek'), 409, 'SLOT_UNAVAILABLE');
    });

    it('gives the host one invitation of the group, updated as participants come and go', async () => {
      const { acme, book } = await setUp(5);
      const mail: RenderedMessage[] = [];
      const hostInvitations = async () => {
        mail.length = 0;
        await runJobsCapturingMail(t.ctx, mail);
        return mail.filter((message) => message.to.email === acme.owner.email).map((message) => message.ics);
      };
      const field = (ics: { content: string }, name: string) => ics.content.match(new RegExp(`^${name}[:;](.*)$`, 'm'))?.[1];
      const attendees = (ics: { content: string }) => [...ics.content.replace(/\r\n /g, '').matchAll(/^ATTENDEE.*mailto:(.+)$/gim)].map((match) => match[1]!.trim());

      const ala = (await book(SLOT, 'ala')).json().meetings[0] as { uuid: string };
      const [first] = await hostInvitations();
      expect(attendees(first!)).toEqual(['ala@example.com']);
      const uid = field(first!, 'UID');
      expect(uid).toMatch(/^group-/);

      expect((await book(SLOT, 'bartek')).statusCode).toBe(201);
      const [second] = await hostInvitations();
      expect(second!.method).toBe('REQUEST');
      expect(field(second!, 'UID')).toBe(uid);
      expect(Number(field(second!, 'SEQUENCE'))).toBeGreaterThan(Number(field(first!, 'SEQUENCE')));
      expect(attendees(second!)).toEqual(['ala@example.com', 'bartek@example.com']);

      // One participant cancels: the host's entry stays, without them; the participant's own is cancelled.
      expect((await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${ala.uuid}/cancel`, { reason: 'Ill' })).statusCode).toBe(200);
      const [third] = await hostInvitations();
      expect(mail.find((message) => message.to.email === 'ala@example.com')!.ics.method).toBe('CANCEL');
      expect(third!.method).toBe('REQUEST');
      expect(field(third!, 'UID')).toBe(uid);
      expect(Number(field(third!, 'SEQUENCE'))).toBeGreaterThan(Number(field(second!, 'SEQUENCE')));
      expect(attendees(third!)).toEqual(['bartek@example.com']);
    });

    it('moving a participant to another group frees their seat and takes one there; the host invitation of each group follows', async () => {
      const { acme, book, slotAt } = await setUp(2);
      const later = '2027-01-06T10:00:00.000Z';
      const ala = (await book(SLOT, 'ala')).json().meetings[0] as { uuid: string };
      const bartek = (await book(SLOT, 'bartek')).json().meetings[0] as { uuid: string };
      expect((await book(later, 'celina')).statusCode).toBe(201);
      const mail: RenderedMessage[] = [];
      await runJobsCapturingMail(t.ctx, mail);
      mail.length = 0;
      const moved = await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${ala.uuid}/reschedule`, { start: later });
      expect(moved.statusCode).toBe(200);
      expect(await slotAt(SLOT)).toMatchObject({ seatsLeft: 1 });
      expect(await slotAt(later)).toBeUndefined();
      // Now full: moving another participant into it is refused like any taken slot.
      expectProblem(await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${bartek.uuid}/reschedule`, { start: later }), 409, 'SLOT_UNAVAILABLE');
      await runJobsCapturingMail(t.ctx, mail);
      const hostIcs = mail.filter((message) => message.to.email === acme.owner.email).map((message) => message.ics.content.replace(/\r\n /g, ''));
      // Both groups' invitations: the one left lists Bartek alone, the one joined Celina and Ala.
      const listing = (ics: string) => [...ics.matchAll(/^ATTENDEE.*mailto:(.+)$/gim)].map((match) => match[1]!.trim()).sort();
      expect(hostIcs.map(listing).sort()).toEqual([['ala@example.com', 'celina@example.com'], ['bartek@example.com']]);
    });

    it('a group slot blocks the host for the slots it overlaps and for other topics', async () => {
      const { acme, book, slotAt } = await setUp(5);
      expect((await book(SLOT, 'ala')).statusCode).toBe(201);
      // 09:30 of the same topic would put the host in two groups at once.
      const halfPast = '2027-01-06T08:30:00.000Z';
      expect(await slotAt(halfPast)).toBeUndefined();
      const other = await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'One to one', durationMinutes: 30, places: ['offline'] });
      const otherUuid = other.json().uuid as string;
      expect(await slotAt(SLOT, otherUuid)).toBeUndefined();
      expectProblem(await book(SLOT, 'bartek', otherUuid), 409, 'SLOT_UNAVAILABLE');
      // A one-seat topic's slot shows no seatsLeft: its response is as before seats existed.
      expect(await slotAt('2027-01-06T10:00:00.000Z', otherUuid)).toEqual({ start: '2027-01-06T10:00:00.000Z', username: acme.owner.username });
    });

    it('twenty concurrent bookings of a five-seat slot confirm exactly five', async () => {
      const { topic, book } = await setUp(5);
      const statuses = await Promise.all(Array.from({ length: 20 }, (_, i) => book(SLOT, `p${i}`).then((response) => response.statusCode)));
      expect(statuses.filter((status) => status === 201)).toHaveLength(5);
      expect(statuses.filter((status) => status === 409)).toHaveLength(15);
      const stored = await t.ctx.db.selectFrom('meetings').select('id').where('topic_id', '=', topic.uuid).execute();
      expect(stored).toHaveLength(5);
    });

    it('changing the seats changes the offer at once', async () => {
      const { acme, topic, book, slotAt } = await setUp(2);
      expect((await book(SLOT, 'ala')).statusCode).toBe(201);
      expect(await slotAt(SLOT)).toMatchObject({ seatsLeft: 1 });
      expect((await call(t.app, acme.apiKey, 'PATCH', `/api/v1/meeting-topics/${topic.uuid}`, { seats: 10 })).statusCode).toBe(200);
      expect(await slotAt(SLOT)).toMatchObject({ seatsLeft: 9 });
      expect((await call(t.app, acme.apiKey, 'PATCH', `/api/v1/meeting-topics/${topic.uuid}`, { seats: 1 })).statusCode).toBe(200);
      expect(await slotAt(SLOT)).toBeUndefined();
    });

    it.each([0, 1001, 2.5])('refuses %s seats with a 400 and changes nothing', async (seats) => {
      const { acme, topic } = await setUp(2);
      expectProblem(await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Bad', durationMinutes: 60, places: ['offline'], seats }), 400, 'VALIDATION_FAILED');
      expectProblem(await call(t.app, acme.apiKey, 'PATCH', `/api/v1/meeting-topics/${topic.uuid}`, { seats }), 400, 'VALIDATION_FAILED');
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meeting-topics/${topic.uuid}`)).json().seats).toBe(2);
    });
  });
}
