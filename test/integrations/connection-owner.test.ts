import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeZoom, startFakeZoom } from '../fakes/zoom.js';
import { DIALECTS, createClock } from '../helpers.js';
import { type Harness, PUBLIC_URL, startHarness } from './harness.js';

/**
 * Issue 38, "a connection says whose it is": the callback page and an e-mail to the member
 * name the provider account, the termin member and the account it was connected for; one
 * started in `/app` is finished only in that browser session (without it, or in another
 * member's, it is refused, the code unused and nothing stored); one started through the API
 * is finished in any browser, as before. Against the Zoom stand-in.
 */

/** A browser over app.inject: keeps the cookies the app sets and, as a browser does with Path=/app, sends them to /app only. */
class Browser {
  readonly cookies = new Map<string, string>();
  constructor(private readonly app: FastifyInstance) {}

  private remember(response: LightMyRequestResponse): LightMyRequestResponse {
    for (const line of [response.headers['set-cookie'] ?? []].flat()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      if (/Max-Age=0(;|$)/.test(line)) this.cookies.delete(pair!.slice(0, eq));
      else this.cookies.set(pair!.slice(0, eq), decodeURIComponent(pair!.slice(eq + 1)));
    }
    return response;
  }

  private headersFor(url: string): Record<string, string> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('; ');
    return { accept: 'text/html', ...(url.startsWith('/app') && cookie !== '' ? { cookie } : {}) };
  }

  async get(url: string): Promise<LightMyRequestResponse> {
    return this.remember(await this.app.inject({ method: 'GET', url, headers: this.headersFor(url) }));
  }

  async post(url: string, form: Record<string, string>): Promise<LightMyRequestResponse> {
    const headers = { ...this.headersFor(url), 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' };
    return this.remember(await this.app.inject({ method: 'POST', url, headers, payload: new URLSearchParams(form).toString() }));
  }

  /** GET, following same-site redirects as a browser does (each hop with the cookies its path gets). */
  async follow(url: string): Promise<{ hops: LightMyRequestResponse[]; last: LightMyRequestResponse }> {
    const hops: LightMyRequestResponse[] = [];
    let response = await this.get(url);
    hops.push(response);
    while (response.statusCode >= 300 && response.statusCode < 400 && hops.length < 5) {
      response = await this.get(String(response.headers.location));
      hops.push(response);
    }
    return { hops, last: response };
  }
}

const csrfOf = (page: string) => /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
const unescapeHtml = (value: string) => value.replaceAll('&#38;', '&').replaceAll('&amp;', '&');

