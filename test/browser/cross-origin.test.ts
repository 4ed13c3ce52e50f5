import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM } from '../helpers.js';
import { launchBrowser, startServer, type RunningServer } from './harness.js';

/**
 * A business's own site (another origin) calling the API from the browser, as Chromium
 * enforces CORS: the preflight of a request with a key, reading an exposed header, and an
 * origin the operator did not allow refused by the browser itself (src/http/cors.ts).
 */
describe.runIf(HAS_CHROMIUM)('the API called from a page on another origin', () => {
  let browser: Browser;
  let open: RunningServer;
  let listed: RunningServer;
  let site: http.Server;
  let siteUrl = '';

  beforeAll(async () => {
    // The other site: a blank page on another port of 127.0.0.1, which makes it another origin.
    site = http.createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>shop</title>'));
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    [browser, open, listed] = await Promise.all([launchBrowser(), startServer(), startServer({ CORS_ORIGINS: 'https://booking.example.com' })]);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await Promise.all([open?.stop(), listed?.stop()]);
    await new Promise((resolve) => site?.close(resolve));
  });

  /** Runs `fetch` in a page of the other site; a network-level refusal (CORS) comes back as `{ refused }`. */
  async function fetchFromSite(url: string, init: { method: string; headers: Record<string, string>; body?: string }) {
    const page = await (await browser.newContext()).newPage();
    await page.goto(siteUrl);
    return page.evaluate(
      async ({ url, init }) => {
        try {
          const response = await fetch(url, init);
          return { status: response.status, requestId: response.headers.get('x-request-id'), body: await response.json() };
        } catch (error) {
          return { refused: String(error) };
        }
      },
      { url, init },
    );
  }

  it('lets a page on any origin (the default) call with its key and read the exposed headers', async () => {
    // The key header makes the browser send a preflight first.
    const teams = await fetchFromSite(`${open.url}/api/v1/teams`, { method: 'GET', headers: { 'x-service-api-key': open.owner.apiKey } });
    expect(teams).toMatchObject({ status: 200, body: { teams: expect.any(Array) } });
    expect((teams as { requestId: string }).requestId).toMatch(/\S/);
    // A JSON body (a preflighted content type) and a problem answer are readable too.
    const problem = await fetchFromSite(`${open.url}/api/v1/calculate-schedule`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(problem).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
  });

  it('is refused by the browser for an origin CORS_ORIGINS does not list', async () => {
    const refused = await fetchFromSite(`${listed.url}/api/v1/teams`, { method: 'GET', headers: { 'x-service-api-key': listed.owner.apiKey } });
    expect(refused).toMatchObject({ refused: expect.stringContaining('Failed to fetch') });
  });
});
