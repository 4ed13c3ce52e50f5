import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, launchBrowser, seriousViolations } from '../browser/harness.js';
import { createTestAccount, createTestApp, type TestApp, HAS_CHROMIUM } from '../helpers.js';

const SHOTS = path.join(ARTIFACTS, 'docs');

/** The /docs page as an integrator meets it: a guide first, every field explained, a sidebar that finds things, at desktop and phone widths. */
describe('the docs page', () => {
  let t: TestApp;
  let url: string;
  let html: string;
  let browser: Browser | undefined;

  beforeAll(async () => {
    t = await createTestApp('sqlite');
    url = await t.app.listen({ port: 0, host: '127.0.0.1' });
    html = (await t.app.inject({ method: 'GET', url: '/docs' })).body;
    fs.mkdirSync(SHOTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await t.close();
  });

  it('opens with the booking guide, then the API by topic, health checks last', () => {
    const at = (text: string) => {
      const index = html.indexOf(text);
      expect(index, text).toBeGreaterThan(-1);
      return index;
    };
    const guide = at('id="guide"');
    for (const step of ['guide-slots', 'guide-book', 'guide-pay', 'guide-cancel', 'guide-reschedule', 'guide-webhooks', 'guide-money'])
      expect(at(`id="${step}"`)).toBeGreaterThan(guide);
    const firstRoute = html.indexOf('<article');
    expect(guide).toBeLessThan(firstRoute);
    // Examples show requests and their responses.
    expect(html).toContain('POST /api/v1/calculate-schedule');
    expect(html).toContain('Response 201');
    expect(html).toContain('webhook-signature: v1,');
    const operations = at('id="operations"');
    for (const tag of ['teams', 'availability', 'meeting-topics']) expect(at(`id="${tag}"`)).toBeLessThan(operations);
    expect(at('id="op-get-healthz"')).toBeGreaterThan(operations);
    expect(at('id="op-get-readyz"')).toBeGreaterThan(operations);
  });

  it('the guide starts from zero, and its setup requests, sent as written, make a page that lists the topic', async () => {
    const at = (text: string) => html.indexOf(text);
    const steps = ['guide-members', 'guide-hours', 'guide-topic', 'guide-public', 'guide-page', 'guide-slots'].map((id) => at(`id="${id}"`));
    expect(steps.every((index) => index > at('id="guide"'))).toBe(true);
    expect([...steps].sort((a, b) => a - b)).toEqual(steps);

    const setup = html.slice(steps[0], steps[5]);
    const decode = (text: string) =>
      text
        .replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)))
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&quot;/g, '"')
        .replace(/&amp;/g, '&');
    const requests = [...setup.matchAll(/<figcaption>Request<\/figcaption><pre[^>]*><code>([\s\S]*?)<\/code><\/pre>/g)].map((match) => {
      const text = decode(match[1]!);
      const [line = '', ...rest] = text.split('\n');
      const [method, url] = line.split(' ') as [string, string];
      const blank = rest.indexOf('');
      return { method, url, body: JSON.parse(rest.slice(blank + 1).join('\n')) as unknown };
    });
    expect(requests.map((request) => request.method)).toEqual(['POST', 'PUT', 'POST', 'PATCH']);

    const account = await createTestAccount(t.ctx, { places: ['offline', 'phone-call'] });
    const ids: Record<string, string> = { teamUuid: account.team.uuid };
    for (const request of requests) {
      const url = request.url.replace(/\{(\w+)\}/g, (_m, name: string) => ids[name]!);
      const response = await t.app.inject({ method: request.method as 'POST', url, headers: { 'x-service-api-key': account.apiKey }, payload: request.body as object });
      expect([request.method, request.url, response.statusCode, response.statusCode < 300 ? '' : response.body]).toEqual([
        request.method,
        request.url,
        response.statusCode < 300 ? response.statusCode : 200,
        '',
      ]);
      const answer = response.json() as { uuid?: string };
      if (request.url.endsWith('/users')) ids.userUuid = answer.uuid!;
      if (request.url === '/api/v1/meeting-topics') ids.uuid = answer.uuid!;
    }
    const page = await t.app.inject({ method: 'GET', url: '/book/anna-nowak', headers: { accept: 'text/html' } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Intro call');
    expect(page.body).toContain(`/book/anna-nowak/${ids.uuid}`);
  });

  it('keeps the fields of nullable objects and gives every field a note; money is explained in minor units', () => {
    expect(html).toContain('<code>price.amount</code>');
    expect(html).toContain('<code>price.currency</code>');
    const amountRow = /<tr><td><code>price\.amount<\/code>.*?<\/tr>/s.exec(html)![0];
    expect(amountRow).toContain('minor units');
    expect(amountRow).toContain('JPY');
    expect(html).toContain('Zero-decimal currencies have no minor unit');
    const rows = [...html.matchAll(/<tr><td>(.*?)<\/td><td>(.*?)<\/td><td>(.*?)<\/td><\/tr>/gs)];
    expect(rows.length).toBeGreaterThan(100);
    const silent = rows.filter((row) => row[3]!.trim() === '').map((row) => row[1]);
    expect(silent).toEqual([]);
  });

  it.runIf(HAS_CHROMIUM)(
    'looks right in Chromium at 1280 px and 360 px, and the sidebar search finds a route',
    async () => {
      browser = await launchBrowser();
      for (const width of [1280, 360]) {
        const page = await browser.newPage({ viewport: { width, height: width === 360 ? 740 : 800 } });
        const problems: string[] = [];
        page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
        page.on('pageerror', (error) => problems.push(error.message));
        // Nothing the page loads fails.
        page.on('response', (response) => response.status() >= 400 && problems.push(`${response.status()} ${response.url()}`));
        await page.goto(`${url}/docs`);
        await page.waitForLoadState('networkidle');
        expect(await seriousViolations(page)).toEqual([]);
        await page.screenshot({ path: path.join(SHOTS, `docs-${width}.png`) });
        // Nothing wider than the screen: no sideways scrolling of the page itself.
        expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(width);

        await page.fill('#doc-search', 'reschedule');
        const visible = await page.evaluate<string[]>(
          `[...document.querySelectorAll('#doc-nav li[data-search]')].filter((item) => !item.hidden && item.offsetParent !== null).map((item) => item.textContent)`,
        );
        expect(visible.length).toBeGreaterThan(0);
        expect(visible.some((text) => text.includes('/meetings/{uuid}/reschedule'))).toBe(true);
        expect(visible.some((text) => text.includes('/teams/{teamUuid}/users'))).toBe(false);
        await page.screenshot({ path: path.join(SHOTS, `docs-${width}-search.png`) });
        await page.press('#doc-search', 'Enter');
        await page.waitForFunction(`location.hash.includes('reschedule')`);

        if (width === 1280) {
          // The sidebar stays in view while the page scrolls (a 15,000 px page needs it).
          await page.evaluate('window.scrollTo(0, document.body.scrollHeight / 2)');
          const top = await page.evaluate<number>(`document.getElementById('doc-search').getBoundingClientRect().top`);
          expect(top).toBeGreaterThanOrEqual(0);
          expect(top).toBeLessThan(800);
          await page.screenshot({ path: path.join(SHOTS, `docs-${width}-scrolled.png`) });
        }
        expect(problems).toEqual([]);
        await page.close();
      }
    },
    120_000,
  );
});
