import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startBackgroundJobs } from '../src/background.js';
import type { CreatedAccount } from '../src/scheduling/account/create-account.js';
import { call, createClock, createTestAccount, createTestApp, type TestApp } from './helpers.js';

interface Received {
  to: string[];
  raw: string;
}

/** A real SMTP server in this process that can be taken down and brought back on its port. */
async function startSmtp(port = 0): Promise<{ server: SMTPServer; port: number; received: Received[] }> {
  const received: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { server, port: (server.server.address() as AddressInfo).port, received };
}

const stopSmtp = (server: SMTPServer) => new Promise<void>((resolve) => server.close(() => resolve()));

/** Undoes quoted-printable soft breaks and encoded bytes, enough to search a message's text. */
function decodeQuotedPrintable(raw: string): string {
  const bytes = raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

describe('confirmation messages over SMTP', () => {
  let t: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let acme: CreatedAccount;
  let topic: { uuid: string };

  beforeAll(async () => {
    smtp = await startSmtp();
    t = await createTestApp('sqlite', createClock('2027-03-01T06:00:00.000Z'), { SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: 'Acme Bookings <bookings@acme.test>' });
  });
  // A host of their own for every test, at the same hour: the host's messages are counted, and
  // the first free slot (08:00 UTC) must not be one an earlier test booked.
  beforeEach(async () => {
    t.clock.set('2027-03-01T06:00:00.000Z');
    acme = await createTestAccount(t.ctx, { name: 'Acme', timezone: 'Europe/Warsaw', places: ['zoom'] });
    topic = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Intro call', durationMinutes: 30, places: ['zoom'] })).json();
  });
  afterAll(async () => {
    await t.close();
    await stopSmtp(smtp.server).catch(() => undefined);
  });

  const bookFirstFree = async (lang: 'en' | 'pl', email: string, timezone: string) => {
    const body = (await call(t.app, null, 'POST', '/api/v1/calculate-schedule', { username: acme.owner.username, meetingTopic: topic.uuid, timezone, offset: 0 })).json();
    const slot = body.days.flatMap((d: { slots: unknown[] }) => d.slots)[0];
    const response = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
      dates: [slot],
      email,
      lang,
      name: lang === 'pl' ? 'Zofia Wąs' : 'John Smith',
      place: 'zoom',
      meetingTopic: topic.uuid,
      timezone,
    });
    expect(response.statusCode).toBe(201);
    return response.json().meetings[0] as { uuid: string; start: string };
  };

  it('sends the participant a message in their language and zone, and the host one, each with an invitation', async () => {
    const english = await bookFirstFree('en', 'john@example.com', 'America/New_York');
    const polish = await bookFirstFree('pl', 'zofia@example.com', 'Europe/Warsaw');
    const jobs = startBackgroundJobs(t.ctx, { jobIntervalMs: 3_600_000, wakeOnBooking: false });
    await jobs.runOnce();
    await jobs.stop();

    const toJohn = smtp.received.filter((m) => m.to.includes('john@example.com')).map((m) => decodeQuotedPrintable(m.raw));
    expect(toJohn).toHaveLength(1);
    expect(toJohn[0]).toContain('your meeting is confirmed');
    expect(toJohn[0]).toContain('America/New_York');
    // 08:00 UTC in March is 03:00 in New York (before the US switch to summer time on 14 March).
    expect(toJohn[0]).toMatch(/3:00\s?AM/);
    expect(toJohn[0]).toContain('METHOD:REQUEST');
    expect(toJohn[0]).toContain(`UID:${english.uuid}@termin`);
    expect(toJohn[0]).toContain('SEQUENCE:0');
    expect(toJohn[0]).toMatch(/Content-Type: text\/calendar; charset=utf-8; method=REQUEST/i);

    const toZofia = smtp.received.filter((m) => m.to.includes('zofia@example.com')).map((m) => decodeQuotedPrintable(m.raw));
    expect(toZofia).toHaveLength(1);
    expect(toZofia[0]).toContain('Twoje spotkanie zostało potwierdzone');
    expect(toZofia[0]).toContain('Termin:');
    expect(toZofia[0]).toContain(`UID:${polish.uuid}@termin`);

    const toHost = smtp.received.filter((m) => m.to.includes(acme.owner.email)).map((m) => decodeQuotedPrintable(m.raw));
    expect(toHost).toHaveLength(2);
    expect(toHost.join('\n')).toContain('a meeting has been booked with you');
    expect(toHost.join('\n')).toContain('zofia@example.com');
  });

  it('cancels with METHOD:CANCEL, the same UID and a higher SEQUENCE', async () => {
    const meeting = await bookFirstFree('en', 'cancel@example.com', 'UTC');
    await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${meeting.uuid}/cancel`, { reason: 'Host is ill' });
    const jobs = startBackgroundJobs(t.ctx, { jobIntervalMs: 3_600_000, wakeOnBooking: false });
    await jobs.runOnce();
    await jobs.stop();
    const messages = smtp.received.filter((m) => m.to.includes('cancel@example.com')).map((m) => decodeQuotedPrintable(m.raw));
    expect(messages).toHaveLength(2);
    const cancellation = messages.find((m) => m.includes('METHOD:CANCEL'))!;
    expect(cancellation).toContain(`UID:${meeting.uuid}@termin`);
    expect(cancellation).toContain('SEQUENCE:1');
    expect(cancellation).toContain('STATUS:CANCELLED');
    expect(cancellation).toContain('Host is ill');
  });

  it('keeps messages while SMTP is down and delivers them, after a restart too, once it is back', async () => {
    const port = smtp.port;
    await stopSmtp(smtp.server);
    const started = Date.now();
    const meeting = await bookFirstFree('en', 'patient@example.com', 'UTC');
    expect(Date.now() - started).toBeLessThan(5_000);

    const jobs = startBackgroundJobs(t.ctx, { jobIntervalMs: 3_600_000, wakeOnBooking: false });
    await jobs.runOnce();
    await jobs.stop();
    const pending = await t.ctx.db.selectFrom('outbox').select(['status', 'attempts', 'last_error']).where('status', '=', 'pending').execute();
    expect(pending.length).toBe(2);
    expect(pending.every((row) => row.attempts === 1 && row.last_error !== null)).toBe(true);

    // The service restarts (a new context over the same database) and SMTP comes back.
    const revived = await startSmtp(port);
    smtp = revived;
    t.clock.advance(60_000);
    const { createContext } = await import('../src/context.js');
    const { pino } = await import('pino');
    const restarted = await createContext(t.ctx.config, { now: t.clock.now, log: pino({ level: 'silent' }) });
    try {
      const again = startBackgroundJobs(restarted, { jobIntervalMs: 3_600_000, wakeOnBooking: false });
      await again.runOnce();
      await again.stop();
    } finally {
      await restarted.close();
    }
    const delivered = revived.received.filter((m) => m.to.includes('patient@example.com'));
    expect(delivered).toHaveLength(1);
    expect(decodeQuotedPrintable(delivered[0]!.raw)).toContain(`UID:${meeting.uuid}@termin`);
    expect(await t.ctx.db.selectFrom('outbox').select('id').where('status', '!=', 'done').execute()).toEqual([]);
  });
});
