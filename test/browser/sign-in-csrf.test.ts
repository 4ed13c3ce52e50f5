import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { HAS_CHROMIUM, createTestAccount } from '../helpers.js';
import { useServerAndBrowser } from './harness.js';

const LINK = /https?:\/\/[^\s"<>]+\/app\/login\/[A-Za-z0-9_-]+/;

/**
 * Login CSRF in real Chromium: a member of another account (the attacker) asks for a sign-in
 * link to their own account and gets a signed-in owner's browser to it from a page of their
 * own, by a redirect and by a form that posts itself. Either way the owner stays signed in as
 * themselves and the attacker's link stays unused. And the honest way still works: the link
 * from the e-mail, its page, its button.
 */
describe.runIf(HAS_CHROMIUM)('the sign-in link against login CSRF, in a browser', () => {
  const t = useServerAndBrowser({ openAllDay: false });
  const attacker = { email: 'mallory@attacker.test', account: 'Mallory Ltd' };
  let owner: { email: string; name: string; account: string };
  let ownerContext: BrowserContext;
  let attackerLink = '';
  /** The attacker's pages: on `localhost` (another site than 127.0.0.1) and on another port of 127.0.0.1 (the same site, another origin). */
  let site: http.Server;
  let crossSite = '';
  let sameSite = '';
  /** The form the attacker's page posts: the attacker's link with a CSRF value of the attacker's own browser. */
  let attackerForm = { action: '', csrf: '' };

  beforeAll(async () => {
    // The attacker's own account, in the same service (its database, while the server runs).
    const ctx = await createContext(loadConfig({ DATA_DIR: t.server.dataDir, DATABASE_URL: '', TERMIN_DEMO: 'false', MIGRATE_ON_START: 'false' }), {
      log: pino({ level: 'silent' }),
    });
    try {
      await createTestAccount(ctx, { name: attacker.account, ownerEmail: attacker.email });
    } finally {
      await ctx.close();
    }
    const members = await t.server.api('GET', `/teams/${t.server.owner.teamUuid}/users`);
    const me = members.body.users.find((user: { uuid: string }) => user.uuid === t.server.owner.userUuid);
    owner = { email: me.email, name: `${me.firstName} ${me.lastName}`, account: (await t.server.api('GET', '/account')).body.name };

    site = http.createServer((request, response) => {
      const html = (body: string) => response.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>free prize</title>${body}`);
      if (request.url === '/redirect') return response.writeHead(302, { location: attackerLink }).end();
      if (request.url === '/post')
        return html(
          `<form method="post" action="${attackerForm.action}"><input type="hidden" name="csrf" value="${attackerForm.csrf}"></form><script>document.forms[0].submit()</script>`,
        );
      return html('<p>nothing here</p>');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    const port = (site.address() as AddressInfo).port;
    crossSite = `http://localhost:${port}`;
    sameSite = `http://127.0.0.1:${port}`;
  }, 60_000);
  afterAll(async () => {
    await new Promise((resolve) => site?.close(resolve));
  });

  /** Asks for a link in a fresh browser as a person would, and returns the one e-mailed to `email` after `before` messages. */
  async function linkFor(email: string): Promise<string> {
    const before = t.server.outbox().length;
    const context = await t.browser.newContext();
    const page = await context.newPage();
    await page.goto(`${t.server.url}/app/login`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByRole('button', { name: 'Send sign-in link' }).click();
    await expect.poll(() => page.textContent('#message')).toContain('a link is on its way');
    await context.close();
    let link: string | undefined;
    await expect
      .poll(
        () => {
          const eml = t.server
            .outbox()
            .slice(before)
            .map((one) => one.replace(/=\r?\n/g, ''))
            .find((one) => one.includes(email));
          link = eml ? LINK.exec(eml)?.[0] : undefined;
          return link;
        },
        { timeout: 15_000 },
      )
      .toBeDefined();
    return link!;
  }

  async function sessionCookie(context: BrowserContext): Promise<string | undefined> {
    return (await context.cookies()).find((cookie) => cookie.name === 'termin_session')?.value;
  }

  /** Still the owner, on the owner's own session. */
  async function expectStillOwner(session: string | undefined): Promise<void> {
    expect(await sessionCookie(ownerContext)).toBe(session);
    const page = await ownerContext.newPage();
    await page.goto(`${t.server.url}/app`);
    expect(await page.textContent('.who')).toContain(owner.name);
    expect(await page.content()).not.toContain(attacker.account);
    await page.close();
  }

  /** The attacker's link is unused: its page still asks, for the attacker's account. */
  async function expectAttackerLinkUnused(): Promise<void> {
    const response = await fetch(attackerLink);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain(`Sign in to ${attacker.account} as ${attacker.email}?`);
  }

  it('signs the owner in the honest way: the e-mailed link, a page naming the account, its "Sign in" button', async () => {
    const link = await linkFor(owner.email);
    ownerContext = await t.browser.newContext({ locale: 'en-GB' });
    const page = await ownerContext.newPage();
    await page.goto(link);
    expect(await page.textContent('h1')).toBe(`Sign in to ${owner.account} as ${owner.email}?`);
    expect(await sessionCookie(ownerContext)).toBeUndefined();
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${t.server.url}/app`);
    expect(await page.textContent('h1')).toBe('Upcoming');
    expect(await page.textContent('.who')).toContain(owner.name);
    await page.close();

    attackerLink = await linkFor(attacker.email);
    // The attacker opens their own link's page in their own browser, for a CSRF value to put in their form.
    const own = await t.browser.newContext();
    const ownPage = await own.newPage();
    await ownPage.goto(attackerLink);
    attackerForm = { action: attackerLink, csrf: (await ownPage.getAttribute('input[name=csrf]', 'value'))! };
    await own.close();
  });

  it('a page on another site that redirects the owner to the attacker’s link signs no one in', async () => {
    const session = await sessionCookie(ownerContext);
    const page = await ownerContext.newPage();
    await page.goto(`${crossSite}/redirect`);
    // The owner sees whose link it is, and nothing happened.
    expect(page.url()).toBe(attackerLink);
    expect(await page.textContent('h1')).toBe(`Sign in to ${attacker.account} as ${attacker.email}?`);
    await page.close();
    await expectStillOwner(session);
    await expectAttackerLinkUnused();
  });

  it('a form on another site, or on another origin of the same site, that posts itself to the attacker’s link is refused', async () => {
    const session = await sessionCookie(ownerContext);
    for (const origin of [crossSite, sameSite]) {
      const page = await ownerContext.newPage();
      const refused = page.waitForResponse((response) => response.url() === attackerLink && response.request().method() === 'POST');
      await page.goto(`${origin}/post`);
      expect((await refused).status()).toBe(403);
      await page.close();
      await expectStillOwner(session);
      await expectAttackerLinkUnused();
    }
  });
});
