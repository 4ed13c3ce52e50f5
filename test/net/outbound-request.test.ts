import { afterEach, describe, expect, it } from 'vitest';
import type { LookupAddress } from 'node:dns';
import { guardedFetch, OutboundNetworkError, OutboundResponseTooLargeError, OutboundTimeoutError, OutboundUrlRefusedError, sendOutbound } from '../../src/net/outbound-request.js';
import { startReceiver, trickle, unusedPort, type Receiver } from './receivers.js';

// Every receiver listens on 127.0.0.1, hence allowPrivate: true wherever a request should
// get through. Nothing here connects anywhere else.

const receivers: Receiver[] = [];
async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const started = await startReceiver(...args);
  receivers.push(started);
  return started;
}
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

describe('sendOutbound', () => {
  it('sends the method, headers and body, and returns status, headers and body', async () => {
    const r = await receiver((_req, res, body) => {
      res.writeHead(202, { 'content-type': 'text/plain', 'x-seen': String(body.length) });
      res.end('accepted');
    });
    const result = await sendOutbound({
      url: `${r.url}/hooks?x=1`,
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"ok":"żółw"}',
      allowPrivate: true,
    });
    expect(result).toEqual({
      status: 202,
      headers: expect.objectContaining({ 'content-type': 'text/plain', 'x-seen': '13' }),
      body: 'accepted',
      truncated: false,
    });
    expect(r.requests).toHaveLength(1);
    expect(r.requests[0]).toMatchObject({ method: 'POST', url: '/hooks?x=1', body: '{"ok":"żółw"}' });
    expect(r.requests[0]!.headers).toMatchObject({ 'content-type': 'application/json', 'content-length': '16' });
  });

  it('cuts off a receiver that never answers, at the deadline', async () => {
    const r = await receiver(() => {
      /* never answers */
    });
    const error = await rejection(sendOutbound({ url: r.url, method: 'POST', body: '{}', timeoutMs: 300, allowPrivate: true }));
    expect(error).toBeInstanceOf(OutboundTimeoutError);
    expect(error).toMatchObject({ code: 'ETIMEDOUT', timeoutMs: 300 });
  });

  it('cuts off a body that trickles forever: the deadline covers the body too', async () => {
    const r = await receiver((_req, res) => trickle(res));
    const error = await rejection(sendOutbound({ url: r.url, timeoutMs: 300, allowPrivate: true }));
    expect(error).toBeInstanceOf(OutboundTimeoutError);
  });

  it('returns a 302 as a result and does not follow it', async () => {
    const target = await receiver((_req, res) => res.end('followed'));
    const r = await receiver((_req, res) => {
      res.writeHead(302, { location: `${target.url}/elsewhere` });
      res.end();
    });
    const result = await sendOutbound({ url: r.url, method: 'POST', body: '{}', allowPrivate: true });
    expect(result.status).toBe(302);
    expect(result.headers.location).toBe(`${target.url}/elsewhere`);
    expect(target.connections).toBe(0);
    expect(target.requests).toHaveLength(0);
  });

  it('reads a 10 MB response only up to maxResponseBytes', async () => {
    const r = await receiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(Buffer.alloc(10 * 1024 * 1024, 'a'));
    });
    const result = await sendOutbound({ url: r.url, allowPrivate: true });
    expect(result.truncated).toBe(true);
    expect(result.body.length).toBe(64 * 1024);
    const smaller = await sendOutbound({ url: r.url, maxResponseBytes: 1000, allowPrivate: true });
    expect(smaller).toMatchObject({ truncated: true, body: 'a'.repeat(1000) });
  });

  it('does not flag a body of exactly maxResponseBytes as truncated', async () => {
    const r = await receiver((_req, res) => res.end('b'.repeat(100)));
    expect(await sendOutbound({ url: r.url, maxResponseBytes: 100, allowPrivate: true })).toMatchObject({ truncated: false, body: 'b'.repeat(100) });
  });

  it('reports a refused connection as OutboundNetworkError with its code', async () => {
    const port = await unusedPort();
    const error = await rejection(sendOutbound({ url: `http://127.0.0.1:${port}/`, allowPrivate: true }));
    expect(error).toBeInstanceOf(OutboundNetworkError);
    expect(error).toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('stops when the caller aborts', async () => {
    const r = await receiver(() => {});
    const controller = new AbortController();
    const pending = rejection(sendOutbound({ url: r.url, allowPrivate: true, signal: controller.signal }));
    controller.abort(new Error('shutting down'));
    expect(await pending).toMatchObject({ message: 'shutting down' });
  });

  describe('with allowPrivate: false', () => {
    it.each([
      (port: number) => `http://127.0.0.1:${port}/`,
      (port: number) => `http://localhost:${port}/`,
      (port: number) => `http://[::1]:${port}/`,
      (port: number) => `http://[::ffff:127.0.0.1]:${port}/`,
      (port: number) => `http://2130706433:${port}/`,
      () => 'http://169.254.169.254/latest/meta-data/',
      () => 'http://10.0.0.1/',
      () => 'http://[::ffff:127.0.0.1]/',
    ])('refuses %s without any connection reaching the receiver', async (urlFor) => {
      const r = await receiver((_req, res) => res.end('reached'));
      const error = await rejection(sendOutbound({ url: urlFor(r.port), method: 'POST', body: '{}', allowPrivate: false }));
      expect(error).toBeInstanceOf(OutboundUrlRefusedError);
      expect(error).toMatchObject({ reason: 'forbidden-address' });
      expect(r.connections).toBe(0);
    });

    it('refuses at connect time a name that has rebound to loopback since registration', async () => {
      const r = await receiver((_req, res) => res.end('reached'));
      const resolver = async (): Promise<LookupAddress[]> => [{ address: '127.0.0.1', family: 4 }];
      const url = `http://hooks.example.test:${r.port}/`;
      const error = await rejection(sendOutbound({ url, allowPrivate: false, resolver }));
      expect(error).toBeInstanceOf(OutboundUrlRefusedError);
      expect(r.connections).toBe(0);
      // The same request with private addresses allowed arrives: the lookup is what is used.
      expect((await sendOutbound({ url, allowPrivate: true, resolver })).body).toBe('reached');
      expect(r.connections).toBe(1);
    });

    it.each(['ftp://127.0.0.1/', 'http://user:secret@127.0.0.1/'])('refuses %s by its shape', async (url) => {
      const error = await rejection(sendOutbound({ url, allowPrivate: true }));
      expect(error).toBeInstanceOf(OutboundUrlRefusedError);
      expect((error as Error).message).not.toContain('secret');
    });
  });
});

