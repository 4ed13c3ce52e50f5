import fs from 'node:fs';
import path from 'node:path';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { ASSETS_DIR } from '../pages/assets.js';
import { PAGE_CSP } from '../pages/html.js';
import { type IntegrationDocs, renderIntegrationGuides } from '../pages/integration-guides.js';
import { PROBLEM_KINDS } from '../problems.js';
import { escapeHtml } from '../../domain/text.js';

type OpenApiDocument = {
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, unknown> };
};
type OpenApiOperation = {
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: { name: string; in: string; required?: boolean; schema?: unknown; description?: string }[];
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
};

/**
 * Human documentation rendered from the same OpenAPI document the schemas generate, so it
 * cannot drift from what the service validates: a guide through the booking flow first (its
 * prose is written as HTML in assets/docs-guide.html), then every route by topic (health
 * checks last), a sidebar with search. Self-contained (works offline) under the pages' strict
 * CSP: the style and the search script are files.
 */
export const docsRoutes: FastifyPluginAsync<{ integrations: IntegrationDocs }> = async (app, { integrations }) => {
  const guide = loadGuide();
  let cachedDocs: string | undefined;
  app.get('/docs', { schema: { hide: true } }, async (_request, reply) => {
    cachedDocs ??= renderDocs(app.swagger() as unknown as OpenApiDocument, guide);
    return sendPage(reply, cachedDocs);
  });
  app.get('/docs/problems', { schema: { hide: true } }, async (_request, reply) => sendPage(reply, page('Problems', renderProblems(), '')));
  const guides = page('Integrations: Zoom, Google, Microsoft, Webex', renderIntegrationGuides(integrations), '');
  app.get('/docs/integrations', { schema: { hide: true } }, async (_request, reply) => sendPage(reply, guides));
  app.get('/docs/assets/docs.css', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(DOCS_CSS),
  );
  app.get('/docs/assets/docs.js', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(DOCS_JS),
  );
};

function sendPage(reply: FastifyReply, body: string): FastifyReply {
  return reply
    .type('text/html; charset=utf-8')
    .header('content-security-policy', PAGE_CSP)
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .send(body);
}

interface RenderedOperation {
  id: string;
  method: string;
  path: string;
  summary: string;
  html: string;
}

/** Topics in the order an integrator meets them; health checks and anything unknown come last. */
const TAG_ORDER = ['Scheduling', 'Meetings', 'Payments', 'Webhooks', 'Meeting topics', 'Availability', 'Calendars', 'Teams', 'Account', 'Discount codes'];

function tagRank(tag: string): number {
  if (tag === 'Operations') return 1_000;
  const index = TAG_ORDER.indexOf(tag);
  return index === -1 ? 500 : index;
}

