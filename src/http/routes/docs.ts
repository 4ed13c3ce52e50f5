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
    .map(([name, schema]) => `<h3 id="schema-${slug(name)}">${escape(name)}</h3>${code(schema)}`)
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
  const responses = Object.entries(op.responses ?? {})
    .map(([status, response]) => {
      const schema = Object.values(response.content ?? {})[0]?.schema;
      return `<li><b>${escape(status)}</b> ${escape(response.description ?? '')}${schema && status.startsWith('2') ? code(schema) : ''}</li>`;
    })
    .join('');
  return `<article>
    <h3><span class="method ${method}">${method.toUpperCase()}</span> <code>${escape(path)}</code></h3>
    <p><b>${escape(op.summary ?? '')}</b>${op.security && op.security.length > 0 ? ' <span class="auth">API key</span>' : ' <span class="public">public</span>'}</p>
    ${op.description ? `<p>${escape(op.description)}</p>` : ''}
    ${params ? `<h4>Parameters</h4><ul>${params}</ul>` : ''}
    ${body ? `<h4>Request body</h4>${code(body)}` : ''}
    <h4>Responses</h4><ul>${responses}</ul>
  </article>`;
}

function renderProblems(): string {
  const rows = Object.entries(PROBLEM_KINDS)
    .map(
      ([code, kind]) =>
        `<section id="${kind.anchor}"><h2>${kind.status} <code>${code}</code>: ${escape(kind.title)}</h2><p>${escape(kind.explanation)}</p></section>`,
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
</style></head><body><h1>${escape(title)}</h1>${body}</body></html>`;
}

function code(value: unknown): string {
  return `<pre>${escape(JSON.stringify(value, null, 2))}</pre>`;
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-');
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}
