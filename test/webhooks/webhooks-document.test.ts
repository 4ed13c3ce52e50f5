import { Ajv2020 } from 'ajv/dist/2020.js';
import * as ajvFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_EVENT_TYPES } from '../../src/domain/events.js';
import type { RenderedMessage } from '../../src/mail/render.js';
import type { CreatedAccount } from '../../src/scheduling/create-account.js';
import { summarizeEvent, type WebhookEvent, type WebhookHeaders } from '../client/webhook-receiver.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, runJobsCapturingMail, type TestApp } from '../helpers.js';
import { startReceiver, type Receiver } from '../net/receivers.js';
import { bookingBody, firstFreeSlots, stringHeaders, verifyAt } from './helpers.js';

type Parameter = { name: string; in: string; required?: boolean; schema: Record<string, unknown> };
type WebhookOperation = { operationId: string; parameters: Parameter[]; requestBody: { required: boolean; content: Record<string, { schema: Record<string, unknown> }> } };
type Document = { webhooks: Record<string, { post: WebhookOperation }>; components: Record<string, unknown> };

// ajv-formats is CommonJS; under NodeNext its callable export sits on `.default`.
type AddFormats = (ajv: Ajv2020) => Ajv2020;
const addFormats = ((ajvFormats as unknown as { default: { default?: AddFormats } }).default.default ?? (ajvFormats as unknown as { default: AddFormats }).default) as AddFormats;

// The document's `webhooks` section, checked the way an integrator relies on it: each event
// type is there, and real deliveries match its body schema and signing headers.
for (const dialect of DIALECTS) {
  describe(`the OpenAPI webhooks section against real deliveries (${dialect})`, () => {
    let t: TestApp;
    let acme: CreatedAccount;
    let doc: Document;
    let receiver: Receiver;
    const mail: RenderedMessage[] = [];

    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T08:00:00.000Z'), { ALLOW_PRIVATE_URLS: 'true' });
      acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['zoom'] });
      doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as Document;
      receiver = await startReceiver((_req, res) => res.writeHead(204).end());
    });
    afterAll(async () => {
      await receiver.close();
      await t.close();
    });

    it('lists every event type with its body and the Standard Webhooks signing headers', () => {
      expect(Object.keys(doc.webhooks).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
      for (const [type, { post }] of Object.entries(doc.webhooks)) {
        expect(post.parameters.filter((p) => p.in === 'header' && p.required).map((p) => p.name)).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
        const body = post.requestBody.content['application/json']!.schema as { properties: Record<string, { const?: string; $ref?: string }> };
        expect(body.properties.type!.const).toBe(type);
        if (/^(meeting|payment|member)\./.test(type)) expect(body.properties.data!.$ref).toMatch(/^#\/components\/schemas\/(Meeting|Payment|Member)$/);
      }
    });

    it('describes what is delivered: each event validates against its schema and reads through the generated types', async () => {
      const secret = (await call(t.app, acme.apiKey, 'POST', '/api/v1/webhooks', { url: `${receiver.url}/hooks`, events: [...WEBHOOK_EVENT_TYPES] })).json().secret as string;
      const topic = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Intro', durationMinutes: 30, places: ['zoom'] })).json();
      const [slot, later] = await firstFreeSlots(t.app, acme.owner.username, topic.uuid, 2);
      const meeting = (await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', bookingBody(topic.uuid, slot!))).json().meetings[0];
      expect((await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${meeting.uuid}/reschedule`, { start: later!.start })).statusCode).toBe(200);
      expect((await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${meeting.uuid}/cancel`, { reason: 'Ill' })).statusCode).toBe(200);
      const member = (await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, { firstName: 'Ewa', lastName: 'Lis', email: 'ewa@example.com' })).json();
      expect((await call(t.app, acme.apiKey, 'DELETE', `/api/v1/teams/${acme.team.uuid}/users/${member.uuid}`)).statusCode).toBe(204);
      await runJobsCapturingMail(t.ctx, mail);

      const ajv = new Ajv2020({ strict: false, allErrors: true });
      addFormats(ajv);
      ajv.addSchema({ ...doc, $id: 'openapi.json' });
      const seen = new Set<string>();
      for (const request of receiver.requests) {
        const event = JSON.parse(request.body) as WebhookEvent<'meeting.scheduled'>;
        const post = doc.webhooks[event.type]!.post;
        const validate = ajv.compile({ $ref: `openapi.json#/webhooks/${escapeKey(event.type)}/post/requestBody/content/application~1json/schema` });
        expect(validate(event) ? [] : validate.errors, event.type).toEqual([]);
        const headers = stringHeaders(request.headers);
        for (const parameter of post.parameters) expect(headers[parameter.name], parameter.name).toMatch(new RegExp(String(parameter.schema.pattern ?? '.')));
        verifyAt(Number(headers['webhook-timestamp']) * 1000, secret, request.body, headers);
        expect(summarizeEvent(event, headers as unknown as WebhookHeaders<'meeting.scheduled'>)).toContain(`${headers['webhook-id']} ${event.type}`);
        seen.add(event.type);
      }
      expect([...seen].sort()).toEqual(['meeting.cancelled', 'meeting.rescheduled', 'meeting.scheduled', 'member.created', 'member.deleted']);
    });
  });
}

/** A `webhooks` key as a JSON Pointer segment. */
function escapeKey(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
