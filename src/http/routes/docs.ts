import type { FastifyPluginAsync } from 'fastify';
import { PROBLEM_KINDS } from '../problems.js';

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
 * cannot drift from what the service validates. Self-contained HTML: works offline.
 */
export const docsRoutes: FastifyPluginAsync = async (app) => {
  let cachedDocs: string | undefined;
  app.get('/docs', { schema: { hide: true } }, async (_request, reply) => {
    cachedDocs ??= renderDocs(app.swagger() as unknown as OpenApiDocument);
    return reply.type('text/html; charset=utf-8').send(cachedDocs);
  });
  app.get('/docs/problems', { schema: { hide: true } }, async (_request, reply) => {
    return reply.type('text/html; charset=utf-8').send(page('Problems', renderProblems()));
  });
};

function renderDocs(doc: OpenApiDocument): string {
  const byTag = new Map<string, string[]>();
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const tag = operation.tags?.[0] ?? 'Other';
      const list = byTag.get(tag) ?? [];
      list.push(renderOperation(method, path, operation));
      byTag.set(tag, list);
    }
  }
  const sections = [...byTag].map(([tag, ops]) => `<section><h2 id="${slug(tag)}">${escape(tag)}</h2>${ops.join('')}</section>`);
  const toc = [...byTag.keys()].map((tag) => `<a href="#${slug(tag)}">${escape(tag)}</a>`).join(' · ');
  const schemas = Object.entries(doc.components?.schemas ?? {})
    .map(([name, schema]) => `<h3 id="schema-${slug(name)}">${escape(name)}</h3>${renderSchema(schema)}`)
    .join('');
  const body = `
    <p>${escape(doc.info.description ?? '')}</p>
    <p>Version ${escape(doc.info.version)}. Machine-readable: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a> (OpenAPI 3.1).
    Authenticate with the <code>X-Service-Api-Key</code> header. Errors: <a href="/docs/problems">problem types</a>.</p>
    <nav>${toc} · <a href="#schemas">Schemas</a> · <a href="/docs/problems">Problems</a></nav>
    ${sections.join('')}
    <section><h2 id="schemas">Schemas</h2>${schemas}</section>`;
  return page(doc.info.title, body);
}

function renderOperation(method: string, path: string, op: OpenApiOperation): string {
  const params = (op.parameters ?? [])
    .map((p) => `<li><code>${escape(p.name)}</code> (${escape(p.in)}${p.required ? ', required' : ''}) ${escape(p.description ?? '')}</li>`)
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
      const description = response.description && response.description !== 'Default Response' ? ` ${escape(response.description)}` : '';
      return `<li><b>${escape(status)}</b>${description}${schema ? renderSchema(schema) : ''}</li>`;
    })
    .join('');
  const errors = problems.length > 0 ? `<li>Errors, as <a href="/docs/problems">problem details</a>: <b>${problems.join(' · ')}</b></li>` : '';
  return `<article>
    <h3><span class="method ${method}">${method.toUpperCase()}</span> <code>${escape(path)}</code></h3>
    <p><b>${escape(op.summary ?? '')}</b> ${accessBadge(op.security)}</p>
    ${op.description ? `<p>${prose(op.description)}</p>` : ''}
    ${params ? `<h4>Parameters</h4><ul>${params}</ul>` : ''}
    ${body ? `<h4>Request body</h4>${renderSchema(body)}` : ''}
    <h4>Responses</h4><ul>${responses}${errors}</ul>
  </article>`;
}

type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  description?: string;
  minimum?: number;
  maximum?: number;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  default?: unknown;
};

/** A schema as a person reads it: a table of fields for objects, a one-line type otherwise. */
function renderSchema(raw: unknown): string {
  const schema = raw as JsonSchema;
  if (schema.properties && Object.keys(schema.properties).length > 0) {
    const required = new Set(schema.required ?? []);
    const rows = Object.entries(schema.properties)
      .map(([name, field]) => `<tr><td><code>${escape(name)}</code>${required.has(name) ? ' <span class="req">required</span>' : ''}</td><td>${typeOf(field)}</td><td>${escape(describeField(field))}</td></tr>`)
      .join('');
    return `<table><thead><tr><th>field</th><th>type</th><th>notes</th></tr></thead><tbody>${rows}</tbody></table>`;
  }
  return `<p>${typeOf(schema)}${schema.description ? ` ${escape(schema.description)}` : ''}</p>`;
}

