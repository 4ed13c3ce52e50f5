import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { RenderedMessage } from '../../src/mail/message.js';
import { redeemSignInLink, requestSignInLink } from '../../src/scheduling/host-app/sign-in.js';
import { runJobsCapturingMail, type TestApp } from '../helpers.js';

/**
 * A browser over app.inject for the web app's tests: keeps the cookies the app sets (Path=/app),
 * sends them back, and speaks `lang` unless a request says otherwise.
 */
export class Browser {
  readonly cookies = new Map<string, string>();
  constructor(
    private readonly app: FastifyInstance,
    private readonly lang: string | null = null,
  ) {}

  private remember(setCookie: string | string[] | undefined): void {
    for (const line of [setCookie ?? []].flat()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = decodeURIComponent(pair!.slice(eq + 1));
      if (/Max-Age=0(;|$)/.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  private baseHeaders(): Record<string, string> {
    return {
      accept: 'text/html',
      ...(this.lang === null ? {} : { 'accept-language': this.lang }),
      ...(this.cookies.size === 0 ? {} : { cookie: [...this.cookies].map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('; ') }),
    };
  }

  async get(url: string, headers: Record<string, string> = {}) {
    const response = await this.app.inject({ method: 'GET', url, headers: { ...this.baseHeaders(), ...headers } });
    this.remember(response.headers['set-cookie']);
    return response;
  }

  async post(url: string, form: Record<string, string | string[]>, headers: Record<string, string> = {}) {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(form)) for (const one of [value].flat()) body.append(name, one);
    const response = await this.app.inject({
      method: 'POST',
      url,
      headers: { ...this.baseHeaders(), 'content-type': 'application/x-www-form-urlencoded', ...headers },
      payload: body.toString(),
    });
    this.remember(response.headers['set-cookie']);
    return response;
  }
}

/** The CSRF token of a page's (first) form. */
export function csrfOf(html: string): string {
  const match = /name="csrf" value="([^"]+)"/.exec(html);
  if (!match) throw new Error('no CSRF token on the page');
  return match[1]!;
}

/** Opens an e-mailed link (a page that changes nothing) and presses its "Sign in" button, as a browser on this site would. */
export async function openAndConfirm(browser: Browser, path: string, publicUrl: string) {
  const page = await browser.get(path);
  if (page.statusCode !== 200) return page;
  expect(page.body).toMatch(/>(Sign in|Zaloguj się)<\/button>/);
  return browser.post(path, { csrf: csrfOf(page.body) }, { origin: new URL(publicUrl).origin, 'sec-fetch-site': 'same-origin' });
}

/** The sign-in link in an e-mail. */
export function signInLinkOf(message: RenderedMessage): string {
  const match = /https?:\/\/\S+\/app\/login\/[A-Za-z0-9_-]+/.exec(message.text);
  if (!match) throw new Error(`no sign-in link in: ${message.text}`);
  return match[0];
}

function unescapeHtml(text: string): string {
  return text.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
}

/**
 * What a browser would post from the page's first form with `selector` in its opening tag
 * (`class="topic-form"`), without pressing any button: text, number and hidden inputs,
 * ticked checkboxes and radios, each select's chosen option, textareas.
 */
export function formValuesOf(page: string, selector: string): Record<string, string | string[]> {
  const start = page.indexOf(`<form`, page.indexOf(selector) - 200);
  const form = page.slice(start, page.indexOf('</form>', start));
  const values: Record<string, string | string[]> = {};
  const add = (name: string, value: string) => {
    const current = values[name];
    values[name] = current === undefined ? value : [current, value].flat();
  };
  for (const [tag] of form.matchAll(/<input\b[^>]*>/g)) {
    const name = /\bname="([^"]*)"/.exec(tag)?.[1];
    if (!name) continue;
    const type = /\btype="([^"]*)"/.exec(tag)?.[1] ?? 'text';
    const value = unescapeHtml(/\bvalue="([^"]*)"/.exec(tag)?.[1] ?? '');
    if ((type === 'checkbox' || type === 'radio') && !/\bchecked\b/.test(tag)) continue;
    add(unescapeHtml(name), type === 'checkbox' && value === '' ? 'on' : value);
  }
  for (const [, attributes, options] of form.matchAll(/<select\b([^>]*)>([\s\S]*?)<\/select>/g)) {
    const name = unescapeHtml(/\bname="([^"]*)"/.exec(attributes!)![1]!);
    const chosen = /<option value="([^"]*)" selected>/.exec(options!) ?? /<option value="([^"]*)"/.exec(options!);
    add(name, unescapeHtml(chosen?.[1] ?? ''));
  }
  for (const [, attributes, text] of form.matchAll(/<textarea\b([^>]*)>([\s\S]*?)<\/textarea>/g)) {
    add(unescapeHtml(/\bname="([^"]*)"/.exec(attributes!)![1]!), unescapeHtml(text!));
  }
  return values;
}

/**
 * Signs `email` in from a fresh browser, as a member would: ask for a link, open it, press "Sign in".
 * The sign-in e-mail, not an invitation (which carries a link too).
 */
export async function signInToApp(t: TestApp, email: string): Promise<Browser> {
  const browser = new Browser(t.app);
  const form = await browser.get('/app/login');
  await browser.post('/app/login', { csrf: csrfOf(form.body), email, lang: 'en' });
  const sent: RenderedMessage[] = [];
  await runJobsCapturingMail(t.ctx, sent);
  const links = sent.filter((message) => message.to.email === email && message.subject.startsWith('Sign in to '));
  expect(links).toHaveLength(1);
  const opened = await openAndConfirm(browser, new URL(signInLinkOf(links[0]!)).pathname, t.ctx.config.publicUrl);
  expect(opened.statusCode).toBe(303);
  return browser;
}

/** A signed-in browser of the member with this address, through the sign-in link's use cases (not its pages, tested apart). */
export async function sessionBrowser(t: TestApp, email: string, lang = 'en'): Promise<Browser> {
  await requestSignInLink(t.ctx, email, 'en');
  const sent: RenderedMessage[] = [];
  await runJobsCapturingMail(t.ctx, sent);
  const mail = sent.find((message) => message.to.email === email && message.text.includes('/app/login/'))!;
  const session = await redeemSignInLink(t.ctx, /\/app\/login\/([A-Za-z0-9_-]+)/.exec(mail.text)![1]!);
  const browser = new Browser(t.app, lang);
  browser.cookies.set('termin_session', session!.token);
  return browser;
}