function renderDocs(doc: OpenApiDocument, guide: FillGuide): string {
  const byTag = new Map<string, RenderedOperation[]>();
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const tag = operation.tags?.[0] ?? 'Other';
      const list = byTag.get(tag) ?? [];
      const id = `op-${method}-${slug(path)}`;
      list.push({ id, method, path, summary: operation.summary ?? '', html: renderOperation(id, method, path, operation) });
      byTag.set(tag, list);
    }
  }
  // Health checks live outside /api/v1; when the API document leaves them out, they are described here, last.
  if (!byTag.has('Operations')) byTag.set('Operations', HEALTH_CHECKS);
  const tags = [...byTag.keys()].sort((a, b) => tagRank(a) - tagRank(b) || a.localeCompare(b));
  const sections = tags.map(
    (tag) =>
      `<section class="tag"><h2 id="${slug(tag)}">${escapeHtml(tag)}</h2>${byTag
        .get(tag)!
        .map((op) => op.html)
        .join('')}</section>`,
  );
  const schemaEntries = Object.entries(doc.components?.schemas ?? {});
  const schemas = schemaEntries.map(([name, schema]) => `<h3 id="schema-${slug(name)}">${escapeHtml(name)}</h3>${renderSchema(schema, name)}`).join('');

  const navGroup = (title: string, href: string, items: { href: string; label: string; search: string }[]) =>
    `<li class="nav-group"><a class="nav-title" href="${href}">${escapeHtml(title)}</a><ul>${items
      .map((item) => `<li data-search="${escapeHtml(item.search.toLowerCase())}"><a href="${item.href}">${item.label}</a></li>`)
      .join('')}</ul></li>`;
  const nav = [
    navGroup(
      'Guide: booking end to end',
      '#guide',
      GUIDE_STEPS.map((step) => ({ href: `#${step.id}`, label: escapeHtml(step.title), search: `guide ${step.title} ${step.keywords}` })),
    ),
    ...tags.map((tag) =>
      navGroup(
        tag,
        `#${slug(tag)}`,
        byTag.get(tag)!.map((op) => ({
          href: `#${op.id}`,
          label: `<span class="method ${op.method}">${op.method.toUpperCase()}</span> ${escapeHtml(op.path.replace(/^\/api\/v1/, ''))}`,
          search: `${tag} ${op.method} ${op.path} ${op.summary}`,
        })),
      ),
    ),
    navGroup(
      'Schemas',
      '#schemas',
      schemaEntries.map(([name, schema]) => ({
        href: `#schema-${slug(name)}`,
        label: escapeHtml(name),
        search: `schema ${name} ${Object.keys((schema as JsonSchema).properties ?? {}).join(' ')}`,
      })),
    ),
  ].join('');

  const sidebar = `<aside class="sidebar" aria-label="Contents">
    <label class="search-label" for="doc-search">Search</label>
    <input id="doc-search" type="search" placeholder="Search routes, fields, guide…" autocomplete="off" aria-controls="doc-nav">
    <p id="doc-search-empty" class="search-empty" hidden>Nothing matches.</p>
    <nav id="doc-nav"><ul>${nav}<li class="nav-group"><a class="nav-title" href="/docs/problems">Problems (error codes)</a></li><li class="nav-group"><a class="nav-title" href="/docs/integrations">Integrations (Zoom, Google, Microsoft, Webex)</a></li></ul></nav>
  </aside>`;

  const body = `
    ${guide({ description: doc.info.description ?? '', version: doc.info.version, apiKeyHeader: 'X-Service-Api-Key: tmn_…' })}
    ${sections.join('')}
    <section><h2 id="schemas">Schemas</h2>${schemas}</section>`;
  return page(doc.info.title, body, sidebar);
}

/** For load balancers and supervisors: no key, no /api/v1 prefix, plain JSON. */
const HEALTH_CHECKS: RenderedOperation[] = [
  {
    id: 'op-get-healthz',
    method: 'get',
    path: '/healthz',
    summary: 'Liveness: the process is up',
    html: `<article id="op-get-healthz"><h3><span class="method get">GET</span> <code class="path">/healthz</code></h3>
      <p><b>Liveness: the process is up</b> <span class="badge public">public</span></p>
      <p>Answers while the process runs, whatever the database does; restart the process when it stops answering.</p>
      ${example('Response 200', '{ "status": "ok", "version": "0.1.0" }')}
      <p><code>version</code> is the running release (package.json's), to check that a rollout reached every instance.</p></article>`,
  },
  {
    id: 'op-get-readyz',
    method: 'get',
    path: '/readyz',
    summary: 'Readiness: the database is reachable',
    html: `<article id="op-get-readyz"><h3><span class="method get">GET</span> <code class="path">/readyz</code></h3>
      <p><b>Readiness: the database is reachable</b> <span class="badge public">public</span></p>
      <p>200 while the database answers (within 1.5 s), 503 with <code>Retry-After</code> otherwise: point the load balancer here.</p>
      ${example('Responses', '200 { "status": "ready" }\n503 { "status": "database unreachable" }')}</article>`,
  },
];

