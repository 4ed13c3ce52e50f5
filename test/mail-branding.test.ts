import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackgroundJobs } from '../src/background.js';
import type { CreatedAccount } from '../src/scheduling/account/create-account.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, type TestApp } from './helpers.js';
import { startLogoServer } from './http/logo-server.js';

interface MimePart {
  headers: Record<string, string>;
  body: string;
  parts: MimePart[];
}

/** Enough of RFC 2045/2046 to read what nodemailer writes: headers, nested multiparts, QP and base64 bodies. */
function parseMime(raw: string): MimePart {
  const split = raw.indexOf('\n\n');
  const head = raw
    .slice(0, split)
    .replace(/\r/g, '')
    .replace(/\n[ \t]+/g, ' ');
  const rest = raw.slice(split + 2);
  const headers: Record<string, string> = {};
  for (const line of head.split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  const type = headers['content-type'] ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (type.startsWith('multipart/') && boundary) {
    const chunks = rest.split(`--${boundary}`).slice(1);
    const parts = chunks.filter((chunk) => !chunk.startsWith('--')).map((chunk) => parseMime(chunk.replace(/^\r?\n/, '')));
    return { headers, body: '', parts };
  }
  const encoding = (headers['content-transfer-encoding'] ?? '7bit').toLowerCase();
  let body = rest;
  if (encoding === 'base64') body = Buffer.from(rest.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') {
    body = Buffer.from(
      rest.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
      'latin1',
    ).toString('utf8');
  }
  return { headers, body, parts: [] };
}

function findPart(part: MimePart, type: string): MimePart | undefined {
  if ((part.headers['content-type'] ?? '').startsWith(type)) return part;
  for (const child of part.parts) {
    const found = findPart(child, type);
    if (found) return found;
  }
  return undefined;
}

for (const dialect of DIALECTS) {
  describe(`branded e-mails, multipart [${dialect}]`, () => {
    let t: TestApp;
    let acme: CreatedAccount;
    let images: Awaited<ReturnType<typeof startLogoServer>>;
    let logo: string;

    beforeAll(async () => {
      images = await startLogoServer();
      t = await createTestApp(dialect, createClock('2027-03-01T06:00:00.000Z'), { ALLOW_PRIVATE_URLS: 'true', PUBLIC_URL: 'https://book.acme.test' });
      acme = await createTestAccount(t.ctx, { name: 'Acme', timezone: 'Europe/Warsaw', places: ['offline'] });
      const branded = await call(t.app, acme.apiKey, 'PATCH', '/api/v1/account', {
        branding: { businessName: 'Acme Dental', logoUrl: `${images.url}/logo.png`, accentColor: '#ffcc00' },
      });
      expect(branded.statusCode).toBe(200);
      logo = branded.json().branding.logo;
    });
    afterAll(async () => {
      await t?.close();
      await images?.close();
    });

    it("sends the participant's confirmation as text and HTML, in their language, branded, with the topic's translated words and confirmation message", async () => {
      const topic = (
        await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', {
          name: 'Check-up',
          durationMinutes: 30,
          places: ['offline'],
          confirmationMessage: 'Bring your insurance card. Map: https://acme.example/map?a=1&b=2',
          translations: { pl: { name: 'Przegląd', confirmationMessage: 'Zabierz kartę ubezpieczenia <ważne>. Mapa: https://acme.example/mapa.' } },
        })
      ).json();
      const schedule = (
        await call(t.app, null, 'POST', '/api/v1/calculate-schedule', { username: acme.owner.username, meetingTopic: topic.uuid, timezone: 'Europe/Warsaw', offset: 0 })
      ).json();
      const slot = schedule.days.flatMap((day: { slots: unknown[] }) => day.slots)[0];
      const booked = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
        dates: [slot],
        email: 'zofia@example.com',
        lang: 'pl',
        name: 'Zofia Wąs',
        place: 'offline',
        meetingTopic: topic.uuid,
        timezone: 'Europe/Warsaw',
      });
      expect(booked.statusCode).toBe(201);
      const jobs = startBackgroundJobs(t.ctx, { jobIntervalMs: 3_600_000, wakeOnBooking: false });
      await jobs.runOnce();
      await jobs.stop();

      const dir = t.ctx.config.mail.outboxDir;
      const messages = fs
        .readdirSync(dir)
        .filter((file) => file.endsWith('.eml'))
        .map((file) => parseMime(fs.readFileSync(path.join(dir, file), 'utf8')));
      const toZofia = messages.find((message) => (message.headers.to ?? '').includes('zofia@example.com'));
      expect(toZofia).toBeDefined();
      const alternative = findPart(toZofia!, 'multipart/alternative');
      expect(alternative).toBeDefined();
      const text = findPart(alternative!, 'text/plain')!.body;
      const html = findPart(alternative!, 'text/html')!.body;

      // The plain part is complete on its own: the greeting, the translated topic, the time, the business's own message and its name.
      expect(text).toContain('Twoje spotkanie zostało potwierdzone');
      expect(text).toContain('Temat: Przegląd');
      expect(text).toContain('Zabierz kartę ubezpieczenia <ważne>. Mapa: https://acme.example/mapa.');
      expect(text).toContain('— Acme Dental, przez termin');
      expect(text).not.toContain('<a ');

      // The HTML part: the same words, escaped, its link clickable, the logo from termin, the darkened accent, dark mode.
      expect(html).toContain('Przegląd');
      expect(html).toContain('Zabierz kartę ubezpieczenia &lt;ważne&gt;.');
      expect(html).toContain('<a class="t-link" href="https://acme.example/mapa"');
      expect(html).toContain(`<img src="${logo}"`);
      expect(logo.startsWith('https://book.acme.test/branding/')).toBe(true);
      expect(html).toContain('prefers-color-scheme: dark');
      const accent = (await call(t.app, acme.apiKey, 'GET', '/api/v1/account')).json().branding.accentColorUsed as string;
      expect(html).toContain(`border-top:4px solid ${accent}`);
      // No remote image but the logo termin serves.
      expect([...html.matchAll(/<img[^>]*\ssrc="([^"]*)"/g)].map((match) => match[1])).toEqual([logo]);
      expect(html).not.toContain(images.url);

      // The manage link of the message leads to a branded page with the same words.
      const token = /https:\/\/book\.acme\.test\/booking\/(\S+)/.exec(text)![1]!;
      const manage = await t.app.inject({ method: 'GET', url: `/booking/${token}` });
      expect(manage.statusCode).toBe(200);
      expect(manage.body).toContain('Acme Dental');
      expect(manage.body).toContain(`<img src="${(new URL(logo).pathname + new URL(logo).search).replace('&', '&#38;')}"`);
      expect(manage.body).toContain('Przegląd');
      expect(manage.body).toContain('<a href="https://acme.example/mapa">https://acme.example/mapa</a>');

      // The host's message keeps the topic's own words and no participant-facing message.
      const toHost = messages.find((message) => (message.headers.to ?? '').includes(acme.owner.email))!;
      const hostText = findPart(toHost, 'text/plain')!.body;
      expect(hostText).toContain('What: Check-up');
      expect(hostText).not.toContain('insurance card');
    });
  });
}
