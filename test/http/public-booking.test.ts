import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RenderedMessage } from '../../src/mail/message.js';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { findPublicTopicPage, listPublicTopicsOfHost } from '../../src/scheduling/booking/public-topics.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, runJobsCapturingMail, type TestApp } from '../helpers.js';

type Slot = { start: string; username: string };
const HOUR = 3_600_000;

for (const dialect of DIALECTS) {
  describe(`public booking and self-service [${dialect}]`, () => {
    let t: TestApp;
    let acme: CreatedAccount;
    let open: { uuid: string };
    let closed: { uuid: string };
    const sent: RenderedMessage[] = [];

    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'), { PUBLIC_BOOKING_RATE_PER_MINUTE: '6', PUBLIC_URL: 'https://book.example.com' });
      acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['offline', 'zoom'] });
      open = (
        await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', {
          name: 'Open consult',
          durationMinutes: 60,
          places: ['zoom'],
          public: true,
          description: 'Bring your questions.\nAnd your plans.',
          cancellationNoticeMinutes: 24 * 60,
          form: [{ key: 'company', label: 'Company', required: true }],
        })
      ).json();
      closed = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Internal', durationMinutes: 60, places: ['zoom'] })).json();
    });
    afterAll(async () => t.close());

    const slots = async (topicUuid = open.uuid) => {
      const body = (
        await call(t.app, null, 'POST', '/api/v1/calculate-schedule', { username: acme.owner.username, meetingTopic: topicUuid, timezone: 'Europe/Warsaw', offset: 0 })
      ).json();
      return (body.days as { slots: Slot[] }[]).flatMap((day) => day.slots);
    };
    const at = async (iso: string) => (await slots()).find((slot) => slot.start === iso)!;
    const body = (slot: Slot, extra: Record<string, unknown> = {}) => ({
      dates: [slot],
      email: 'ola@example.com',
      lang: 'pl',
      name: 'Ola Nowak',
      place: 'zoom',
      meetingTopic: open.uuid,
      timezone: 'Europe/Warsaw',
      form: { company: 'ACME' },
      ...extra,
    });
    const publicBook = (payload: unknown, ip = '10.0.0.1') =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/public/schedule',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        payload: JSON.stringify(payload),
        remoteAddress: ip,
      });
    const meetingsCount = async () =>
      Number(
        (
          await t.ctx.db
            .selectFrom('meetings')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const deliver = async () => {
      await runJobsCapturingMail(t.ctx, sent);
    };
    /** Books publicly and returns the manage token from the participant's confirmation e-mail. */
    const bookAndToken = async (slot: Slot, email: string, ip: string) => {
      const response = await publicBook(body(slot, { email }), ip);
      expect(response.statusCode).toBe(201);
      await deliver();
      const confirmation = sent.filter((message) => message.to.email === email).at(-1)!;
      const link = /https:\/\/book\.example\.com\/booking\/(\S+)/.exec(confirmation.text);
      expect(link).not.toBeNull();
      return { meeting: response.json().meetings[0] as { uuid: string; start: string }, token: link![1]! };
    };

    it('keeps description, public and cancellationNoticeMinutes on topics, with defaults', async () => {
      expect(closed).toMatchObject({ description: '', public: false, cancellationNoticeMinutes: 0 });
      expect(open).toMatchObject({ description: 'Bring your questions.\nAnd your plans.', public: true, cancellationNoticeMinutes: 1440 });
      const patched = await call(t.app, acme.apiKey, 'PATCH', `/api/v1/meeting-topics/${closed.uuid}`, { description: 'Staff only', cancellationNoticeMinutes: 30 });
      expect(patched.json()).toMatchObject({ description: 'Staff only', public: false, cancellationNoticeMinutes: 30 });
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meeting-topics/${closed.uuid}`)).json()).toMatchObject({ description: 'Staff only', cancellationNoticeMinutes: 30 });
      const bad = expectProblem(await call(t.app, acme.apiKey, 'PATCH', `/api/v1/meeting-topics/${closed.uuid}`, { cancellationNoticeMinutes: -1 }), 400, 'VALIDATION_FAILED');
      expect(bad.errors!.map((error) => error.path)).toEqual(['/cancellationNoticeMinutes']);
    });

    it('books a public topic without a key (no booking key recorded); a private topic is 404, a filled honeypot or metadata 400, nothing stored', async () => {
      const slot = await at('2027-01-05T09:00:00.000Z');
      const before = await meetingsCount();
      expectProblem(await publicBook(body(slot, { meetingTopic: closed.uuid })), 404, 'NOT_FOUND');
      const honeypot = expectProblem(await publicBook(body(slot, { website: 'http://spam.example' })), 400, 'VALIDATION_FAILED');
      expect(honeypot.errors!.map((error) => error.path)).toEqual(['/website']);
      expectProblem(await publicBook(body(slot, { metadata: { crm: 1 } })), 400, 'VALIDATION_FAILED');
      // A locale of another language than the messages' (their words are in `lang`) or no tag at all.
      const foreign = expectProblem(await publicBook(body(slot, { lang: 'en', locale: 'pl-PL' })), 400, 'VALIDATION_FAILED');
      expect(foreign.errors).toEqual([expect.objectContaining({ path: '/locale', message: expect.stringContaining('language in lang (en)') })]);
      expectProblem(await publicBook(body(slot, { locale: '12 hours please' })), 400, 'VALIDATION_FAILED');
      expect(await meetingsCount()).toBe(before);
      const response = await publicBook(body(slot, { website: '', lang: 'en', locale: 'en-GB-u-hc-h12-x-private' }), '10.0.0.2');
      expect(response.statusCode).toBe(201);
      const meeting = response.json().meetings[0];
      expect(meeting).toMatchObject({ start: slot.start, status: 'confirmed', metadata: {}, form: { company: 'ACME' } });
      const row = await t.ctx.db.selectFrom('meetings').select('booked_by_key_id').where('id', '=', meeting.uuid).executeTakeFirstOrThrow();
      expect(row.booked_by_key_id).toBeNull();
      // Only the language, region and hour cycle are kept; the record the API shows has no locale.
      const kept = await t.ctx.db.selectFrom('meetings').select('participant_locale').where('id', '=', meeting.uuid).executeTakeFirstOrThrow();
      expect(kept.participant_locale).toBe('en-GB-u-hc-h12');
      expect(meeting.participant).not.toHaveProperty('locale');
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${meeting.uuid}`)).statusCode).toBe(200);
      expectProblem(await publicBook(body(slot), '10.0.0.2'), 409, 'SLOT_UNAVAILABLE');
    });

    it('limits bookings per client address (429 with Retry-After), other addresses unaffected', async () => {
      const slot = await at('2027-01-05T10:00:00.000Z');
      const codes: number[] = [];
      for (let i = 0; i < 7; i += 1) codes.push((await publicBook(body(slot, { meetingTopic: closed.uuid }), '10.9.9.9')).statusCode);
      expect(codes).toEqual([404, 404, 404, 404, 404, 404, 429]);
      const limited = await publicBook(body(slot), '10.9.9.9');
      expectProblem(limited, 429, 'RATE_LIMITED');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect((await publicBook(body(slot), '10.9.9.10')).statusCode).toBe(201);
    });

    it('counts requests refused before the handler (malformed JSON, schema failures, wrong media type) toward the address’s limit: a bot sending junk is throttled too', async () => {
      const slot = await at('2027-01-05T13:00:00.000Z');
      const bot = '10.66.0.1';
      const junk = [
        { 'content-type': 'application/json', payload: '{"dates": [{"start": "2027-01-05T13:00:00.000Z"' },
        { 'content-type': 'application/json', payload: JSON.stringify({ dates: 'soon', email: 'not an address' }) },
        { 'content-type': 'text/plain', payload: 'book me' },
      ];
      const sendJunk = (i: number) =>
        t.app.inject({
          method: 'POST',
          url: '/api/v1/public/schedule',
          headers: { accept: 'application/json', 'content-type': junk[i % 3]!['content-type'] },
          payload: junk[i % 3]!.payload,
          remoteAddress: bot,
        });
      const before = await meetingsCount();
      const statuses: number[] = [];
      for (let i = 0; i < 7; i += 1) statuses.push((await sendJunk(i)).statusCode);
      // The limit is 6 a minute: the seventh piece of junk is already refused as too many.
      expect(statuses).toEqual([400, 400, 415, 400, 400, 415, 429]);
      // And a well-formed booking from that address must wait too…
      const limited = expectProblem(await publicBook(body(slot, { email: 'bot@example.com' }), bot), 429, 'RATE_LIMITED');
      expect(limited.detail).toContain('at most 6 a minute');
      const retryAfter = Number((await publicBook(body(slot, { email: 'bot@example.com' }), bot)).headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(await meetingsCount()).toBe(before);
      // …until the Retry-After it was given has passed.
      t.clock.advance(retryAfter * 1000);
      try {
        expect((await publicBook(body(slot, { email: 'bot@example.com' }), bot)).statusCode).toBe(201);
      } finally {
        t.clock.set('2027-01-04T06:00:00.000Z');
      }
    });

    it('puts a manage link in the confirmation; the token shows the booking, a forged one is 404', async () => {
      const { meeting, token } = await bookAndToken(await at('2027-01-07T09:00:00.000Z'), 'manage@example.com', '10.1.0.1');
      const managed = await call(t.app, null, 'GET', `/api/v1/public/bookings/${token}`);
      expect(managed.statusCode).toBe(200);
      expect(managed.json()).toEqual({
        meeting: expect.objectContaining({ uuid: meeting.uuid, start: meeting.start, status: 'confirmed' }),
        topic: { uuid: open.uuid, name: 'Open consult', description: 'Bring your questions.\nAnd your plans.', durationMinutes: 60, cancellationNoticeMinutes: 1440 },
        hostName: 'Olga Owner',
        canChange: true,
        changeDeadline: new Date(Date.parse(meeting.start) - 24 * HOUR).toISOString(),
      });
      expect(managed.json().meeting).not.toHaveProperty('metadata');
      const mac = token.split('.')[1]!;
      const forged = `${token.split('.')[0]}.${mac[0] === 'A' ? 'B' : 'A'}${mac.slice(1)}`;
      expectProblem(await call(t.app, null, 'GET', `/api/v1/public/bookings/${forged}`), 404, 'NOT_FOUND');
      expectProblem(await call(t.app, null, 'GET', `/api/v1/public/bookings/${meeting.uuid}`), 404, 'NOT_FOUND');
      expectProblem(await call(t.app, null, 'POST', `/api/v1/public/bookings/${forged}/cancel`, {}), 404, 'NOT_FOUND');
    });

    it('answers a public booking with the manage link the e-mail carries, and serves the meeting as an .ics download by it', async () => {
      const slot = await at('2027-01-08T09:00:00.000Z');
      const response = await publicBook(body(slot, { email: 'ics@example.com' }), '10.7.0.1');
      expect(response.statusCode).toBe(201);
      const booked = response.json() as { meetings: { uuid: string }[]; manageUrls: string[] };
      await deliver();
      const mailed = /https:\/\/book\.example\.com\/booking\/\S+/.exec(sent.filter((message) => message.to.email === 'ics@example.com').at(-1)!.text)![0];
      expect(booked.manageUrls).toEqual([mailed]);
      const token = mailed.split('/booking/')[1]!;

      const ics = await t.app.inject({ method: 'GET', url: `/booking/${token}/invitation.ics` });
      expect(ics.statusCode).toBe(200);
      expect(ics.headers['content-type']).toBe('text/calendar; charset=utf-8');
      expect(ics.headers['content-disposition']).toBe('attachment; filename="invitation.ics"');
      const unfolded = ics.body.replace(/\r\n /g, '');
      expect(unfolded).toContain(`UID:${booked.meetings[0]!.uuid}@termin`);
      expect(unfolded).toContain('DTSTART:20270108T090000Z');
      expect(unfolded).toContain('DTEND:20270108T100000Z');
      expect(unfolded).toContain('SUMMARY:Open consult: Olga Owner');
      expect(unfolded).toContain(`URL;VALUE=URI:${mailed}`);
      expect(unfolded).toContain('STATUS:CONFIRMED');
      const forged = `${booked.meetings[0]!.uuid}.${'A'.repeat(32)}`;
      expect((await t.app.inject({ method: 'GET', url: `/booking/${forged}/invitation.ics` })).statusCode).toBe(404);
    });

    it('lets the participant move the meeting to a slot of its own calendar (itself not blocking), and tells the host', async () => {
      const { meeting, token } = await bookAndToken(await at('2027-01-08T08:00:00.000Z'), 'mover@example.com', '10.1.0.2');
      const calendar = await call(t.app, null, 'POST', `/api/v1/public/bookings/${token}/calculate-schedule`, { timezone: 'Europe/Warsaw', offset: 0 });
      expect(calendar.statusCode).toBe(200);
      const offered = (calendar.json().days as { slots: Slot[] }[]).flatMap((day) => day.slots);
      // Its own time and the quarter-hours inside it are offered here, not in the public calendar.
      expect(offered.map((slot) => slot.start)).toContain(meeting.start);
      expect((await slots()).map((slot) => slot.start)).not.toContain(meeting.start);
      const target = offered.find((slot) => slot.start === '2027-01-08T12:00:00.000Z')!;
      sent.length = 0;
      const moved = await call(t.app, null, 'POST', `/api/v1/public/bookings/${token}/reschedule`, { start: target.start, username: target.username });
      expect(moved.statusCode).toBe(200);
      expect(moved.json()).toMatchObject({ uuid: meeting.uuid, start: target.start });
      await deliver();
      expect(sent.filter((message) => message.to.email === acme.owner.email).map((message) => message.subject)).toEqual([expect.stringMatching(/^Booking moved: Open consult/)]);
      expectProblem(await call(t.app, null, 'POST', `/api/v1/public/bookings/${token}/reschedule`, { start: '2027-01-09T12:00:00.000Z' }), 409, 'SLOT_UNAVAILABLE');
    });

    it('lets the participant cancel until the notice window, then refuses with 403; an ended meeting’s link is 404', async () => {
      const { meeting, token } = await bookAndToken(await at('2027-01-06T09:00:00.000Z'), 'canceller@example.com', '10.1.0.3');
      const late = await bookAndToken(await at('2027-01-06T11:00:00.000Z'), 'late@example.com', '10.1.0.4');
      // One minute inside the second meeting's 24-hour notice.
      t.clock.set(Date.parse(late.meeting.start) - 24 * HOUR + 60_000);
      const tooLate = expectProblem(await call(t.app, null, 'POST', `/api/v1/public/bookings/${late.token}/cancel`, { reason: 'Sick' }), 403, 'FORBIDDEN');
      expect(tooLate.detail).toContain(new Date(Date.parse(late.meeting.start) - 24 * HOUR).toISOString());
      expect((await call(t.app, null, 'GET', `/api/v1/public/bookings/${late.token}`)).json().canChange).toBe(false);
      expectProblem(await call(t.app, null, 'POST', `/api/v1/public/bookings/${late.token}/reschedule`, { start: '2027-01-08T14:00:00.000Z' }), 403, 'FORBIDDEN');
      // The first meeting is two hours earlier: its window closed too.
      expectProblem(await call(t.app, null, 'POST', `/api/v1/public/bookings/${token}/cancel`, {}), 403, 'FORBIDDEN');
      t.clock.set('2027-01-04T06:00:00.000Z');
      sent.length = 0;
      const cancelled = await call(t.app, null, 'POST', `/api/v1/public/bookings/${token}/cancel`, { reason: 'Plans changed' });
      expect(cancelled.statusCode).toBe(200);
      expect(cancelled.json()).toMatchObject({ uuid: meeting.uuid, status: 'cancelled', cancelReason: 'Plans changed' });
      await deliver();
      const toHost = sent.filter((message) => message.to.email === acme.owner.email);
      expect(toHost.map((message) => message.ics.method)).toEqual(['CANCEL']);
      expect(toHost[0]!.text).toContain('Plans changed');
      expect((await call(t.app, null, 'GET', `/api/v1/public/bookings/${token}`)).json()).toMatchObject({ canChange: false, meeting: { status: 'cancelled' } });
      // After the meeting's end the link no longer works.
      t.clock.set(Date.parse(late.meeting.start) + HOUR);
      expectProblem(await call(t.app, null, 'GET', `/api/v1/public/bookings/${late.token}`), 404, 'NOT_FOUND');
      t.clock.set('2027-01-04T06:00:00.000Z');
    });

    it('keeps the manage link working until the meeting ends, during it too (changes closed, so 403, not 404); from the end it is 404, API and page alike', async () => {
      const { meeting, token } = await bookAndToken(await at('2027-01-07T13:00:00.000Z'), 'during@example.com', '10.1.0.9');
      const start = Date.parse(meeting.start);
      const end = start + HOUR;
      const api = () => call(t.app, null, 'GET', `/api/v1/public/bookings/${token}`);
      const page = () => t.app.inject({ method: 'GET', url: `/booking/${token}`, headers: { accept: 'text/html' } });
      try {
        for (const now of [start, start + 30 * 60_000, end - 60_000]) {
          t.clock.set(now);
          const when = new Date(now).toISOString();
          const managed = await api();
          expect(managed.statusCode, when).toBe(200);
          expect(managed.json(), when).toMatchObject({ meeting: { uuid: meeting.uuid, status: 'confirmed' }, canChange: false });
          const shown = await page();
          expect(shown.statusCode, when).toBe(200);
          expect(shown.body, when).toContain('Open consult');
          // The link still works: the participant is told why they cannot cancel now, not that the booking is gone.
          expectProblem(await call(t.app, null, 'POST', `/api/v1/public/bookings/${token}/cancel`, {}), 403, 'FORBIDDEN');
        }
        for (const now of [end, end + 60_000, end + 24 * HOUR]) {
          t.clock.set(now);
          expectProblem(await api(), 404, 'NOT_FOUND');
          const gone = await page();
          expect(gone.statusCode, new Date(now).toISOString()).toBe(404);
          expect(gone.body).not.toContain('Open consult');
          expectProblem(await call(t.app, null, 'POST', `/api/v1/public/bookings/${token}/cancel`, {}), 404, 'NOT_FOUND');
        }
      } finally {
        t.clock.set('2027-01-04T06:00:00.000Z');
      }
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meetings/${meeting.uuid}`)).json().status).toBe('confirmed');
    });

    it('gives the page helpers: a public topic page by host or team, the host’s public topics, 404 for the rest', async () => {
      const page = await findPublicTopicPage(t.ctx, { username: acme.owner.username, topicUuid: open.uuid });
      expect(page).toMatchObject({
        topic: { uuid: open.uuid, description: 'Bring your questions.\nAnd your plans.', durationMinutes: 60, places: ['zoom'], paid: false },
        hosts: [{ username: acme.owner.username, name: 'Olga Owner' }],
        team: null,
      });
      expect(page.accountName).toBe((await call(t.app, acme.apiKey, 'GET', '/api/v1/account')).json().name);
      await expect(findPublicTopicPage(t.ctx, { username: acme.owner.username, topicUuid: closed.uuid })).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(findPublicTopicPage(t.ctx, { username: 'someone-else', topicUuid: open.uuid })).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(findPublicTopicPage(t.ctx, { teamUuid: acme.team.uuid, topicUuid: open.uuid })).rejects.toMatchObject({ code: 'NOT_FOUND' });
      const team = (
        await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Team hour', durationMinutes: 60, places: ['zoom'], team: acme.team.uuid, public: true })
      ).json();
      const teamPage = await findPublicTopicPage(t.ctx, { teamUuid: acme.team.uuid, topicUuid: team.uuid });
      expect(teamPage.team).toEqual({ uuid: acme.team.uuid, name: acme.team.name });
      expect(teamPage.hosts.map((host) => host.username)).toEqual([acme.owner.username]);
      const listed = await listPublicTopicsOfHost(t.ctx, acme.owner.username);
      expect(listed.topics.map((topic) => topic.uuid)).toEqual([open.uuid, team.uuid]);
      await expect(listPublicTopicsOfHost(t.ctx, 'nobody-at-all')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });
  });
}
