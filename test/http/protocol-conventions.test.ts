import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createContext } from '../../src/context.js';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, createTestDatabase, expectProblem, type TestApp } from '../helpers.js';

type Slot = { start: string; username: string };

for (const dialect of DIALECTS) {
  describe(`HTTP conventions: 405, Location, uuids, one-pass validation, wording [${dialect}]`, () => {
    let t: TestApp;
    let acme: CreatedAccount;
    let topic: { uuid: string };

    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'));
      acme = await createTestAccount(t.ctx);
      const created = await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Intro', durationMinutes: 30, places: ['offline'] });
      topic = created.json();
    });
    afterAll(async () => t.close());

    const firstSlot = async (): Promise<Slot> => {
      const body = (
        await call(t.app, null, 'POST', '/api/v1/calculate-schedule', { username: acme.owner.username, meetingTopic: topic.uuid, timezone: 'Europe/Warsaw', offset: 0 })
      ).json();
      return (body.days as { slots: Slot[] }[]).flatMap((day) => day.slots)[0]!;
    };

    it('answers a known path with the wrong method 405 and Allow, and an unknown path 404', async () => {
      const put = await call(t.app, acme.apiKey, 'PUT', '/api/v1/teams', { name: 'x' });
      expectProblem(put, 405, 'METHOD_NOT_ALLOWED');
      expect(put.headers.allow).toBe('GET, HEAD, POST');
      const deleteTopics = await call(t.app, acme.apiKey, 'DELETE', '/api/v1/meeting-topics');
      expectProblem(deleteTopics, 405, 'METHOD_NOT_ALLOWED');
      const item = await call(t.app, acme.apiKey, 'POST', `/api/v1/meeting-topics/${topic.uuid}`, {});
      expect(item.statusCode).toBe(405);
      expect(item.headers.allow).toBe('GET, HEAD, PATCH, DELETE');
      const calculate = await call(t.app, null, 'GET', '/api/v1/calculate-schedule');
      expect(calculate.statusCode).toBe(405);
      expect(calculate.headers.allow).toBe('POST');
      expectProblem(await call(t.app, acme.apiKey, 'GET', '/api/v1/no-such-thing'), 404, 'NOT_FOUND');
    });

    it('gives created resources a Location that answers', async () => {
      const created = await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Located', durationMinutes: 15, places: ['offline'] });
      expect(created.statusCode).toBe(201);
      expect(created.headers.location).toBe(`/api/v1/meeting-topics/${created.json().uuid}`);
      expect((await call(t.app, acme.apiKey, 'GET', String(created.headers.location))).json().name).toBe('Located');

      const member = await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, { firstName: 'Lo', lastName: 'Cation', email: 'lo@acme.test' });
      expect(member.headers.location).toBe(`/api/v1/teams/${acme.team.uuid}/users/${member.json().uuid}`);

      const booked = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
        dates: [await firstSlot()],
        email: 'jan@example.com',
        lang: 'en',
        name: 'Jan',
        place: 'offline',
        meetingTopic: topic.uuid,
        timezone: 'Europe/Warsaw',
      });
      expect(booked.statusCode).toBe(201);
      const meetingUuid = booked.json().meetings[0].uuid;
      expect(booked.headers.location).toBe(`/api/v1/meetings/${meetingUuid}`);
      expect((await call(t.app, acme.apiKey, 'GET', String(booked.headers.location))).json().uuid).toBe(meetingUuid);
      // Not a creation: no Location.
      expect((await call(t.app, acme.apiKey, 'GET', '/api/v1/teams')).headers.location).toBeUndefined();
    });

    it('finds records by upper-case uuids in paths, queries and bodies (RFC 9562), and refuses what is not a uuid', async () => {
      const upper = topic.uuid.toUpperCase();
      const got = await call(t.app, acme.apiKey, 'GET', `/api/v1/meeting-topics/${upper}`);
      expect(got.statusCode).toBe(200);
      expect(got.json().uuid).toBe(topic.uuid);
      const members = await call(t.app, acme.apiKey, 'GET', `/api/v1/teams/${acme.team.uuid.toUpperCase()}/users`);
      expect(members.statusCode).toBe(200);
      const listed = await call(t.app, acme.apiKey, 'GET', `/api/v1/meeting-topics?team=${acme.team.uuid.toUpperCase()}`);
      expect(listed.statusCode).toBe(200);
      const calculated = await call(t.app, null, 'POST', '/api/v1/calculate-schedule', {
        username: acme.owner.username,
        meetingTopic: upper,
        timezone: 'Europe/Warsaw',
        offset: 0,
      });
      expect(calculated.statusCode).toBe(200);
      expect(calculated.json().meetingTopic).toBe(topic.uuid);
      const cancelled = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
        dates: [await firstSlot()],
        email: 'up@example.com',
        lang: 'en',
        name: 'Up',
        place: 'offline',
        meetingTopic: upper,
        timezone: 'Europe/Warsaw',
      });
      expect(cancelled.statusCode).toBe(201);
      const meeting = cancelled.json().meetings[0].uuid as string;
      expect((await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${meeting.toUpperCase()}/cancel`)).json().status).toBe('cancelled');
      const urn = await call(t.app, acme.apiKey, 'GET', `/api/v1/meeting-topics/urn:uuid:${topic.uuid}`);
      expect(expectProblem(urn, 400, 'VALIDATION_FAILED').errors).toEqual([{ path: '/params/uuid', message: 'must be a valid uuid' }]);
    });

    it('reports an unknown time zone together with the other schema problems, in one answer', async () => {
      const problem = expectProblem(
        await call(t.app, null, 'POST', '/api/v1/calculate-schedule', { username: acme.owner.username, meetingTopic: topic.uuid, timezone: 'Mars/Olympus', offset: 3 }),
        400,
        'VALIDATION_FAILED',
      );
      expect(problem.errors).toEqual(
        expect.arrayContaining([
          { path: '/timezone', message: 'must be a valid IANA time zone' },
          { path: '/offset', message: 'must be multiple of 7' },
        ]),
      );
      expect(problem.errors).toHaveLength(2);
      expect(problem.detail).toMatch(/and 1 more problem/);
      const booking = expectProblem(
        await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
          dates: [],
          email: 'nope',
          lang: 'xx',
          name: 'N',
          place: 'offline',
          meetingTopic: topic.uuid,
          timezone: 'Europe/Nowhere',
        }),
        400,
        'VALIDATION_FAILED',
      );
      expect(booking.errors!.map((e) => e.path)).toEqual(expect.arrayContaining(['/timezone', '/email', '/lang']));
    });

    it('words details in the API’s terms, not the framework’s', async () => {
      const limit = expectProblem(await call(t.app, acme.apiKey, 'GET', '/api/v1/meetings?limit=ten'), 400, 'VALIDATION_FAILED');
      expect(limit.detail).toBe('Query parameter "limit" must be an integer');
      expect(limit.errors).toEqual([{ path: '/query/limit', message: 'must be integer' }]);
      const json = expectProblem(await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', '{"name": '), 400, 'VALIDATION_FAILED');
      expect(json.detail).toBe('The request body is not valid JSON');
      expect(json.detail).not.toMatch(/content-type|Body is not/);
    });

    it('puts X-Request-Id on every response: the client’s when sane, a new one otherwise', async () => {
      const own = await call(t.app, acme.apiKey, 'GET', '/api/v1/teams', undefined, { 'x-request-id': 'trace-42.a:b' });
      expect(own.headers['x-request-id']).toBe('trace-42.a:b');
      const generated = await call(t.app, acme.apiKey, 'GET', '/api/v1/teams');
      expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      const insane = await call(t.app, acme.apiKey, 'GET', '/api/v1/teams', undefined, { 'x-request-id': 'a b\u0001<script>' });
      expect(insane.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      for (const response of [
        await call(t.app, 'nope', 'GET', '/api/v1/teams'),
        await call(t.app, acme.apiKey, 'GET', '/api/v1/nothing'),
        await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', '{'),
        await t.app.inject({ method: 'GET', url: '/healthz' }),
      ]) {
        expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      }
    });
  });
}

describe('request ids in log lines', () => {
  it('writes the request id on the request’s log line, the client’s own when it sent one', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line));
        done();
      },
    });
    const database = await createTestDatabase('sqlite');
    const ctx = await createContext(database.config, { now: createClock().now, log: pino({ level: 'info' }, sink) });
    const app = await buildApp(ctx);
    try {
      const response = await app.inject({ method: 'GET', url: '/api/v1/teams', headers: { 'x-request-id': 'from-the-proxy-1' } });
      expect(response.statusCode).toBe(401);
      const other = await app.inject({ method: 'GET', url: '/healthz' });
      const requestLines = lines.filter((line) => line.msg === 'request');
      expect(requestLines.find((line) => line.url === '/api/v1/teams')).toMatchObject({ reqId: 'from-the-proxy-1', status: 401 });
      expect(requestLines.find((line) => line.url === '/healthz')).toMatchObject({ reqId: other.headers['x-request-id'] });
    } finally {
      await app.close();
      await ctx.close();
      await database.drop();
    }
  });
});
