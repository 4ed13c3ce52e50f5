/**
 * bench/outbox.ts's receiving end, in its own process so the load generator's work does not
 * delay its clock: an SMTP server offering STARTTLS (a self-signed certificate made now with
 * openssl; its file is printed, for the sender's NODE_EXTRA_CA_CERTS) and 5 webhook receivers.
 * Prints `SINKS_READY {json}`, then one line per message accepted, `S <n|-> <ms>`, and per
 * webhook delivery, `W <n|-> <ms>`: n is the booking's number (its participant is p-<n>@bench.test),
 * ms the wall-clock time of acceptance (the same clock as the parent's). SINK_SMTP_DELAY_MS (default 0)
 * holds each message that long before accepting it: a slow provider (bench/pace.ts).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';

const RECEIVERS = 5;
const SMTP_DELAY_MS = Number(process.env.SINK_SMTP_DELAY_MS ?? 0);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'termin-bench-smtp-'));
const keyFile = path.join(dir, 'key.pem');
const certFile = path.join(dir, 'cert.pem');
execFileSync(
  'openssl',
  [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    keyFile,
    '-out',
    certFile,
    '-days',
    '1',
    '-subj',
    '/CN=127.0.0.1',
    '-addext',
    'subjectAltName=IP:127.0.0.1,DNS:localhost',
  ],
  { stdio: 'ignore' },
);

// Lines are batched per tick: one write per event would cost this process more than the events.
let pending: string[] = [];
const emit = (line: string) => {
  if (pending.length === 0) setImmediate(flush);
  pending.push(line);
};
const flush = () => {
  process.stdout.write(`${pending.join('\n')}\n`);
  pending = [];
};
const bookingOf = (text: string) => /p-(\d+)@bench\.test/.exec(text)?.[1] ?? '-';

const smtp = new SMTPServer({
  key: fs.readFileSync(keyFile),
  cert: fs.readFileSync(certFile),
  authOptional: true,
  disabledCommands: ['AUTH'],
  logger: false,
  maxClients: 1_000,
  onData(stream, session, callback) {
    stream.on('data', () => undefined);
    stream.on('end', () => {
      const accept = () => {
        const to = session.envelope.rcptTo.map((r) => r.address).join(',');
        emit(`S ${bookingOf(to)} ${Date.now()}`);
        callback();
      };
      if (SMTP_DELAY_MS > 0) setTimeout(accept, SMTP_DELAY_MS);
      else accept();
    });
  },
});
await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
const smtpPort = (smtp.server.address() as { port: number }).port;

const webhookPorts: number[] = [];
for (let i = 0; i < RECEIVERS; i += 1) {
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      emit(`W ${bookingOf(Buffer.concat(chunks).toString())} ${Date.now()}`);
      response.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  webhookPorts.push((server.address() as { port: number }).port);
}
console.log(`SINKS_READY ${JSON.stringify({ smtpPort, webhookPorts, caFile: certFile })}`);
process.on('SIGTERM', () => {
  fs.rmSync(dir, { recursive: true, force: true });
  process.exit(0);
});
