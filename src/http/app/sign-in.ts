import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { AddressLimiter } from '../../domain/address-limiter.js';
import { RateLimitedError } from '../../domain/errors.js';
import { isLang, type Lang } from '../../domain/lang.js';
import {
  type SignInLinkView,
  csrfTokenOf,
  newBrowserNonce,
  redeemSignInLink,
  requestSignInLink,
  resumeAppSession,
  signOut,
  viewSignInLink,
} from '../../scheduling/host-app/sign-in.js';
import { type SafeHtml, html, sendHtml } from '../pages/html.js';
import { NONCE_COOKIE, RETURN_COOKIE, SESSION_COOKIE, parseCookies, safeReturnPath, serializeCookie } from './cookies.js';
import { OptionalField, PAGE_ROUTE, TextField, field, formRoute, formSchema, requireFormToken, requireSameOrigin, requireValidForm, type FormBody } from './forms.js';
import { type AppFrame, type AppPageOptions, csrfField, renderPage, seeOther, sessionOf } from './frame.js';
import { APP_STRINGS } from './strings.js';

/** Sign-in link requests one address (IP) may make per minute on this instance; the per-member limit is in the database. */
const SIGN_IN_REQUESTS_PER_IP_PER_MINUTE = 10;

/** The sign-in form: the address to send a link to, the language of that e-mail (the page's), and the page to land on (checked: safeReturnPath). */
const SignInFormSchema = formSchema({ email: TextField, lang: OptionalField, next: OptionalField });
/** How long the page asked for is remembered while the sign-in e-mail is on its way (the link itself lasts less). */
const RETURN_SECONDS = 3_600;
const SignOutFormSchema = formSchema({});
/** The sign-in link's confirmation: its button, with the CSRF value of its page. */
const ConfirmFormSchema = formSchema({});

/** Sign-in by e-mailed link (no session needed): the form, the link sent, the link opened. */
export const signInPages: FastifyPluginAsync<AppPageOptions> = async (app, { ctx, frames }) => {
  const signInLimiter = new AddressLimiter(SIGN_IN_REQUESTS_PER_IP_PER_MINUTE);
  const cookiesOf = (request: FastifyRequest) => parseCookies(request.headers.cookie);

  /** The browser's random nonce cookie, set here when it has none: the CSRF tokens before sign-in are bound to it. */
  function nonceOf(request: FastifyRequest, reply: FastifyReply): string {
    let nonce = cookiesOf(request)[NONCE_COOKIE];
    if (!nonce || nonce.length < 20) {
      nonce = newBrowserNonce();
      reply.header('set-cookie', serializeCookie(NONCE_COOKIE, nonce, { maxAge: 86_400, secure: frames.secure }));
    }
    return nonce;
  }

  /** The login form's CSRF token is bound to the nonce cookie. */
  const loginCsrf = (request: FastifyRequest, reply: FastifyReply) => csrfTokenOf(ctx.secretKey, `nonce:${nonceOf(request, reply)}`);
  /** The confirmation's, to the nonce cookie and to the link itself: a value another page got is no good for this one. */
  const linkBinding = (nonce: string, token: string) => `sign-in-link:${nonce}:${token}`;
  const linkCsrf = (request: FastifyRequest, reply: FastifyReply, token: string) => csrfTokenOf(ctx.secretKey, linkBinding(nonceOf(request, reply), token));
  const publicOrigin = new URL(ctx.config.publicUrl).origin;

  app.get<{ Querystring: { next?: string; lang?: string } }>('/app/login', PAGE_ROUTE, async (request, reply) => {
    const next = safeReturnPath(request.query.next);
    if (await resumeAppSession(ctx, cookiesOf(request)[SESSION_COOKIE])) return seeOther(reply, next ?? '/app');
    const csrf = loginCsrf(request, reply);
    return sendHtml(reply, 200, renderLoginPage(frames.frameOf(request, reply, csrf), next));
  });

  app.post<{ Body: FormBody }>('/app/login', formRoute(SignInFormSchema), async (request, reply) => {
    const body = request.body ?? {};
    const nonce = cookiesOf(request)[NONCE_COOKIE];
    requireFormToken(ctx.secretKey, nonce ? `nonce:${nonce}` : null, body);
    requireValidForm(request);
    const now = ctx.now();
    const blocked = signInLimiter.blockedFor(request.ip, now);
    if (blocked > 0) {
      reply.header('retry-after', String(blocked));
      throw new RateLimitedError('Too many sign-in requests from this address', blocked);
    }
    signInLimiter.record(request.ip, now);
    // The page the browser asked for, kept in this browser until its link is confirmed here.
    const next = safeReturnPath(field(body, 'next'));
    if (next !== null) reply.header('set-cookie', serializeCookie(RETURN_COOKIE, next, { maxAge: RETURN_SECONDS, secure: frames.secure }));
    const frame = frames.frameOf(request, reply, csrfTokenOf(ctx.secretKey, `nonce:${nonce}`));
    const asked = field(body, 'lang');
    const lang: Lang = isLang(asked) ? asked : frame.lang;
    // The same answer whether or not the address is a member's (nothing to learn from it).
    await requestSignInLink(ctx, field(body, 'email').slice(0, 320), lang);
    const t = APP_STRINGS[frame.lang];
    return sendHtml(reply, 200, renderMessagePage(frame, t.linkSentTitle, t.linkSent));
  });

  /** The page answering an unknown, used or expired link (410 Gone: it will not work again). */
  function linkGone(request: FastifyRequest, reply: FastifyReply) {
    const t = APP_STRINGS[frames.langOf(request, reply)];
    const frame = frames.frameOf(request, reply, '');
    return sendHtml(reply, 410, renderMessagePage(frame, t.linkInvalidTitle, t.linkInvalid, { href: '/app/login', label: t.askAgain }));
  }

  /**
   * The e-mailed link: a page naming the account and the member, whose button signs in. The
   * GET (and the HEAD Fastify answers from it) uses nothing, so a mail scanner or a link
   * preview that opens it leaves the link working, and another site that sends a visitor to
   * its own link signs no one in. The button's CSRF value is bound to this link and to the
   * browser's nonce cookie.
   */
  app.get<{ Params: { token: string } }>('/app/login/:token', PAGE_ROUTE, async (request, reply) => {
    const { token } = request.params;
    const link = await viewSignInLink(ctx, token);
    if (link === null) return linkGone(request, reply);
    const csrf = linkCsrf(request, reply, token);
    return sendHtml(reply, 200, renderConfirmPage(frames.frameOf(request, reply, csrf), token, link));
  });

  /** The confirmation: only this post, from this site's page with its CSRF value, uses the link and starts the session. */
  app.post<{ Params: { token: string }; Body: FormBody }>('/app/login/:token', formRoute(ConfirmFormSchema), async (request, reply) => {
    const { token } = request.params;
    requireSameOrigin(request, publicOrigin);
    const nonce = cookiesOf(request)[NONCE_COOKIE];
    requireFormToken(ctx.secretKey, nonce ? linkBinding(nonce, token) : null, request.body);
    requireValidForm(request);
    const session = await redeemSignInLink(ctx, token);
    if (session === null) return linkGone(request, reply);
    reply.header('set-cookie', serializeCookie(SESSION_COOKIE, session.token, { maxAge: Math.floor((session.expiresAt - ctx.now()) / 1000), secure: frames.secure }));
    // Checked again as it is read: the cookie is the browser's to change.
    const back = safeReturnPath(cookiesOf(request)[RETURN_COOKIE]);
    if (cookiesOf(request)[RETURN_COOKIE] !== undefined) reply.header('set-cookie', serializeCookie(RETURN_COOKIE, '', { maxAge: 0, secure: frames.secure }));
    return seeOther(reply, back ?? '/app');
  });
};