describe('guardedFetch', () => {
  it('is a fetch: method, headers and body go out, a Response comes back', async () => {
    const r = await receiver((req, res, body) => {
      res.writeHead(207, { 'content-type': 'application/xml; charset=utf-8' });
      res.end(`<echo method="${req.method}" depth="${req.headers.depth}">${body}</echo>`);
    });
    const fetch = guardedFetch(true);
    const response = await fetch(`${r.url}/calendars/`, {
      method: 'PROPFIND',
      headers: { Depth: '1', 'Content-Type': 'application/xml' },
      body: '<propfind/>',
    });
    expect(response.status).toBe(207);
    expect(response.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(await response.text()).toBe('<echo method="PROPFIND" depth="1"><propfind/></echo>');
    expect(r.requests[0]!.headers['content-type']).toBe('application/xml');
  });

  it('accepts a Request as input', async () => {
    const r = await receiver((_req, res, body) => res.end(body.toUpperCase()));
    const response = await guardedFetch(true)(new Request(`${r.url}/x`, { method: 'POST', body: 'hi' }));
    expect(await response.text()).toBe('HI');
  });

  it('hands back a redirect instead of following it, whatever init.redirect says', async () => {
    const target = await receiver((_req, res) => res.end('followed'));
    const r = await receiver((_req, res) => {
      res.writeHead(301, { location: `${target.url}/` });
      res.end();
    });
    const response = await guardedFetch(true)(r.url, { redirect: 'follow' });
    expect(response.status).toBe(301);
    expect(response.headers.get('location')).toBe(`${target.url}/`);
    expect(target.connections).toBe(0);
  });

  it('refuses loopback without allowPrivate, before connecting', async () => {
    const r = await receiver((_req, res) => res.end('reached'));
    await expect(guardedFetch(false)(r.url)).rejects.toBeInstanceOf(OutboundUrlRefusedError);
    await expect(guardedFetch(false)(`http://localhost:${r.port}/`)).rejects.toBeInstanceOf(OutboundUrlRefusedError);
    expect(r.connections).toBe(0);
  });

  it('rejects a body over the limit rather than handing back a cut one', async () => {
    const r = await receiver((_req, res) => res.end(Buffer.alloc(2 * 1024 * 1024, 'a')));
    await expect(guardedFetch(true, { maxResponseBytes: 1024 * 1024 })(r.url)).rejects.toBeInstanceOf(OutboundResponseTooLargeError);
  });

  it('gives a 204 a null body and times out like sendOutbound', async () => {
    const empty = await receiver((_req, res) => {
      res.writeHead(204);
      res.end();
    });
    const response = await guardedFetch(true)(empty.url, { method: 'DELETE' });
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
    const silent = await receiver(() => {});
    await expect(guardedFetch(true, { timeoutMs: 300 })(silent.url)).rejects.toBeInstanceOf(OutboundTimeoutError);
  });
});
