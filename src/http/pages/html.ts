import type { FastifyReply } from 'fastify';

/** `<`, `>`, `&`, `"` and `'` as entities: every value a page shows passes through here. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** Tagged template that escapes every interpolated value unless it is already `SafeHtml`. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((value, index) => {
    out += renderValue(value) + strings[index + 1]!;
  });
  return new SafeHtml(out);
}

function renderValue(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(renderValue).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/**
 * Pages live beside the API: everything under /api/ (and the probes) answers JSON or
 * problem+json, everything else is a page for a person's browser and answers HTML.
 */
export function isPageUrl(url: string): boolean {
  const path = url.split('?')[0]!;
  return !(path.startsWith('/api/') || path === '/api' || path === '/healthz' || path === '/readyz' || path === '/metrics');
}

/** No inline script or style anywhere, so the policy can forbid both. */
const CSP_BASE = ["default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "connect-src 'self'", "form-action 'self'", "base-uri 'none'"];

/** A page no other site may frame (manage, pay, docs, errors): a frame could disguise it or click for the visitor. */
export const PAGE_CSP = [...CSP_BASE, "frame-ancestors 'none'"].join('; ');

/** The web app's pages: never framed, but they frame termin's own booking page (the topic's Embed box shows it live). */
const APP_PAGE_CSP = [...CSP_BASE, "frame-src 'self'", "frame-ancestors 'none'"].join('; ');

/** The booking page, which the business embeds in its own site (assets/embed.js): any site may frame it. */
const FRAMEABLE_PAGE_CSP = [...CSP_BASE, 'frame-ancestors *'].join('; ');

/** Only the booking pages (`/book/…`) are embedded; their error pages too, so an embed shows them rather than a browser's refusal. */
export function isFrameablePage(url: string): boolean {
  return url.startsWith('/book/');
}

function cspOf(url: string): string {
  if (isFrameablePage(url)) return FRAMEABLE_PAGE_CSP;
  return url === '/app' || url.startsWith('/app/') || url.startsWith('/app?') ? APP_PAGE_CSP : PAGE_CSP;
}

export function sendHtml(reply: FastifyReply, status: number, page: SafeHtml | string): FastifyReply {
  if (!isFrameablePage(reply.request.url)) reply.header('x-frame-options', 'DENY');
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('content-security-policy', cspOf(reply.request.url))
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-store')
    .send(String(page));
}

export interface DocumentOptions {
  lang: string;
  title: string;
  body: SafeHtml;
  stylesheets?: readonly string[];
  scripts?: readonly string[];
}

/** The shell every page shares: responsive, its language declared, assets by URL only. */
export function htmlDocument(options: DocumentOptions): SafeHtml {
  return html`<!doctype html>
<html lang="${options.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${options.title}</title>
${(options.stylesheets ?? []).map((href) => html`<link rel="stylesheet" href="${href}">`)}
${(options.scripts ?? []).map((src) => html`<script src="${src}" defer></script>`)}
</head>
<body>
${options.body}
</body>
</html>
`;
}