/** Sign-out, behind the session guard like the other signed-in pages. */
export const signOutRoute: FastifyPluginAsync<AppPageOptions> = async (app, { ctx, frames }) => {
  app.post('/app/logout', formRoute(SignOutFormSchema), async (request, reply) => {
    requireValidForm(request);
    await signOut(ctx, sessionOf(request).uuid);
    reply.header('set-cookie', serializeCookie(SESSION_COOKIE, '', { maxAge: 0, secure: frames.secure }));
    return seeOther(reply, '/app/login');
  });
};

// ── Rendering ────────────────────────────────────────────────────────────────────────────

export function renderLoginPage(frame: AppFrame, next: string | null = null): SafeHtml {
  const t = APP_STRINGS[frame.lang];
  return renderPage(
    frame,
    t.signInTitle,
    null,
    html`<p>${t.signInIntro}</p>
<form method="post" action="/app/login" class="stack">
${csrfField(frame)}<input type="hidden" name="lang" value="${frame.lang}">${next ? html`<input type="hidden" name="next" value="${next}">` : ''}
<div class="field"><label for="f-email">${t.email}</label><input type="email" id="f-email" name="email" autocomplete="email" required maxlength="320"></div>
<button type="submit" class="primary">${t.sendLink}</button>
</form>`,
  );
}

/** "Sign in to Acme as olga@acme.test?" and the one button that does it. */
export function renderConfirmPage(frame: AppFrame, token: string, link: SignInLinkView): SafeHtml {
  const t = APP_STRINGS[frame.lang];
  return renderPage(
    frame,
    t.confirmSignIn(link.accountName, link.email),
    null,
    html`<p>${link.name} · ${link.accountName}</p>
<p>${t.confirmSignInHint}</p>
<form method="post" action="/app/login/${token}" class="stack">
${csrfField(frame)}<button type="submit" class="primary" id="confirm-sign-in">${t.signInButton}</button>
</form>`,
  );
}

export function renderMessagePage(frame: AppFrame, title: string, text: string, link?: { href: string; label: string }): SafeHtml {
  return renderPage(frame, title, null, html`<p id="message">${text}</p>${link ? html`<p><a href="${link.href}">${link.label}</a></p>` : ''}`);
}
