import fs from 'node:fs';
import path from 'node:path';
import ICAL from 'ical.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackgroundJobs } from '../src/background.js';
import type { RenderedMessage } from '../src/mail/message.js';
import { createMailTransport, type MailTransport } from '../src/mail/transport.js';
import type { CreatedAccount } from '../src/scheduling/account/create-account.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, type TestApp } from './helpers.js';

/**
 * What a participant types reaches the host's inbox and calendar. A quote is a legal
 * character of a name, so the API takes `Eve";ROLE=CHAIR;X=":mailto:attacker@evil.test`;
 * it must stay a name: not parameters of the host's invitation, not a reply address.
 * Line breaks in one-line fields are refused; in a note they stay inside the note.
 */

type Slot = { start: string; username: string };

const EVE = 'Eve";ROLE=CHAIR;X=":mailto:attacker@evil.test';
const NOTE = 'Hello <script>alert(1)</script>\r\nWhere: https://evil.test\r\nBcc: spy@evil.test';

/** The one ORGANIZER or ATTENDEE of an invitation: its parameters and its address. */
function calAddress(ics: string, name: 'organizer' | 'attendee') {
  const calendar = new ICAL.Component(ICAL.parse(ics));
  const [event, ...others] = calendar.getAllSubcomponents('vevent');
  expect(others).toHaveLength(0);
  const properties = event!.getAllProperties(name);
  expect(properties, name).toHaveLength(1);
  const [, params, , value] = properties[0]!.toJSON() as [string, Record<string, unknown>, string, string];
  return { params, address: String(value).toLowerCase() };
}

for (const dialect of DIALECTS) {
  describe(`e-mail and invitation injection [${dialect}]`, () => {
    let t: TestApp;
    let acme: CreatedAccount;
    let topic: { uuid: string };
    const sent: RenderedMessage[] = [];

    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'));
      acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['offline', 'phone-call', 'zoom'] });
      topic = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Intro', durationMinutes: 30, places: ['zoom'] })).json();
    });
    afterAll(async () => t.close());

    /** Runs the background jobs once, keeping what was rendered and writing the .eml files. */
    async function deliver(): Promise<string[]> {
      const files = createMailTransport(t.ctx.config.mail);
      const capture: MailTransport = {
        async send(message, id) {
          sent.push(message);
          await files.send(message, id);
        },
        close: () => files.close(),
        describe: () => 'capture',
      };
      const jobs = startBackgroundJobs(t.ctx, { transport: capture });
      try {
        await jobs.runOnce();
      } finally {
        await jobs.stop();
      }
      const dir = t.ctx.config.mail.outboxDir;
      return fs
        .readdirSync(dir)
        .filter((f) => f.endsWith('.eml'))
        .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'));
    }

    it('keeps a hostile name a name, in the invitation and the messages, and a note inside the note', async () => {
      const schedule = (
        await call(t.app, null, 'POST', '/api/v1/calculate-schedule', { username: acme.owner.username, meetingTopic: topic.uuid, timezone: 'Europe/Warsaw', offset: 0 })
      ).json();
      const [slot] = (schedule.days as { slots: Slot[] }[]).flatMap((day) => day.slots);
      const booking = {
        dates: [slot],
        email: 'eve@example.com',
        lang: 'en',
        name: EVE,
        place: 'zoom',
        meetingTopic: topic.uuid,
        timezone: 'Europe/Warsaw',
        phone: '+48 600 000 000',
        note: NOTE,
      };

      // Line breaks where one line belongs never get as far as a message.
      expectProblem(await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', { ...booking, name: 'Eve\r\nBcc: spy@evil.test' }), 400, 'VALIDATION_FAILED');
      expectProblem(await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', { ...booking, phone: '+48\nBcc: spy@evil.test' }), 400, 'VALIDATION_FAILED');
      const booked = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', booking);
      expect(booked.statusCode).toBe(201);
      expect(booked.json().meetings[0].participant.name).toBe(EVE);
      const cancelled = await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${booked.json().meetings[0].uuid}/cancel`, { reason: 'Sorry\nWhere: https://evil.test' });
      expect(cancelled.statusCode).toBe(200);

      const emls = await deliver();
      const toHost = sent.filter((m) => m.to.email === acme.owner.email);
      const toEve = sent.filter((m) => m.to.email === 'eve@example.com');
      expect(toHost.map((m) => m.ics.method).sort()).toEqual(['CANCEL', 'REQUEST']);
      expect(toEve.map((m) => m.ics.method).sort()).toEqual(['CANCEL', 'REQUEST']);

      const cn = "Eve';ROLE=CHAIR;X=':mailto:attacker@evil.test";
      for (const message of [...toHost, ...toEve]) {
        const attendee = calAddress(message.ics.content, 'attendee');
        expect(attendee.address).toBe('mailto:eve@example.com');
        expect(attendee.params.cn).toBe(cn);
        expect(attendee.params.role).toBe('REQ-PARTICIPANT');
        expect(Object.keys(attendee.params).sort()).toEqual(expect.arrayContaining(['cn', 'role']));
        expect(Object.keys(attendee.params).every((key) => ['cn', 'role', 'rsvp', 'partstat'].includes(key))).toBe(true);
        const organizer = calAddress(message.ics.content, 'organizer');
        expect(organizer).toEqual({ params: { cn: 'Olga Owner' }, address: `mailto:${acme.owner.email}` });
        // Unfolded, the name is one quoted parameter value: no quote inside it.
        expect(message.ics.content.replace(/\r\n /g, '')).toMatch(/^ATTENDEE;[A-Z=;-]*CN="[^"\r\n]*"(;[A-Z=-]+)*:mailto:eve@example\.com\r$/im);

        // Only our own labels start a line; the note's and the reason's lines are indented.
        const lines = message.text.split('\n');
        expect(lines.filter((line) => /^(Where|Bcc):/.test(line))).toEqual(['Where: Zoom']);
        expect(message.html).not.toMatch(/<script/i);
        expect(message.to.name).not.toMatch(/[\r\n]/);
        expect(message.subject).not.toMatch(/[\r\n]/);
      }
      const hostRequest = toHost.find((m) => m.ics.method === 'REQUEST')!;
      expect(hostRequest.text).toContain('Note: Hello <script>alert(1)</script>\n  Where: https://evil.test\n  Bcc: spy@evil.test\n');
      expect(hostRequest.html).toContain('Hello &lt;script&gt;alert(1)&lt;/script&gt;');
      expect(toEve.find((m) => m.ics.method === 'CANCEL')!.text).toContain('Reason: Sorry\n  Where: https://evil.test\n');

      // And in the raw messages: no header a participant wrote.
      expect(emls.length).toBeGreaterThanOrEqual(4);
      for (const eml of emls) expect(eml.split(/\r?\n\r?\n/)[0]).not.toMatch(/^(Bcc|Where|X-[A-Z]+=)/im);
    });
  });
}
