import ICAL from 'ical.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackgroundJobs, type BackgroundJobs } from '../../src/background.js';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { startRadicale, type RadicaleServer } from '../fakes/radicale.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, type TestApp, HAS_RADICALE } from '../helpers.js';
import { startTcpSwitch, type TcpSwitch } from './tcp-switch.js';

type Slot = { start: string; username: string };

describe.runIf(HAS_RADICALE)('meetings written into a CalDAV calendar (Radicale)', () => {
  let radicale: RadicaleServer;
  let radicalePort: number;

  beforeAll(async () => {
    radicale = await startRadicale();
    radicalePort = Number(new URL(radicale.baseUrl).port);
  });
  afterAll(async () => radicale?.stop());

  for (const dialect of DIALECTS) {
    describe(`[${dialect}]`, () => {
      let t: TestApp;
      let jobs: BackgroundJobs;
      let acme: CreatedAccount;
      let topic: { uuid: string };
      let tcp: TcpSwitch;
      let collection: string;
      let calendarUuid: string;

      beforeAll(async () => {
        t = await createTestApp(dialect, createClock('2027-03-01T06:00:00.000Z'), { ALLOW_PRIVATE_URLS: 'true' });
        jobs = startBackgroundJobs(t.ctx, { jobIntervalMs: 3_600_000, wakeOnBooking: false });
        acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw' });
        topic = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Consultation', durationMinutes: 30, places: ['zoom'] })).json();
        tcp = await startTcpSwitch(radicalePort);
        const direct = await radicale.createCalendar(`writes-${dialect}`);
        collection = `http://127.0.0.1:${tcp.port}${new URL(direct).pathname}`;
        const created = await call(t.app, acme.apiKey, 'POST', `/api/v1/users/${acme.owner.uuid}/calendars`, {
          type: 'caldav',
          url: collection,
          username: radicale.username,
          password: radicale.password,
          checkConflicts: true,
          writeMeetings: true,
        });
        expect(created.json()).toMatchObject({ status: 'ok', writeMeetings: true, checkConflicts: true });
        calendarUuid = created.json().uuid;
      });
      afterAll(async () => {
        await jobs?.stop();
        await tcp?.close();
        await t?.close();
      });

      const book = async (start: string) => {
        const response = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
          dates: [{ start, username: acme.owner.username }],
          email: 'jan@example.com',
          lang: 'en',
          name: 'Jan Kowalski',
          place: 'zoom',
          meetingTopic: topic.uuid,
          timezone: 'Europe/Warsaw',
        });
        expect(response.statusCode, response.body).toBe(201);
        return response.json().meetings[0] as { uuid: string; start: string; end: string };
      };
      /** The stored object, read straight from Radicale (not through termin). */
      const stored = async (meetingUuid: string) => {
        const response = await fetch(`${radicale.baseUrl}${radicale.username}/writes-${dialect}/${meetingUuid}@termin.ics`, {
          headers: { authorization: `Basic ${Buffer.from(`${radicale.username}:${radicale.password}`).toString('base64')}` },
        });
        if (response.status === 404) return null;
        expect(response.status).toBe(200);
        const event = new ICAL.Component(ICAL.parse(await response.text())).getFirstSubcomponent('vevent')!;
        return {
          uid: event.getFirstPropertyValue('uid'),
          start: (event.getFirstPropertyValue('dtstart') as ICAL.Time).toJSDate().toISOString(),
          end: (event.getFirstPropertyValue('dtend') as ICAL.Time).toJSDate().toISOString(),
          summary: event.getFirstPropertyValue('summary'),
          location: event.getFirstPropertyValue('location'),
        };
      };
      const offered = async (date: string) => {
        const body = (
          await call(t.app, null, 'POST', '/api/v1/calculate-schedule', { username: acme.owner.username, meetingTopic: topic.uuid, timezone: 'UTC', offset: 0 })
        ).json();
        return (body.days as { date: string; slots: Slot[] }[])
          .find((day) => day.date === date.slice(0, 10))!
          .slots.map((slot) => slot.start)
          .includes(date);
      };
      const calendar = async () => (await call(t.app, acme.apiKey, 'GET', `/api/v1/users/${acme.owner.uuid}/calendars`)).json().calendars[0];

      it("writes a booked meeting under the invitation's UID, and removes it on cancel", async () => {
        const meeting = await book('2027-03-02T09:00:00.000Z');
        expect(await stored(meeting.uuid)).toBeNull();
        await jobs.runOnce();
        expect(await stored(meeting.uuid)).toEqual({
          uid: `${meeting.uuid}@termin`,
          start: '2027-03-02T09:00:00.000Z',
          end: '2027-03-02T09:30:00.000Z',
          summary: 'Consultation: Jan Kowalski',
          location: 'Zoom',
        });

        // Read back by the sync, termin's own copy is not busy time on top of the meeting:
        // the cancelled meeting's slot is free again at once, before the copy is deleted.
        expect((await call(t.app, acme.apiKey, 'POST', `/api/v1/users/${acme.owner.uuid}/calendars/${calendarUuid}/sync`)).json().status).toBe('ok');
        expect(await offered('2027-03-02T09:00:00.000Z')).toBe(false);
        expect((await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${meeting.uuid}/cancel`, {})).json().status).toBe('cancelled');
        expect(await offered('2027-03-02T09:00:00.000Z')).toBe(true);

        await jobs.runOnce();
        expect(await stored(meeting.uuid)).toBeNull();
      });

      it('never fails a booking when the calendar server is down, and writes the meeting once it is back', async () => {
        tcp.down();
        const meeting = await book('2027-03-02T10:00:00.000Z');
        await jobs.runOnce();
        const job = await t.ctx.db.selectFrom('outbox').selectAll().where('kind', '=', 'calendar-write').where('status', '=', 'pending').executeTakeFirstOrThrow();
        expect(job.attempts).toBe(1);
        expect(job.last_error).toMatch(/Could not write an event to the CalDAV calendar/);
        expect(job.last_error).not.toContain(radicale.password);
        expect((await calendar()).lastWriteError).toMatch(/Could not write an event/);

        tcp.up();
        expect(await stored(meeting.uuid)).toBeNull();
        t.clock.advance(10 * 60_000);
        await jobs.runOnce();
        expect(await stored(meeting.uuid)).toMatchObject({ start: '2027-03-02T10:00:00.000Z', end: '2027-03-02T10:30:00.000Z' });
        expect((await t.ctx.db.selectFrom('outbox').select('status').where('id', '=', job.id).executeTakeFirstOrThrow()).status).toBe('done');
        expect((await calendar()).lastWriteError).toBeNull();
      });

      it('moves the written event on reschedule, keeping its UID', async () => {
        const meeting = await book('2027-03-03T09:00:00.000Z');
        await jobs.runOnce();
        expect(await stored(meeting.uuid)).toMatchObject({ start: '2027-03-03T09:00:00.000Z' });
        const moved = await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${meeting.uuid}/reschedule`, { start: '2027-03-04T11:00:00.000Z' });
        expect(moved.statusCode, moved.body).toBe(200);
        await jobs.runOnce();
        expect(await stored(meeting.uuid)).toMatchObject({ uid: `${meeting.uuid}@termin`, start: '2027-03-04T11:00:00.000Z', end: '2027-03-04T11:30:00.000Z' });
      });

      it("moves the event from one host's calendar to the other's when the meeting changes host", async () => {
        const colleague = (
          await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, {
            firstName: 'Carl',
            lastName: 'Colleague',
            email: `carl-${dialect}@example.com`,
            admin: false,
          })
        ).json();
        const direct = await radicale.createCalendar(`carl-${dialect}`);
        // The team admin connects the colleague's calendar.
        const connected = await call(t.app, acme.apiKey, 'POST', `/api/v1/users/${colleague.uuid}/calendars`, {
          type: 'caldav',
          url: direct,
          username: radicale.username,
          password: radicale.password,
          writeMeetings: true,
        });
        expect(connected.json().status).toBe('ok');
        const team = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Team call', durationMinutes: 30, team: acme.team.uuid, places: ['zoom'] })).json();
        const booked = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
          dates: [{ start: '2027-03-05T09:00:00.000Z', username: acme.owner.username }],
          email: 'jan@example.com',
          lang: 'en',
          name: 'Jan Kowalski',
          place: 'zoom',
          meetingTopic: team.uuid,
          team: acme.team.uuid,
          timezone: 'Europe/Warsaw',
        });
        expect(booked.statusCode, booked.body).toBe(201);
        const meetingUuid = booked.json().meetings[0].uuid as string;
        await jobs.runOnce();
        expect(await stored(meetingUuid)).toMatchObject({ start: '2027-03-05T09:00:00.000Z', summary: 'Team call: Jan Kowalski' });

        const moved = await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${meetingUuid}/reschedule`, { start: '2027-03-05T10:00:00.000Z', username: colleague.username });
        expect(moved.statusCode, moved.body).toBe(200);
        await jobs.runOnce();
        expect(await stored(meetingUuid)).toBeNull();
        const theirs = await fetch(new URL(`${meetingUuid}@termin.ics`, direct), {
          headers: { authorization: `Basic ${Buffer.from(`${radicale.username}:${radicale.password}`).toString('base64')}` },
        });
        expect(theirs.status).toBe(200);
        expect(await theirs.text()).toContain('DTSTART:20270305T100000Z');
      });

      it("writes a collective meeting into every host's calendar, and removes it from each on cancel", async () => {
        // The team is the owner and Carl (the test before): both calendars take meetings.
        const members = (await call(t.app, acme.apiKey, 'GET', `/api/v1/teams/${acme.team.uuid}/users`)).json().users as { username: string }[];
        const carl = members.find((member) => member.username !== acme.owner.username)!;
        const panel = (
          await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Panel', durationMinutes: 30, team: acme.team.uuid, places: ['zoom'], assignment: 'collective' })
        ).json();
        const booked = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
          dates: [{ start: '2027-03-08T09:00:00.000Z', username: carl.username }],
          email: 'jan@example.com',
          lang: 'en',
          name: 'Jan Kowalski',
          place: 'zoom',
          meetingTopic: panel.uuid,
          team: acme.team.uuid,
          timezone: 'Europe/Warsaw',
        });
        expect(booked.statusCode, booked.body).toBe(201);
        const meetingUuid = booked.json().meetings[0].uuid as string;
        const carls = async () =>
          (
            await fetch(`${radicale.baseUrl}${radicale.username}/carl-${dialect}/${meetingUuid}@termin.ics`, {
              headers: { authorization: `Basic ${Buffer.from(`${radicale.username}:${radicale.password}`).toString('base64')}` },
            })
          ).status;
        await jobs.runOnce();
        // The owner is not the host the date named, yet holds the meeting: it is in their calendar too.
        expect(await stored(meetingUuid)).toMatchObject({ start: '2027-03-08T09:00:00.000Z', summary: 'Panel: Jan Kowalski' });
        expect(await carls()).toBe(200);
        expect((await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${meetingUuid}/cancel`, {})).statusCode).toBe(200);
        await jobs.runOnce();
        expect(await stored(meetingUuid)).toBeNull();
        expect(await carls()).toBe(404);
      });
    });
  }
});