const GUIDE_STEPS = [
  { id: 'guide-members', title: 'A. Add the people who host', keywords: 'start from zero members team users username add' },
  { id: 'guide-hours', title: 'B. Set their hours', keywords: 'availability weekly hours overrides time zone' },
  { id: 'guide-topic', title: 'C. Create a topic', keywords: 'meeting topic duration places hosts create' },
  { id: 'guide-public', title: 'D. Make it public', keywords: 'public booking page patch topic' },
  { id: 'guide-page', title: 'E. See its booking page', keywords: 'booking page book embed html participant' },
  { id: 'guide-slots', title: '1. Find free slots', keywords: 'calculate-schedule slots month offset timezone' },
  { id: 'guide-why-not', title: '1a. Why is a time not offered?', keywords: 'explain-schedule why not offered reasons troubleshoot' },
  { id: 'guide-book', title: '2. Book', keywords: 'schedule book idempotency-key dates participant' },
  { id: 'guide-pay', title: '3. Pay (paid topics)', keywords: 'payment redirectUrl gateway pending_payment expiresAt stripe p24 payu paypal tpay' },
  { id: 'guide-cancel', title: '4. Cancel', keywords: 'cancel refund reason' },
  { id: 'guide-reschedule', title: '5. Reschedule', keywords: 'reschedule move start' },
  { id: 'guide-webhooks', title: '6. Webhooks', keywords: 'webhooks events signature standard webhooks secret whsec' },
  { id: 'guide-privacy', title: '7. Participants’ data and the audit log', keywords: 'participants export erase erasure gdpr retention audit log events' },
  { id: 'guide-money', title: 'Money and minor units', keywords: 'money amount currency minor units zero-decimal jpy krw' },
];

/** The page's prose (its introduction and the guide) is a file in assets/, written as HTML; see its opening comment. */
const GUIDE_FILE = 'docs-guide.html';
const GUIDE_PLACEHOLDERS = ['description', 'version', 'apiKeyHeader'] as const;
type FillGuide = (values: Record<(typeof GUIDE_PLACEHOLDERS)[number], string>) => string;

/**
 * Reads the guide once, at start, and checks it against this file: it uses no placeholder
 * left unfilled, and its steps are the sidebar's (same ids, same titles), so an edit to one
 * that misses the other stops the start instead of serving a broken page. The function
 * returned fills `{{name}}` with its value, escaped as text.
 */
function loadGuide(): FillGuide {
  const file = path.join(ASSETS_DIR, GUIDE_FILE);
  // The file's opening comment is for its editors, not the page.
  const text = fs
    .readFileSync(file, 'utf8')
    .replace(/^<!--[\s\S]*?-->\s*/, '')
    .trimEnd();
  const names: readonly string[] = GUIDE_PLACEHOLDERS;
  const unknown = [...text.matchAll(/\{\{([^}]*)\}\}/g)].map((match) => match[1]!).filter((name) => !names.includes(name));
  const headings = [...text.matchAll(/<h3 id="(guide-[^"]*)">(.*?)<\/h3>/g)].map((match) => `${match[1]}: ${match[2]}`);
  const steps = GUIDE_STEPS.map((step) => `${step.id}: ${escapeHtml(step.title)}`);
  if (unknown.length > 0) throw new Error(`${file}: unknown placeholders ${unknown.map((name) => `{{${name}}}`).join(', ')} (known: ${names.join(', ')})`);
  if (headings.join('\n') !== steps.join('\n')) throw new Error(`${file}: the guide's steps (${headings.join('; ')}) are not GUIDE_STEPS (${steps.join('; ')})`);
  return (values) => text.replace(/\{\{([^}]*)\}\}/g, (_match, name: keyof typeof values) => escapeHtml(values[name]));
}

function example(title: string, code: string): string {
  return `<figure class="example"><figcaption>${escapeHtml(title)}</figcaption><pre tabindex="0"><code>${escapeHtml(code.trim())}</code></pre></figure>`;
}

