import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import type { FieldError } from '../../domain/errors.js';
import { ValidationError } from '../../domain/errors.js';
import type { FormatLocale } from '../../domain/formats.js';
import { isLang, LANGS, type Lang } from '../../domain/lang.js';
import type { AppSession } from '../../scheduling/host-app/sign-in.js';
import type { AssetCatalog } from '../pages/assets.js';
import { type SafeHtml, html, htmlDocument } from '../pages/html.js';
import { pickLang, pickLocale } from '../pages/i18n.js';
import { LANG_COOKIE, parseCookies, serializeCookie } from './cookies.js';
import { APP_STRINGS, type AppStrings } from './strings.js';

/** What every page of the app shares: language, assets, the signed-in member and the form token. */
export interface AppFrame {
  lang: Lang;
  locale: FormatLocale;
  /** The current path, for the language switch and the navigation's current page. */
  path: string;
  stylesheets: readonly string[];
  script: string;
  csrf: string;
  /** Null on the sign-in pages. */
  member: { name: string; email: string } | null;
  /** The teams the member administers: each has a page. */
  teams: readonly { uuid: string; name: string }[];
}

/** The navigation entry a page belongs to (marked as the current page). */
export type Section = 'upcoming' | 'past' | 'availability' | 'time-off' | 'topics' | 'connections' | 'profile' | `team:${string}` | AdminSection | null;
/** The admins' pages (an admin of any team of the account): in the navigation only for them. */
export type AdminSection = 'keys' | 'integrations' | 'webhooks' | 'account' | 'participants' | 'audit';

// ── Rendering: the layout every page sits in ─────────────────────────────────────────────

/**
 * The language switch: one link per language of LANGS, each named in itself ("Deutsch",
 * "Українська") and marked with its `lang` and `hreflang`, so a reader who does not know the
 * page's language still finds their own. Plain links: Tab reaches each, Enter follows it.
 */
function langSwitch(frame: AppFrame, t: AppStrings): SafeHtml {
  return html`<nav class="lang" aria-label="${t.languageMenu}"><ul class="lang-menu">${LANGS.map(
    (lang) =>
      html`<li><a href="${frame.path}?lang=${lang}" lang="${lang}" hreflang="${lang}"${lang === frame.lang ? html` aria-current="true"` : ''}>${t[`languageName_${lang}`]}</a></li>`,
  )}</ul></nav>`;
}

/** A value of `?lang=` or the language cookie, when it names a language termin speaks. */
function knownLang(value: string | undefined): Lang | null {
  return isLang(value) ? value : null;
}

/** The admins' pages in the navigation: shown to a member who administers a team (`frame.teams`), as only they may use them. */
function adminLinks(t: AppStrings, link: (href: string, label: string, name: Section) => SafeHtml): SafeHtml {
  return html`${link('/app/keys', t.keysTitle, 'keys')}${link('/app/integrations', t.integrationsTitle, 'integrations')}${link('/app/webhooks', t.webhooksTitle, 'webhooks')}${link('/app/account', t.accountTitle, 'account')}${link('/app/participants', t.participantsTitle, 'participants')}${link('/app/audit', t.auditTitle, 'audit')}`;
}

/** Hidden fields every form carries: the CSRF token. */
export function csrfField(frame: Pick<AppFrame, 'csrf'>): SafeHtml {
  return html`<input type="hidden" name="csrf" value="${frame.csrf}">`;
}

/** A whole page: header (navigation, sign-out, language switch), then `body` under its h1. */
export function renderPage(frame: AppFrame, title: string, section: Section, body: SafeHtml): SafeHtml {
  const t = APP_STRINGS[frame.lang];
  const link = (href: string, label: string, name: Section) => html`<li><a href="${href}"${section === name ? html` aria-current="page"` : ''}>${label}</a></li>`;
  const header = html`<header class="app-head" data-copied="${t.copied}">
<p class="brand">${t.appName}</p>
${
  frame.member
    ? html`<nav aria-label="${t.navLabel}" class="app-menu"><button type="button" class="menu-toggle" aria-expanded="false" aria-controls="app-nav" hidden>${t.menu}</button><ul class="app-nav" id="app-nav">${link('/app', t.upcoming, 'upcoming')}${link('/app/past', t.past, 'past')}${link('/app/availability', t.availability, 'availability')}${link('/app/time-off', t.timeOff.title, 'time-off')}${link('/app/topics', t.topics, 'topics')}${link('/app/connections', t.connections, 'connections')}${link('/app/profile', t.profileTitle, 'profile')}${frame.teams.map(
        (team) => link(`/app/team/${team.uuid}`, `${t.teamNav}: ${team.name}`, `team:${team.uuid}`),
      )}${frame.teams.length > 0 ? adminLinks(t, link) : ''}</ul></nav>
<form method="post" action="/app/logout" class="sign-out">${csrfField(frame)}<span class="who">${t.signedInAs} ${frame.member.name}</span> <button type="submit" class="link">${t.signOut}</button></form>`
    : ''
}
${langSwitch(frame, t)}
</header>`;
  return htmlDocument({
    lang: frame.lang,
    title: `${title} · ${t.appName}`,
    body: html`${header}<main id="main" class="page app">
<h1>${title}</h1>
${body}
</main>`,
    stylesheets: frame.stylesheets,
    scripts: [frame.script],
  });
}