for (const dialect of DIALECTS) {
  describe(`a connection says whose it is [${dialect}]`, { shuffle: false }, () => {
    let h: Harness;
    let zoom: FakeZoom;
    let nina: { uuid: string; email: string };
    const ACCOUNT = 'Acme <Studio> & Co';
    const WHOSE = 'Zoom account olga@zoom.example is now connected for Olga Owner at Acme &#60;Studio&#62; &#38; Co';
    const ownerMails = () => h.sent.filter((mail) => mail.to.email === h.acme.owner.email && /is now connected for/.test(mail.subject));
    const connectionOf = async (userUuid: string) =>
      ((await h.api('GET', `/api/v1/users/${userUuid}/connections`)).json() as { connections: { uuid: string; status: string; accountEmail: string | null }[] }).connections[0];

    /** A browser signed in to /app as `email`, through the e-mailed link (and its confirmation page, where there is one). */
    async function signIn(email: string): Promise<Browser> {
      const browser = new Browser(h.app);
      const form = await browser.get('/app/login');
      const before = h.sent.length;
      expect((await browser.post('/app/login', { csrf: csrfOf(form.body), email, lang: 'en' })).statusCode).toBe(200);
      await h.runJobs();
      // Only this address's mail: a new member's invitation (with its own link) may go out in the same run.
      const link = h.sent
        .slice(before)
        .filter((mail) => mail.to.email === email)
        .map((mail) => /https?:\/\/\S+\/app\/login\/[A-Za-z0-9_-]+/.exec(mail.text)?.[0])
        .find((found) => found !== undefined);
      let opened = await browser.get(new URL(link!).pathname);
      if (opened.statusCode === 200) {
        // A link that confirms before it signs in: post its form as the member's button does.
        const action = /<form[^>]+method="post"[^>]+action="([^"]+)"/.exec(opened.body)?.[1] ?? new URL(link!).pathname;
        const fields = Object.fromEntries([...opened.body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((match) => [match[1]!, unescapeHtml(match[2]!)]));
        opened = await browser.post(unescapeHtml(action), fields);
      }
      expect(opened.statusCode).toBe(303);
      expect(browser.cookies.has('termin_session')).toBe(true);
      return browser;
    }

    /** "Connect Zoom" in `browser`'s /app, then Zoom's consent: the URL Zoom sends the browser back to. */
    async function startInApp(browser: Browser): Promise<string> {
      const page = await browser.get('/app/connections');
      const started = await browser.post('/app/connections/zoom', { csrf: csrfOf(page.body) });
      expect(started.statusCode).toBe(200);
      const authorizeUrl = unescapeHtml(/id="authorize" class="primary" href="([^"]+)"/.exec(started.body)![1]!);
      return consent(authorizeUrl);
    }

    async function consent(authorizeUrl: string): Promise<string> {
      const back = (await fetch(authorizeUrl, { redirect: 'manual' })).headers.get('location')!;
      expect(back.startsWith(`${PUBLIC_URL}/oauth/zoom/callback?`)).toBe(true);
      return back.slice(PUBLIC_URL.length);
    }

    beforeAll(async () => {
      const clock = createClock('2027-01-04T06:00:00.000Z');
      zoom = await startFakeZoom({ now: clock.now, accountEmail: 'olga@zoom.example' });
      h = await startHarness(dialect, clock, zoom.env, ['zoom', 'offline']);
      expect((await h.api('PATCH', '/api/v1/account', { name: ACCOUNT, integrations: { zoom: { clientId: zoom.clientId, clientSecret: zoom.clientSecret } } })).statusCode).toBe(
        200,
      );
      const created = await h.api('POST', `/api/v1/teams/${h.acme.team.uuid}/users`, { firstName: 'Nina', lastName: 'Nowak', email: 'nina@acme.test' });
      expect(created.statusCode, created.body).toBe(201);
      nina = created.json() as { uuid: string; email: string };
    }, 60_000);

    afterAll(async () => {
      await h?.close();
      await zoom?.close();
    });

    it('started in /app and finished in a browser without that session (none, or another member’s): refused, the code unused, nothing stored', async () => {
      const owner = await signIn(h.acme.owner.email);
      const other = await signIn(nina.email);
      const stranger = new Browser(h.app);

      for (const [who, browser] of [
        ['no session', stranger],
        ['another member’s session', other],
      ] as const) {
        const callbackUrl = await startInApp(owner);
        const tokenCalls = zoom.tokenCalls.length;
        const { hops, last } = await browser.follow(callbackUrl);
        expect(hops[0]!.statusCode, who).toBe(303);
        expect(String(hops[0]!.headers.location), who).toBe(`/app/oauth/zoom/callback${callbackUrl.slice(callbackUrl.indexOf('?'))}`);
        expect(last.statusCode, who).toBe(403);
        expect(last.headers['content-type']).toMatch(/^text\/html/);
        expect(last.body, who).toContain('Not connected');
        expect(last.body, who).toContain('only that browser, still signed in as them, can finish it');
        // Nothing about the member leaks to whoever holds the link.
        expect(last.body).not.toContain('Olga');
        // The authorization is not used: Zoom's code was never exchanged, and the state is gone.
        expect(zoom.tokenCalls.length, who).toBe(tokenCalls);
        expect(await connectionOf(h.acme.owner.uuid), who).toMatchObject({ status: 'pending', accountEmail: null });
        const late = await owner.follow(callbackUrl);
        expect(late.last.statusCode, who).toBe(400);
        expect(zoom.tokenCalls.length, who).toBe(tokenCalls);
      }
      await h.runJobs();
      expect(ownerMails()).toEqual([]);

      // In the browser it was started from: connected, and the page says whose it became.
      const callbackUrl = await startInApp(owner);
      const { hops, last } = await owner.follow(callbackUrl);
      expect(hops.map((hop) => hop.statusCode)).toEqual([303, 200]);
      expect(last.body).toContain(WHOSE);
      expect(await connectionOf(h.acme.owner.uuid)).toMatchObject({ status: 'connected', accountEmail: 'olga@zoom.example' });
      expect(zoom.tokenCalls.at(-1)).toEqual({ grantType: 'authorization_code', ok: true });
      await h.runJobs();
      expect(ownerMails()).toHaveLength(1);
    });

    it('started through the API: finished in any browser as before, the page naming the Zoom account, the member and the account, HTML-escaped', async () => {
      const started = await h.api('POST', `/api/v1/users/${nina.uuid}/connections`, { provider: 'zoom' });
      expect(started.statusCode, started.body).toBe(201);
      const callbackUrl = await consent((started.json() as { authorizeUrl: string }).authorizeUrl);
      // A browser with no session at all, straight to the page: no detour through /app.
      const page = await new Browser(h.app).get(callbackUrl);
      expect(page.statusCode, page.body).toBe(200);
      expect(page.body).toContain('Zoom is connected');
      expect(page.body).toContain('Zoom account olga@zoom.example is now connected for Nina Nowak at Acme &#60;Studio&#62; &#38; Co');
      expect(page.body).not.toContain('<Studio>');
      expect(page.body).toContain('href="/app/connections"');
      expect(await connectionOf(nina.uuid)).toMatchObject({ status: 'connected', accountEmail: 'olga@zoom.example' });
    });

    it('e-mails the member once, at once, naming the Zoom account, the member and the account, and how to remove it', async () => {
      await h.runJobs();
      const before = h.sent.length;
      const started = await h.api('POST', `/api/v1/users/${nina.uuid}/connections`, { provider: 'zoom' });
      const callbackUrl = await consent((started.json() as { authorizeUrl: string }).authorizeUrl);
      expect((await new Browser(h.app).get(callbackUrl)).statusCode).toBe(200);
      await h.runJobs();
      const mails = h.sent.slice(before).filter((mail) => mail.to.email === nina.email);
      expect(mails.map((mail) => mail.subject)).toEqual(['Zoom account olga@zoom.example is now connected for Nina Nowak at Acme <Studio> & Co']);
      const [mail] = mails;
      expect(mail!.text).toContain('Zoom account olga@zoom.example is now connected to termin for Nina Nowak at Acme <Studio> & Co.');
      expect(mail!.text).toContain(`Remove it: ${PUBLIC_URL}/app/connections`);
      const connection = await connectionOf(nina.uuid);
      expect(mail!.text).toContain(`DELETE ${PUBLIC_URL}/api/v1/users/${nina.uuid}/connections/${connection!.uuid}`);
      // In the HTML part the account's name is escaped, and the removal is a link.
      expect(mail!.html).toMatch(/Acme &(lt|#60);Studio&(gt|#62); &(amp|#38); Co/);
      expect(mail!.html).not.toContain('<Studio>');
      expect(mail!.html).toContain(`href="${PUBLIC_URL}/app/connections"`);
    });
  });
}
