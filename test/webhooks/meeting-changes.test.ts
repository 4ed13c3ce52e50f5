import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RenderedMessage } from '../../src/mail/message.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, runJobsCapturingMail, type TestApp } from '../helpers.js';
import { startReceiver, type Receiver } from '../net/receivers.js';
import { bookingBody, stringHeaders, verifyAt } from './helpers.js';

// A receiver that keeps its own copy of meetings: `meeting.rescheduled` tells it where the
// meeting was before (to move or replace its copy) and every record says when it last
// changed (to ignore a stale one that arrives late).

const START = '2027-01-04T08:00:00.000Z';
const HOUR = 60 * 60 * 1000;

/** A team topic's free slots from now on, of `username` alone. */
async function teamSlots(t: TestApp, team: string, topicUuid: string, username: string): Promise<string[]> {
  const starts: string[] = [];
  for (let offset = 0; offset < 28 && starts.length < 5; offset += 7) {
    const schedule = await call(t.app, null, 'POST', '/api/v1/calculate-schedule', { team, username, meetingTopic: topicUuid, timezone: 'Europe/Warsaw', offset });
    expect(schedule.statusCode).toBe(200);
    for (const day of (schedule.json() as { days: { slots: { start: string; username: string }[] }[] }).days) {
      starts.push(...day.slots.filter((s) => s.username === username).map((s) => s.start));
    }
  }
  return starts;
}

interface MeetingRecord {
  uuid: string;
  start: string;
  end: string;
  username: string;
  createdAt: string;
  updatedAt: string;
  previous?: { start: string; end: string; host: string };
}

for (const dialect of DIALECTS) {
  describe(`meeting changes in webhook payloads (${dialect})`, () => {
    let t: TestApp;
    let receiver: Receiver | undefined;
    const mail: RenderedMessage[] = [];

    beforeAll(async () => {
      t = await createTestApp(dialect, createClock(START), { ALLOW_PRIVATE_URLS: 'true' });
    });
    afterAll(async () => t.close());
    afterEach(async () => {
      await receiver?.close();
      receiver = undefined;
    });

    it('meeting.rescheduled carries the previous start, end and host; updatedAt moves with each change, in the API and the payloads alike', async () => {
      const acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['zoom'] });
      const added = await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, { firstName: 'Anna', lastName: 'Nowak', email: `anna.${dialect}@example.com` });
      expect(added.statusCode).toBe(201);
      const anna = added.json().username as string;
      const topic = await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', {
        name: 'Team intro',
        durationMinutes: 30,
        places: ['zoom'],
        team: acme.team.uuid,
        hosts: [acme.owner.username, anna],
      });
      expect(topic.statusCode).toBe(201);
      const topicUuid = topic.json().uuid as string;
      receiver = await startReceiver((_req, res) => res.writeHead(204).end());
      const webhook = await call(t.app, acme.apiKey, 'POST', '/api/v1/webhooks', {
        url: `${receiver.url}/copies`,
        events: ['meeting.scheduled', 'meeting.rescheduled', 'meeting.cancelled'],
      });
      expect(webhook.statusCode).toBe(201);
      const secret = webhook.json().secret as string;
      const received = () =>
        receiver!.requests.map((r) => verifyAt(Number(r.headers['webhook-timestamp']) * 1000, secret, r.body, stringHeaders(r.headers)) as { type: string; data: MeetingRecord });

      const [slot] = await teamSlots(t, acme.team.uuid, topicUuid, acme.owner.username);
      const booked = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
        ...bookingBody(topicUuid, { start: slot!, username: acme.owner.username }),
        team: acme.team.uuid,
      });
      expect(booked.statusCode).toBe(201);
      const meeting = booked.json().meetings[0] as MeetingRecord;
      expect(meeting.username).toBe(acme.owner.username);
      expect(meeting.updatedAt).toBe(START);
      await runJobsCapturingMail(t.ctx, mail);

      // An hour later it moves to Anna, at another time.
      t.clock.advance(HOUR);
      const movedAt = new Date(t.clock.now()).toISOString();
      const [annaSlot] = (await teamSlots(t, acme.team.uuid, topicUuid, anna)).filter((start) => start !== meeting.start);
      const moved = await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${meeting.uuid}/reschedule`, { start: annaSlot!, username: anna });
      expect(moved.statusCode).toBe(200);
      expect(moved.json()).toMatchObject({ username: anna, start: annaSlot!, createdAt: START, updatedAt: movedAt });
      await runJobsCapturingMail(t.ctx, mail);
      const shownAfterMove = (await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${meeting.uuid}`)).json() as MeetingRecord;
      expect(shownAfterMove.updatedAt).toBe(movedAt);

      t.clock.advance(HOUR);
      const cancelledAt = new Date(t.clock.now()).toISOString();
      expect((await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${meeting.uuid}/cancel`, { reason: 'Ill' })).statusCode).toBe(200);
      await runJobsCapturingMail(t.ctx, mail);
      const listed = (await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings?username=${acme.owner.username}&status=cancelled`)).json().meetings as MeetingRecord[];
      // Listed under whichever host the list filters by; found by uuid either way.
      const listedAnna = (await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings?username=${anna}&status=cancelled`)).json().meetings as MeetingRecord[];
      expect([...listed, ...listedAnna].find((m) => m.uuid === meeting.uuid)?.updatedAt).toBe(cancelledAt);

      const bodies = received();
      expect(bodies.map((b) => [b.type, b.data.updatedAt])).toEqual([
        ['meeting.scheduled', START],
        ['meeting.rescheduled', movedAt],
        ['meeting.cancelled', cancelledAt],
      ]);
      const rescheduled = bodies[1]!.data;
      expect(rescheduled.previous).toEqual({ start: meeting.start, end: meeting.end, host: acme.owner.username });
      // Otherwise the very record the API showed after the move.
      const { previous: _previous, ...record } = rescheduled;
      expect(record).toEqual(shownAfterMove);
      expect(bodies[0]!.data).not.toHaveProperty('previous');
      expect(bodies[2]!.data).not.toHaveProperty('previous');
    });
  });
}
