import http from 'node:http';
import type net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CalendarAuthError, CalendarBadResponseError, CalendarNotFoundError, CalendarTooLargeError, CalendarUnreachableError } from '../../src/calendars/errors.js';
import { fetchIcsText } from '../../src/calendars/ics-url.js';

const FEED = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//x//y//EN', 'END:VCALENDAR', ''].join('\r\n');
const SECRET = 's3cr3t-feed-token';

/** A loopback server whose answers depend on the path. */
function handle(req: http.IncomingMessage, res: http.ServerResponse): void {
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  switch (path) {
    case `/private/${SECRET}/basic.ics`:
      res.writeHead(200, { 'content-type': 'text/calendar' }).end(FEED);
      return;
    case '/redirect-1':
      res.writeHead(302, { location: '/redirect-2' }).end();
      return;
    case '/redirect-2':
      res.writeHead(301, { location: `/private/${SECRET}/basic.ics` }).end();
      return;
    case '/loop':
      res.writeHead(302, { location: '/loop' }).end();
      return;
    case '/streamed-too-large': {
      // No Content-Length: the limit must hold while streaming.
      res.writeHead(200, { 'content-type': 'text/calendar', 'transfer-encoding': 'chunked' });
      res.write('BEGIN:VCALENDAR\r\n');
      const chunk = `X-PAD:${'a'.repeat(1000)}\r\n`;
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      res.on('close', () => res.destroy());
      pump();
      return;
    }
    case '/declared-too-large':
      res.writeHead(200, { 'content-type': 'text/calendar', 'content-length': String(10 * 1024 * 1024) });
      res.write('BEGIN:VCALENDAR\r\n');
      return;
    case '/html':
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<html>Sign in</html>');
      return;
    default: {
      const status = Number(/^\/status\/(\d+)$/.exec(path)?.[1] ?? 404);
      res.writeHead(status, { 'content-type': 'text/plain' }).end('no');
    }
  }
}

describe('fetchIcsText', () => {
  let server: http.Server;
  let base: string;

  beforeAll(async () => {
    server = http.createServer(handle);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('reads a feed', async () => {
    expect(await fetchIcsText(`${base}/private/${SECRET}/basic.ics`)).toBe(FEED);
  });

  it('follows redirects hop by hop through the given fetch', async () => {
    const seen: string[] = [];
    const recording: typeof fetch = (input, init) => {
      seen.push(String(input));
      expect(init?.redirect).toBe('manual');
      return fetch(input, init);
    };
    expect(await fetchIcsText(`${base}/redirect-1`, { fetch: recording })).toBe(FEED);
    expect(seen).toEqual([`${base}/redirect-1`, `${base}/redirect-2`, `${base}/private/${SECRET}/basic.ics`]);
  });

  it('reads webcal:// as https://', async () => {
    const seen: string[] = [];
    const answering: typeof fetch = async (input) => {
      seen.push(String(input));
      return new Response(FEED, { status: 200, headers: { 'content-type': 'text/calendar' } });
    };
    await fetchIcsText('webcal://calendar.example.com/feed.ics?key=1', { fetch: answering });
    await fetchIcsText('WEBCALS://calendar.example.com/other.ics', { fetch: answering });
    expect(seen).toEqual(['https://calendar.example.com/feed.ics?key=1', 'https://calendar.example.com/other.ics']);
  });

  it.each([
    ['a body that grows past the limit while streaming', '/streamed-too-large', CalendarTooLargeError],
    ['a declared length over the limit', '/declared-too-large', CalendarTooLargeError],
    ['401', '/status/401', CalendarAuthError],
    ['403', '/status/403', CalendarAuthError],
    ['404', '/status/404', CalendarNotFoundError],
    ['410', '/status/410', CalendarNotFoundError],
    ['429', '/status/429', CalendarUnreachableError],
    ['503', '/status/503', CalendarUnreachableError],
    ['400', '/status/400', CalendarBadResponseError],
    ['an HTML page', '/html', CalendarBadResponseError],
    ['a redirect loop', '/loop', CalendarBadResponseError],
  ] as const)('refuses %s', async (_name, path, type) => {
    await expect(fetchIcsText(`${base}${path}`, { maxBytes: 64 * 1024 })).rejects.toBeInstanceOf(type);
  });

  it('reports an unreachable server without the secret part of the URL', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await fetchIcsText(`http://127.0.0.1:${port}/private/${SECRET}/basic.ics?token=${SECRET}`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CalendarUnreachableError);
    expect((error as Error).message).toContain('ECONNREFUSED');
    expect((error as Error).message).toContain(`127.0.0.1:${port}`);
    expect((error as Error).message).not.toContain(SECRET);
  });

  it('maps a guarded fetch’s own size refusal to CalendarTooLargeError', async () => {
    const guarded: typeof fetch = async () => {
      throw Object.assign(new Error('The response from x exceeds 10 bytes.'), { code: 'ERR_RESPONSE_TOO_LARGE' });
    };
    await expect(fetchIcsText('https://calendar.example.com/feed.ics', { fetch: guarded })).rejects.toBeInstanceOf(CalendarTooLargeError);
  });

  it('refuses URLs that are not http(s) or webcal', async () => {
    await expect(fetchIcsText('file:///etc/passwd')).rejects.toThrow(TypeError);
  });
});
