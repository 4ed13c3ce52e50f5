import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import openapiTS from 'openapi-typescript';
import { pino } from 'pino';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';

/** The service's OpenAPI document, from an app over a throw-away database. */
export async function currentDocument(): Promise<Record<string, unknown>> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'termin-openapi-'));
  const ctx = await createContext(loadConfig({ DATA_DIR: dataDir, TERMIN_DEMO: 'false', MIGRATE_ON_START: 'true', LOG_LEVEL: 'silent', PUBLIC_URL: 'http://127.0.0.1:3000' }), {
    log: pino({ level: 'silent' }),
  });
  const app = await buildApp(ctx);
  try {
    await app.ready();
    return (await app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
  } finally {
    await app.close();
    await ctx.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** TypeScript types of the document, as openapi-typescript 6 writes them. */
export async function generateTypes(document: Record<string, unknown>): Promise<string> {
  return openapiTS(document as unknown as Parameters<typeof openapiTS>[0]);
}

// `npx tsx test/client/generate.ts` refreshes the committed test/client/schema.d.ts.
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const target = path.join(path.dirname(new URL(import.meta.url).pathname), 'schema.d.ts');
  fs.writeFileSync(target, await generateTypes(await currentDocument()));
  console.log(`wrote ${target}`);
}