function renderOperation(id: string, method: string, path: string, op: OpenApiOperation): string {
  const params = (op.parameters ?? [])
    .map((p) => {
      const schema = (p.schema ?? {}) as JsonSchema;
      return `<tr><td><code>${escapeHtml(p.name)}</code>${p.required ? ' <span class="req">required</span>' : ''}</td><td>${escapeHtml(p.in)}, ${typeOf(schema)}</td><td>${escapeHtml(noteFor(p.name, { ...schema, description: p.description ?? schema.description }))}</td></tr>`;
    })
    .join('');
  const body = op.requestBody?.content?.['application/json']?.schema;
  const problems: string[] = [];
  const responses = Object.entries(op.responses ?? {})
    .map(([status, response]) => {
      const schema = Object.values(response.content ?? {})[0]?.schema as JsonSchema | undefined;
      if (schema?.$ref?.endsWith('/Problem')) {
        problems.push(status);
        return '';
      }
      const description = response.description && response.description !== 'Default Response' ? ` ${escapeHtml(response.description)}` : '';
      return `<li><b>${escapeHtml(status)}</b>${description}${schema ? renderSchema(schema) : ''}</li>`;
    })
    .join('');
  const errors = problems.length > 0 ? `<li>Errors, as <a href="/docs/problems">problem details</a>: <b>${problems.join(' · ')}</b></li>` : '';
  return `<article id="${id}">
    <h3><span class="method ${method}">${method.toUpperCase()}</span> <code class="path">${escapeHtml(path)}</code></h3>
    <p><b>${escapeHtml(op.summary ?? '')}</b> ${accessBadge(op.security)}</p>
    ${op.description ? `<p>${prose(op.description)}</p>` : ''}
    ${params ? `<h4>Parameters</h4>${table(params)}` : ''}
    ${body ? `<h4>Request body</h4>${renderSchema(body)}` : ''}
    <h4>Responses</h4><ul class="responses">${responses}${errors}</ul>
  </article>`;
}

type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  patternProperties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  required?: string[];
  description?: string;
  minimum?: number;
  maximum?: number;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  pattern?: string;
  default?: unknown;
  examples?: unknown[];
};

