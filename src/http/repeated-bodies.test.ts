import { describe, expect, it } from 'vitest';
import { createDeferredCompiles } from './deferred-compile.js';
import type { FastifyRequest } from 'fastify';
import { createRepeatedBodies, parseRepeatable, routeKeyOf, type RepeatedBodies } from './repeated-bodies.js';
import { createValidatorCompiler } from './validation.js';

type Validate = ((data: unknown) => boolean) & { errors?: { instancePath?: string }[] | null };

const viewSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['meetingTopic'],
  properties: { meetingTopic: { type: 'string', format: 'uuid' }, offset: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } } },
};
// Another route's schema, stricter: what the first route accepted is not accepted here.
const strictSchema = { ...viewSchema, required: ['meetingTopic', 'start'], properties: { ...viewSchema.properties, start: { type: 'string' } } };

function setUp(maxEntries?: number) {
  const bodies = createRepeatedBodies({ maxEntries, maxTextLength: 200 });
  const compile = createValidatorCompiler(createDeferredCompiles(), bodies);
  const validatorOf = (schema: object, url: string) => compile({ schema, httpPart: 'body', method: 'POST', url }) as Validate;
  return { bodies, view: validatorOf(viewSchema, '/view'), strict: validatorOf(strictSchema, '/strict') };
}

/** The JSON parser's side (parseRepeatable, as app.ts calls it) for a POST to `url`. */
function parse(bodies: RepeatedBodies, url: string, text: string): unknown {
  const request = { routeOptions: { method: 'POST', url } } as unknown as FastifyRequest;
  let body: unknown;
  parseRepeatable(
    bodies,
    request,
    text,
    (_request, raw, done) => done(null, JSON.parse(raw)),
    (error, parsed) => {
      if (error) throw error;
      body = parsed;
    },
  );
  return body;
}

const TOPIC = 'A1B2C3D4-0000-4000-8000-00000000000F';

describe('bodies sent again byte for byte', () => {
  it('are parsed and validated once: a repeat gets the body as validated (UUIDs lowered), frozen', () => {
    const { bodies, view } = setUp();
    const text = JSON.stringify({ meetingTopic: TOPIC, tags: ['a'] });
    const first = parse(bodies, '/view', text) as { meetingTopic: string; tags: string[] };
    expect(view(first)).toBe(true);
    const again = parse(bodies, '/view', text) as typeof first;
    expect(again).toBe(first);
    expect(again.meetingTopic).toBe(TOPIC.toLowerCase());
    expect(Object.isFrozen(again) && Object.isFrozen(again.tags)).toBe(true);
    expect(view(again)).toBe(true);
    expect(view.errors).toBeNull();
    // Another text (one space more) is a body of its own.
    expect(parse(bodies, '/view', `${text} `)).not.toBe(first);
  });

  it('keep nothing that failed validation: a repeat fails again with the same errors', () => {
    const { bodies, view } = setUp();
    const text = JSON.stringify({ meetingTopic: TOPIC, offset: '7' });
    expect(view(parse(bodies, '/view', text))).toBe(false);
    expect(bodies.recall(routeKeyOf('POST', '/view'), text)).toBeUndefined();
    expect(view(parse(bodies, '/view', text))).toBe(false);
    expect(view.errors?.map((error) => error.instancePath)).toEqual(['/offset']);
    // Nor one that passed the schema but holds U+0000.
    const nul = JSON.stringify({ meetingTopic: TOPIC, tags: ['a\u0000'] });
    expect(view(parse(bodies, '/view', nul))).toBe(false);
    expect(bodies.recall(routeKeyOf('POST', '/view'), nul)).toBeUndefined();
  });

  it("are kept per route: another route's validator still judges a body by its own schema", () => {
    const { bodies, view, strict } = setUp();
    const text = JSON.stringify({ meetingTopic: TOPIC });
    const kept = parse(bodies, '/view', text);
    expect(view(kept)).toBe(true);
    expect(parse(bodies, '/view', text)).toBe(kept);
    // Handed to the other route (which its parser never does), it is validated there all the same.
    expect(strict(kept)).toBe(false);
    expect(parse(bodies, '/strict', text)).not.toBe(kept);
  });

  it('are kept only so many, the oldest going first, and only short ones', () => {
    const { bodies, view } = setUp(2);
    const texts = [0, 7, 14].map((offset) => JSON.stringify({ meetingTopic: TOPIC, offset }));
    for (const text of texts) expect(view(parse(bodies, '/view', text))).toBe(true);
    const route = routeKeyOf('POST', '/view');
    expect(texts.map((text) => bodies.recall(route, text) !== undefined)).toEqual([false, true, true]);
    const long = JSON.stringify({ meetingTopic: TOPIC, tags: ['x'.repeat(200)] });
    expect(view(parse(bodies, '/view', long))).toBe(true);
    expect(bodies.recall(route, long)).toBeUndefined();
  });
});