function typeOf(schema: JsonSchema): string {
  if (schema.$ref) {
    const name = schema.$ref.split('/').pop()!;
    return `<a href="/docs#schema-${slug(name)}">${escape(name)}</a>`;
  }
  if (schema.anyOf) return schema.anyOf.map(typeOf).join(' or ');
  if (schema.enum) return schema.enum.map((value) => `<code>${escape(JSON.stringify(value))}</code>`).join(' | ');
  if (schema.const !== undefined) return `<code>${escape(JSON.stringify(schema.const))}</code>`;
  if (schema.type === 'array') return `array of ${schema.items ? typeOf(schema.items) : 'any'}`;
  if (schema.type === 'object') return 'object';
  const type = Array.isArray(schema.type) ? schema.type.join(' | ') : (schema.type ?? 'any');
  return escape(schema.format ? `${type} (${schema.format})` : type);
}

function describeField(schema: JsonSchema): string {
  const rules: string[] = [];
  if (schema.minimum !== undefined) rules.push(`≥ ${schema.minimum}`);
  if (schema.maximum !== undefined) rules.push(`≤ ${schema.maximum}`);
  if (schema.multipleOf !== undefined) rules.push(`multiple of ${schema.multipleOf}`);
  if (schema.minLength !== undefined && schema.minLength > 1) rules.push(`at least ${schema.minLength} characters`);
  if (schema.maxLength !== undefined) rules.push(`at most ${schema.maxLength} characters`);
  if (schema.default !== undefined) rules.push(`default ${JSON.stringify(schema.default)}`);
  const fields = schema.properties ?? schema.items?.properties;
  const nested = fields ? ` Fields: ${Object.keys(fields).join(', ')}.` : '';
  return [schema.description ?? '', rules.length > 0 ? `(${rules.join(', ')})` : ''].filter(Boolean).join(' ') + nested;
}

function accessBadge(security: unknown[] | undefined): string {
  if (!security || security.length === 0) return '<span class="public">public</span>';
  const optional = security.some((requirement) => Object.keys(requirement as object).length === 0);
  return optional ? '<span class="public">public; an API key is optional</span>' : '<span class="auth">API key</span>';
}

/** Escaped text with `code` spans, as the route descriptions write them. */
function prose(text: string): string {
  return escape(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}

function renderProblems(): string {
  const rows = Object.entries(PROBLEM_KINDS)
    .map(
      ([code, kind]) =>
        `<section id="${kind.anchor}"><h2>${kind.status} <code>${code}</code>: ${escape(kind.title)}</h2><p>${prose(kind.explanation)}</p></section>`,
    )
    .join('');
  return `<p>Every error response is RFC 9457 problem details with <code>Content-Type: application/problem+json</code>:
    <code>type</code> links here, <code>code</code> is stable, <code>detail</code> explains this occurrence, and validation
    failures list <code>errors</code> with a JSON Pointer <code>path</code> each. <a href="/docs">Back to the API</a>.</p>${rows}`;
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escape(title)}</title><style>
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1f2328}
code,pre{font-family:ui-monospace,monospace;font-size:13px}pre{background:#f6f8fa;padding:.75rem;overflow:auto;border-radius:6px}
article{border-top:1px solid #d0d7de;padding:.5rem 0}.method{display:inline-block;min-width:4rem;font-weight:700}
.get{color:#1a7f37}.post{color:#0969da}.put,.patch{color:#9a6700}.delete{color:#cf222e}
.auth,.public{font-size:12px;border:1px solid #d0d7de;border-radius:1rem;padding:0 .5rem}nav{margin:1rem 0}
table{border-collapse:collapse;width:100%;margin:.5rem 0;font-size:14px}th,td{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}.req{font-size:11px;color:#cf222e}
</style></head><body><h1>${escape(title)}</h1>${body}</body></html>`;
}


function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-');
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