/** Scrolls sideways on a phone, so it takes focus: keyboard users can scroll it too. */
function table(rows: string): string {
  return `<div class="table-wrap" tabindex="0" role="region" aria-label="Fields"><table><thead><tr><th>field</th><th>type</th><th>notes</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

/**
 * A schema as a person reads it: a table of fields for objects (nested objects, nullable
 * ones such as `price` included, as `price.amount` rows), a one-line type otherwise.
 */
function renderSchema(raw: unknown, context = ''): string {
  const schema = raw as JsonSchema;
  if (schema.properties && Object.keys(schema.properties).length > 0) return table(fieldRows(schema, '', 0, context));
  return `<p>${typeOf(schema)}${schema.description ? ` ${prose(schema.description)}` : ''}</p>`;
}

/** The object behind a field: itself, a nullable object's object, an array's items. */
function objectInside(schema: JsonSchema): { object: JsonSchema; suffix: string } | null {
  if (schema.properties && Object.keys(schema.properties).length > 0) return { object: schema, suffix: '' };
  const branch = (schema.anyOf ?? schema.oneOf)?.find((option) => option.properties && Object.keys(option.properties).length > 0);
  if (branch) return { object: branch, suffix: '' };
  if (schema.type === 'array' && schema.items) {
    const inner = objectInside(schema.items);
    return inner && { object: inner.object, suffix: `[]${inner.suffix}` };
  }
  return null;
}

function fieldRows(schema: JsonSchema, prefix: string, depth: number, context: string): string {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {})
    .map(([name, field]) => {
      const full = `${prefix}${name}`;
      const row = `<tr><td><code>${escapeHtml(full)}</code>${required.has(name) ? ' <span class="req">required</span>' : ''}</td><td>${typeOf(field)}</td><td>${prose(noteFor(name, field, context ? `${context}.${full}` : ''))}</td></tr>`;
      const inner = depth < 3 ? objectInside(field) : null;
      return inner ? row + fieldRows(inner.object, `${full}${inner.suffix}.`, depth + 1, context) : row;
    })
    .join('');
}

function typeOf(schema: JsonSchema): string {
  if (schema.$ref) {
    const name = schema.$ref.split('/').pop()!;
    return `<a href="/docs#schema-${slug(name)}">${escapeHtml(name)}</a>`;
  }
  const options = schema.anyOf ?? schema.oneOf;
  if (options) return options.map(typeOf).join(' or ');
  if (schema.enum) return schema.enum.map((value) => `<code>${escapeHtml(JSON.stringify(value))}</code>`).join(' | ');
  if (schema.const !== undefined) return `<code>${escapeHtml(JSON.stringify(schema.const))}</code>`;
  if (schema.type === 'array') return `array of ${schema.items ? typeOf(schema.items) : 'any'}`;
  if (schema.type === 'object') return 'object';
  const type = Array.isArray(schema.type) ? schema.type.join(' | ') : (schema.type ?? 'any');
  return escapeHtml(schema.format ? `${type} (${schema.format})` : type);
}

/** Notes for fields the schemas leave undescribed, by their usual meaning in this API. */
const FIELD_NOTES: Record<string, string> = {
  uuid: 'Identifier (UUID).',
  name: 'Display name.',
  createdAt: 'When it was created (UTC).',
  updatedAt: 'When it last changed (UTC).',
  email: 'E-mail address.',
  firstName: 'First name.',
  lastName: 'Last name.',
  username: 'User name.',
  timezone: 'IANA time zone, e.g. Europe/Warsaw.',
  start: 'Start, an instant in UTC (ISO 8601 with Z).',
  end: 'End, an instant in UTC (ISO 8601 with Z).',
  date: 'A local calendar date, YYYY-MM-DD.',
  status: 'Current state; see the values in the type column.',
  amount: "An integer in minor units of `currency` (15000 PLN is 150.00 PLN; for zero-decimal currencies such as JPY, whole units). See the guide's Money section.",
  currency: 'ISO 4217 currency code, upper case (PLN, EUR, JPY).',
  meetings: 'The meetings concerned.',
  users: 'The members.',
  teams: 'The teams.',
  days: 'Every date of the range, in order.',
  slots: 'Free starts on this date, in time order.',
  weekly: "Hours per weekday, in the host's time zone.",
  overrides: 'Dates whose hours replace the weekly hours.',
  intervals: 'Local wall-clock intervals (HH:MM–HH:MM).',
  events: 'Event names.',
  nextCursor: 'Pass as `cursor` for the next page; null on the last page.',
  'Problem.code': 'Stable machine-readable code (see the problem types).',
  'Problem.title': 'Short human-readable summary of the problem type.',
  'Problem.detail': 'What went wrong in this case.',
  'Problem.type': "A link to this problem type's explanation.",
  'Problem.status': 'The HTTP status code.',
  'Problem.errors': 'One entry per problem, with a JSON Pointer `path`.',
  'Problem.errors[].path': 'JSON Pointer to the field concerned.',
  'Problem.errors[].message': 'What is wrong with it.',
  apiKey: 'The secret key, shown only in this response.',
  secret: 'Signing secret, shown only in this response.',
  settings: 'Non-secret settings (secrets are never returned).',
  configured: 'Whether every setting the gateway needs is present.',
  participant: 'The person who booked.',
  payment: 'The payment, or null when nothing is to be paid.',
  price: 'The price, or null for a free topic.',
  invoice: 'Invoice details when any were given, else null.',
  form: "Answers to the topic's form questions, by key.",
  metadata: 'Your own key-value data, returned as sent.',
  note: "The participant's note, or null.",
  team: 'The team uuid, or null.',
  admin: 'Admin of this team.',
  version: 'Version number.',
  label: 'Text shown to the participant.',
  key: 'Stable key the answer is stored under.',
  required: 'Whether an answer is required.',
};

function noteFor(name: string, schema: JsonSchema, qualified = ''): string {
  const rules: string[] = [];
  if (schema.minimum !== undefined) rules.push(`≥ ${schema.minimum}`);
  if (schema.maximum !== undefined) rules.push(`≤ ${schema.maximum}`);
  if (schema.multipleOf !== undefined) rules.push(`multiple of ${schema.multipleOf}`);
  if (schema.minLength !== undefined && schema.minLength > 1) rules.push(`at least ${schema.minLength} characters`);
  if (schema.maxLength !== undefined) rules.push(`at most ${schema.maxLength} characters`);
  if (schema.maxItems !== undefined) rules.push(`at most ${schema.maxItems} entries`);
  if (schema.default !== undefined) rules.push(`default ${JSON.stringify(schema.default)}`);
  const nullable = (schema.anyOf ?? schema.oneOf)?.some((option) => option.type === 'null');
  let base = schema.description ?? FIELD_NOTES[qualified] ?? FIELD_NOTES[name] ?? fallbackNote(schema);
  // Money amounts always say how to read them, even where the schema's own note is short.
  if (name === 'amount' && !/minor units/i.test(base)) base = `${base} ${FIELD_NOTES.amount}`;
  if (name === 'amount' && !/JPY|zero-decimal/i.test(base)) base = `${base} Zero-decimal currencies (JPY, KRW) count whole units: 1500 JPY is ¥1,500.`;
  return [base, nullable && !/null/i.test(base) ? 'May be null.' : '', rules.length > 0 ? `(${rules.join(', ')})` : ''].filter(Boolean).join(' ');
}

function fallbackNote(schema: JsonSchema): string {
  // A nullable value reads as its value: "An instant in UTC …", then "May be null." is added.
  const options = (schema.anyOf ?? schema.oneOf)?.filter((option) => option.type !== 'null');
  if (options?.length === 1) return fallbackNote(options[0]!);
  if (schema.$ref) return `See ${schema.$ref.split('/').pop()}.`;
  if (schema.format === 'date-time') return 'An instant in UTC (ISO 8601 with Z).';
  if (schema.format === 'date') return 'A local calendar date, YYYY-MM-DD.';
  if (schema.format === 'uuid') return 'Identifier (UUID).';
  if (schema.format === 'uri') return 'A URL.';
  if (schema.enum) return 'One of the values listed.';
  if (schema.type === 'boolean') return 'true or false.';
  if (schema.type === 'integer') return 'A whole number.';
  if (schema.type === 'array') return 'A list; see the type column.';
  if (schema.type === 'object' || schema.properties) return 'An object; its fields follow.';
  if (schema.anyOf || schema.oneOf) return 'One of the types listed.';
  return 'Text.';
}

function accessBadge(security: unknown[] | undefined): string {
  if (!security || security.length === 0) return '<span class="badge public">public</span>';
  const optional = security.some((requirement) => Object.keys(requirement as object).length === 0);
  return optional ? '<span class="badge public">public; an API key is optional</span>' : '<span class="badge auth">API key</span>';
}

/** Escaped text with `code` spans, as the route descriptions write them. */
function prose(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}

function renderProblems(): string {
  const rows = Object.entries(PROBLEM_KINDS)
    .map(([code, kind]) => `<section id="${kind.anchor}"><h2>${kind.status} <code>${code}</code>: ${escapeHtml(kind.title)}</h2><p>${prose(kind.explanation)}</p></section>`)
    .join('');
  return `<p>Every error response is RFC 9457 problem details with <code>Content-Type: application/problem+json</code>:
    <code>type</code> links here, <code>code</code> is stable, <code>detail</code> explains this occurrence, and validation
    failures list <code>errors</code> with a JSON Pointer <code>path</code> each. <a href="/docs">Back to the API</a>.</p>${rows}`;
}

function page(title: string, body: string, sidebar: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/docs/assets/docs.css"><script src="/docs/assets/docs.js" defer></script></head>
<body class="${sidebar ? 'with-sidebar' : ''}">${sidebar}<main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
}

const DOCS_CSS = `
*{box-sizing:border-box}
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1f2328;background:#fff}
main{max-width:64rem;padding:1rem 1.5rem 4rem;min-width:0}
body:not(.with-sidebar) main{margin:0 auto}
h1{margin-top:.5rem}h2{margin-top:2.5rem;border-bottom:2px solid #d0d7de;padding-bottom:.25rem}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:13px}
code{overflow-wrap:anywhere}
pre{background:#f6f8fa;padding:.75rem;overflow:auto;border-radius:6px;margin:0}
.example{margin:.75rem 0}.example figcaption{font-size:12px;font-weight:600;color:#57606a;margin-bottom:.25rem}
.guide{background:#fbfcfd;border:1px solid #d0d7de;border-radius:8px;padding:0 1rem 1rem}
.guide h2{margin-top:1rem}
article{border-top:1px solid #d0d7de;padding:.5rem 0;scroll-margin-top:1rem}
.method{display:inline-block;min-width:3.5rem;font-weight:700;font-family:ui-monospace,monospace;font-size:12px}
.get{color:#1a7f37}.post{color:#0969da}.put,.patch{color:#9a6700}.delete{color:#cf222e}
.badge{font-size:12px;border:1px solid #d0d7de;border-radius:1rem;padding:0 .5rem;white-space:nowrap}
.table-wrap{overflow-x:auto;margin:.5rem 0}
table{border-collapse:collapse;width:100%;font-size:14px}
th,td{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left;vertical-align:top}
td:first-child{white-space:nowrap}th{background:#f6f8fa}.req{font-size:11px;color:#cf222e}
.responses{padding-left:1.25rem}
.sidebar{background:#f6f8fa;border-bottom:1px solid #d0d7de;padding:.75rem 1rem}
.sidebar input{width:100%;padding:.5rem;font:inherit;border:1px solid #8c959f;border-radius:6px}
.search-label{display:block;font-weight:600;font-size:13px;margin-bottom:.25rem}
.sidebar nav{max-height:40vh;overflow:auto;margin-top:.5rem}
.sidebar ul{list-style:none;margin:0;padding:0}.sidebar li li{padding-left:.5rem}
.sidebar a{display:block;padding:.2rem .25rem;color:#0550ae;text-decoration:none;border-radius:4px;font-size:13px;overflow-wrap:anywhere}
.sidebar a:hover,.sidebar a:focus{background:#ddf4ff}
.nav-title{font-weight:700;margin-top:.5rem;color:#1f2328!important}
.search-empty{font-size:13px;color:#57606a}
@media (min-width:900px){
  body.with-sidebar{display:grid;grid-template-columns:19rem minmax(0,1fr)}
  .sidebar{position:sticky;top:0;height:100vh;overflow:auto;border-bottom:0;border-right:1px solid #d0d7de}
  .sidebar nav{max-height:none}
}
@media (max-width:480px){main{padding:.75rem .75rem 3rem}h1{font-size:1.6rem}td:first-child{white-space:normal}}
`;

/** Sidebar search: filters the contents by what each entry's route, summary and fields say. */
const DOCS_JS = `
(function () {
  var input = document.getElementById('doc-search');
  if (!input) return;
  var empty = document.getElementById('doc-search-empty');
  var groups = Array.prototype.slice.call(document.querySelectorAll('#doc-nav .nav-group'));
  function filter() {
    var words = input.value.toLowerCase().split(/\\s+/).filter(Boolean);
    var shown = 0;
    groups.forEach(function (group) {
      var items = Array.prototype.slice.call(group.querySelectorAll('li[data-search]'));
      var title = group.querySelector('.nav-title').textContent.toLowerCase();
      var any = false;
      items.forEach(function (item) {
        var text = item.getAttribute('data-search') + ' ' + title;
        var match = words.every(function (word) { return text.indexOf(word) !== -1; });
        item.hidden = !match;
        if (match) { any = true; shown += 1; }
      });
      group.hidden = words.length > 0 && !any;
    });
    if (empty) empty.hidden = words.length === 0 || shown > 0;
  }
  input.addEventListener('input', filter);
  input.addEventListener('keydown', function (event) {
    if (event.key === 'Enter') {
      var first = document.querySelector('#doc-nav li[data-search]:not([hidden]) a');
      if (first) { event.preventDefault(); first.click(); }
    }
  });
  document.addEventListener('keydown', function (event) {
    if (event.key === '/' && document.activeElement !== input) { event.preventDefault(); input.focus(); }
  });
})();
`;

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}
