import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManageToken } from '../../src/scheduling/meetings/manage-token.js';
import { call, createTestAccount, createTestApp, type TestApp } from '../helpers.js';
import { bookingBody, firstFreeSlots } from '../webhooks/helpers.js';

/** What the pages answer, without a browser: headers, escaping, languages, which pages exist. */
describe('booking page responses', () => {
  let t: TestApp;
  let owner: { username: string; apiKey: string; teamUuid: string };
  beforeAll(async () => {
    t = await createTestApp('sqlite');
    const created = await createTestAccount(t.ctx);
    owner = { username: created.owner.username, apiKey: created.apiKey, teamUuid: created.team.uuid };
  });
  afterAll(async () => t.close());

  async function topic(body: Record<string, unknown>): Promise<string> {
    const response = await call(t.app, owner.apiKey, 'POST', '/api/v1/meeting-topics', { durationMinutes: 30, public: true, ...body });
    expect(response.statusCode).toBe(201);
    return response.json().uuid;
  }
  const page = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers: { accept: 'text/html', ...headers } });

  it('answers the favicon every browser asks for with an icon, not a 404 in each page load', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/favicon.ico', headers: { accept: 'image/avif,image/webp,image/*,*/*;q=0.8' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('image/svg+xml');
    expect(response.body).toContain('<svg');
    expect(response.headers['cache-control']).toContain('max-age=');
  });

  it('serves the page under the strict CSP, with no inline script, style or handler, and every value escaped', async () => {
    const uuid = await topic({
      name: '<script>alert(1)</script> & "quotes"',
      description: '<img src=x onerror=alert(1)>',
      form: [{ key: 'company', label: '<b>Company</b>', required: true }],
    });
    const response = await page(`/book/${owner.username}/${uuid}`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-security-policy']).toContain("script-src 'self'");
    expect(response.headers['content-security-policy']).toContain("style-src 'self'");
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    const body = response.body;
    expect(body).not.toContain('<script>alert');
    expect(body).not.toContain('<img src=x');
    expect(body).not.toContain('<b>Company</b>');
    expect(body).toContain('&#60;script&#62;alert(1)&#60;/script&#62; &#38; &#34;quotes&#34;');
    // Scripts only by URL, no style attributes or inline handlers anywhere.
    expect([...body.matchAll(/<script(?![^>]*\ssrc=)[^>]*>/g)]).toEqual([]);
    expect(body).not.toMatch(/<[^>]*\s(?:style|on[a-z]+)=/i);
    // The seed's field names, the honeypot hidden from people and assistive technology.
    for (const name of ['name', 'email', 'phone', 'note', 'form.company', 'website']) expect(body).toContain(`name="${name}"`);
    expect(body).toMatch(/<div class="hp" aria-hidden="true">.*name="website" type="text" tabindex="-1" autocomplete="off"/s);
  });

  it('lets other sites frame only the booking pages (the embed); manage, pay, docs and other pages refuse to be framed', async () => {
    const uuid = await topic({ name: 'Framed', places: ['zoom'] });
    for (const url of [`/book/${owner.username}`, `/book/${owner.username}/${uuid}`, `/book/${owner.username}/00000000-0000-4000-8000-000000000000`]) {
      const response = await page(url);
      expect(response.headers['content-security-policy'], url).toContain('frame-ancestors *');
      expect(response.headers['x-frame-options'], url).toBeUndefined();
    }
    const [slot] = await firstFreeSlots(t.app, owner.username, uuid);
    const booked = await call(t.app, owner.apiKey, 'POST', '/api/v1/schedule', bookingBody(uuid, slot!));
    expect(booked.statusCode).toBe(201);
    const manage = `/booking/${createManageToken(t.ctx.secretKey, booked.json().meetings[0].uuid)}`;
    for (const url of [manage, '/booking/not-a-token', '/pay/00000000-0000-4000-8000-000000000000', '/docs', '/nowhere']) {
      const response = await page(url);
      expect(response.headers['content-type'], url).toMatch(/^text\/html/);
      expect(response.headers['content-security-policy'], url).toContain("frame-ancestors 'none'");
      expect(response.headers['x-frame-options'], url).toBe('DENY');
    }
    expect((await page(manage)).statusCode).toBe(200);
  });

  it('assets have content-hashed names, a year of caching, nosniff, and answer 304 to a matching ETag', async () => {
    const uuid = await topic({ name: 'Assets' });
    const body = (await page(`/book/${owner.username}/${uuid}`)).body;
    const urls = [...body.matchAll(/(?:href|src)="(\/assets\/[^"]+)"/g)].map((match) => match[1]!);
    expect(urls).toHaveLength(2);
    for (const url of urls) {
      expect(url).toMatch(/^\/assets\/booking\.[0-9a-f]{10}\.(css|js)$/);
      const asset = await t.app.inject({ method: 'GET', url });
      expect(asset.statusCode).toBe(200);
      expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(asset.headers['x-content-type-options']).toBe('nosniff');
      expect(asset.headers['content-type']).toMatch(url.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
      const again = await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': String(asset.headers.etag) } });
      expect(again.statusCode).toBe(304);
    }
    expect((await t.app.inject({ method: 'GET', url: '/assets/booking.0000000000.js' })).statusCode).toBe(404);
    const embed = await t.app.inject({ method: 'GET', url: '/embed.js' });
    expect(embed.statusCode).toBe(200);
    expect(embed.headers['content-type']).toMatch(/^text\/javascript/);
    expect(embed.headers['x-content-type-options']).toBe('nosniff');
    expect(embed.body).toContain('termin:booked');
  });

  it('speaks Polish for Accept-Language pl, and ?lang= overrides either way', async () => {
    const uuid = await topic({ name: 'Languages' });
    expect((await page(`/book/${owner.username}/${uuid}`, { 'accept-language': 'pl-PL,pl;q=0.9,en;q=0.5' })).body).toContain('<html lang="pl">');
    expect((await page(`/book/${owner.username}/${uuid}`, { 'accept-language': 'it-IT,en;q=0.5' })).body).toContain('<html lang="en">');
    expect((await page(`/book/${owner.username}/${uuid}`, { 'accept-language': 'de-DE,en;q=0.5' })).body).toContain('<html lang="de">');
    expect((await page(`/book/${owner.username}/${uuid}?lang=en`, { 'accept-language': 'pl' })).body).toContain('Choose a day');
    expect((await page(`/book/${owner.username}/${uuid}?lang=pl`)).body).toContain('Wybierz dzień');
    // Anything else in ?lang= or ?timezone= is ignored, not an error page.
    const odd = await page(`/book/${owner.username}/${uuid}?lang=xx&timezone=Mars/Base&utm_source=news`);
    expect(odd.statusCode).toBe(200);
    expect(odd.body).toContain('&#34;timezone&#34;:null');
    expect((await page(`/book/${owner.username}/${uuid}?timezone=Asia/Tokyo`)).body).toContain('&#34;timezone&#34;:&#34;Asia/Tokyo&#34;');
  });

  it('only public topics have pages, each under its own host or team; anything else is a 404 page', async () => {
    const hidden = await topic({ name: 'Private', public: false });
    const shown = await topic({ name: 'Shown' });
    const team = await topic({ name: 'Team topic', team: owner.teamUuid });
    expect((await page(`/book/${owner.username}/${hidden}`)).statusCode).toBe(404);
    expect((await page(`/book/someone-else/${shown}`)).statusCode).toBe(404);
    expect((await page(`/book/${owner.username}/not-a-uuid`)).statusCode).toBe(404);
    expect((await page(`/book/teams/${owner.teamUuid}/${shown}`)).statusCode).toBe(404);
    expect((await page(`/book/teams/${owner.teamUuid}/${team}`)).statusCode).toBe(200);
    const missing = await page(`/book/teams/00000000-0000-4000-8000-000000000000/${team}`);
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).toMatch(/^text\/html/);
    const list = await page(`/book/${owner.username}`);
    expect(list.body).toContain(`/book/${owner.username}/${shown}`);
    expect(list.body).not.toContain(hidden);
    expect((await page('/book/nobody-at-all')).statusCode).toBe(404);
  });

  it('passes on only a real origin from ?embed= to the page script', async () => {
    const uuid = await topic({ name: 'Embedded' });
    expect((await page(`/book/${owner.username}/${uuid}?embed=https://shop.example`)).body).toContain('&#34;embedOrigin&#34;:&#34;https://shop.example&#34;');
    for (const bad of ['javascript:alert(1)', 'https://shop.example/path', '*', 'null']) {
      expect((await page(`/book/${owner.username}/${uuid}?embed=${encodeURIComponent(bad)}`)).body).toContain('&#34;embedOrigin&#34;:null');
    }
  });
});
