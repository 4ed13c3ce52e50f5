import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVendorHttp, parseRetryAfter, VendorCallError } from './vendor-http.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('2015-10-21T07:27:30Z');
  it.each([
    ['120', 120_000],
    [' 0 ', 0],
    ['Wed, 21 Oct 2015 07:28:00 GMT', 30_000],
    ['Wed, 21 Oct 2015 07:00:00 GMT', 0],
    ['Wednesday, 21-Oct-15 07:28:00 GMT', 30_000],
    [null, null],
    ['', null],
    ['soon', null],
    ['-5', null],
    ['1.5', null],
  ])('%j → %j', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
});

describe('the vendor client against a stand-in', () => {
  let server: Server;
  let base: string;
  const seen: { method: string; url: string; headers: Record<string, unknown>; body: string }[] = [];
  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
        if (request.url === '/redirect') return void response.writeHead(302, { location: '/elsewhere', 'content-type': 'application/json' }).end('{"redirect":true}');
        if (request.url === '/large') return void response.writeHead(200).end('x'.repeat(2_000));
        if (request.url === '/busy') return void response.writeHead(503, { 'retry-after': '7' }).end();
        if (request.url === '/refused') return void response.writeHead(400).end('{"error":"no"}');
        if (request.url === '/slow') return void setTimeout(() => response.writeHead(200).end(), 1_000);
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const http = createVendorHttp({ now: () => 0, maxAnswerBytes: 1_000 });
  const failure = (call: Promise<unknown>) =>
    call.then(
      () => null,
      (error: unknown) => error as VendorCallError,
    );

  it('sends JSON, forms and raw JSON with their content types, the caller’s headers last', async () => {
    await http.call({ method: 'POST', url: `${base}/json`, json: { a: 1 }, headers: { authorization: 'Bearer t' } });
    await http.call({ method: 'POST', url: `${base}/form`, form: { a: 'b c' } });
    await http.call({ method: 'PUT', url: `${base}/raw`, rawJson: '{"signed": true}', headers: { accept: '*/*' } });
    expect(seen.slice(-3).map(({ headers, body }) => [headers['content-type'], headers.accept, headers.authorization, body])).toEqual([
      ['application/json', 'application/json', 'Bearer t', '{"a":1}'],
      ['application/x-www-form-urlencoded', 'application/json', undefined, 'a=b+c'],
      ['application/json', '*/*', undefined, '{"signed": true}'],
    ]);
  });

  it('reads a redirect as the answer, never following it', async () => {
    const answer = await http.call({ method: 'POST', url: `${base}/redirect`, json: {} });
    expect([answer.status, answer.text, seen.at(-1)!.url]).toEqual([302, '{"redirect":true}', '/redirect']);
  });

  it('classifies refusals and carries Retry-After', async () => {
    expect(await http.call({ method: 'GET', url: `${base}/busy` })).toMatchObject({ status: 503, retryable: true, retryAfterMs: 7_000 });
    expect(await http.call({ method: 'GET', url: `${base}/refused` })).toMatchObject({ status: 400, retryable: false, retryAfterMs: null, text: '{"error":"no"}' });
  });

  it('refuses an answer past the byte limit, as permanent', async () => {
    const error = await failure(http.call({ method: 'GET', url: `${base}/large` }));
    expect(error).toBeInstanceOf(VendorCallError);
    expect([error?.kind, error?.retryable, error?.status, error?.message]).toEqual(['too-large', false, 200, 'the answer is larger than 1000 bytes']);
  });

  it('gives up after the deadline, and on a closed port, as retryable', async () => {
    const slow = await failure(http.call({ method: 'GET', url: `${base}/slow`, timeoutMs: 100 }));
    expect([slow?.kind, slow?.retryable, slow?.message]).toEqual(['timeout', true, 'no answer within 100 ms']);
    const closed = await failure(http.call({ method: 'GET', url: 'http://127.0.0.1:1/' }));
    expect([closed?.kind, closed?.retryable, closed?.message]).toEqual(['unreachable', true, 'unreachable']);
  });
});