export function notice(message: string | null): SafeHtml {
  return message ? html`<p class="notice" role="status">${message}</p>` : html``;
}

/** A form's field errors above it, each with the field it is about. */
export function errorList(t: AppStrings, errors: readonly FieldError[]): SafeHtml {
  if (errors.length === 0) return html``;
  return html`<div class="alert" role="alert"><p>${t.fixErrors}</p><ul>${errors.map((error) => html`<li>${error.path ? `${error.path}: ` : ''}${error.message}</li>`)}</ul></div>`;
}

// ── Requests and replies ─────────────────────────────────────────────────────────────────

/** Builds each request's frame: the language (switch, cookie, Accept-Language) and the app's assets. */
export interface Frames {
  /** `?lang=` (remembered in a cookie), else the remembered choice, else Accept-Language. */
  langOf(request: FastifyRequest, reply: FastifyReply): Lang;
  /** The frame of a page whose forms carry `csrf`. */
  frameOf(request: FastifyRequest, reply: FastifyReply, csrf: string): AppFrame;
  /** A signed-in member's page: its forms carry the session's token. */
  memberFrameOf(request: FastifyRequest, reply: FastifyReply): AppFrame;
  /** Whether cookies are Secure (PUBLIC_URL is https). */
  secure: boolean;
}

/** What each page plugin is registered with. */
export interface AppPageOptions {
  ctx: AppContext;
  frames: Frames;
}

export function createFrames(ctx: AppContext, assets: AssetCatalog): Frames {
  const stylesheets = [assets.url('booking.css'), assets.url('app.css')];
  const script = assets.url('app.js');
  const secure = ctx.config.publicUrl.startsWith('https:');

  function langOf(request: FastifyRequest, reply: FastifyReply): Lang {
    const query = knownLang((request.query as { lang?: string } | undefined)?.lang);
    if (query) {
      reply.header('set-cookie', serializeCookie(LANG_COOKIE, query, { maxAge: 365 * 86_400, secure }));
      return query;
    }
    const remembered = parseCookies(request.headers.cookie)[LANG_COOKIE];
    return knownLang(remembered) ?? pickLang(remembered, request.headers['accept-language']);
  }

  function frameOf(request: FastifyRequest, reply: FastifyReply, csrf: string): AppFrame {
    const lang = langOf(request, reply);
    const session = request.appSession;
    return {
      lang,
      locale: pickLocale(lang, request.headers['accept-language']),
      path: request.url.split('?')[0]!,
      stylesheets,
      script,
      csrf,
      member: session ? { name: `${session.user.firstName} ${session.user.lastName}`, email: session.user.email } : null,
      teams: session ? (request.appTeams ?? []) : [],
    };
  }

  return { langOf, frameOf, memberFrameOf: (request, reply) => frameOf(request, reply, sessionOf(request).csrfToken), secure };
}

/** The signed-in member of a page behind the app's session guard (which sets it). */
export function sessionOf(request: FastifyRequest): AppSession {
  return request.appSession!;
}

/** After a change: the browser gets the page to show with a GET (a reload posts nothing twice). */
export function seeOther(reply: FastifyReply, location: string): FastifyReply {
  return reply.code(303).header('location', location).header('cache-control', 'no-store').send();
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A malformed id in a path is bad input (a 400 page), never a database query. */
export function requireUuid(value: string): void {
  if (!UUID.test(value)) throw new ValidationError([{ path: '/params/uuid', message: 'must be a UUID' }]);
}
