import { Ajv2020 } from 'ajv/dist/2020.js';
import * as ajvFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_EVENT_TYPES } from '../../src/domain/events.js';
import type { RenderedMessage } from '../../src/mail/message.js';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { startFakeP24, type FakeP24 } from '../fakes/p24-gateway.js';
import { bookPaid, createPaidTopic } from '../payments/paid-booking.js';
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
    let p24: FakeP24;
    const mail: RenderedMessage[] = [];

    beforeAll(async () => {
      p24 = await startFakeP24();
      t = await createTestApp(dialect, createClock('2027-01-04T08:00:00.000Z'), { ALLOW_PRIVATE_URLS: 'true', PUBLIC_URL: 'http://termin.test', P24_API_URL: p24.baseUrl });
      acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['zoom'] });
      doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as Document;
      receiver = await startReceiver((_req, res) => res.writeHead(204).end());
    });
    afterAll(async () => {
      await receiver.close();
      await t.close();
      await p24.close();
    });

    async function subscribe(account: CreatedAccount): Promise<string> {
      const created = await call(t.app, account.apiKey, 'POST', '/api/v1/webhooks', { url: `${receiver.url}/hooks`, events: [...WEBHOOK_EVENT_TYPES] });
      expect(created.statusCode).toBe(201);
      return created.json().secret as string;
    }

    /**
     * Checks the deliveries received from `from` on: each body validates against its event's
     * schema in the document, each signing header matches its declared pattern and the
     * signature verifies, and the generated types read it. Returns the event types seen.
     */
    function checkDeliveries(from: number, secret: string): string[] {
      const ajv = new Ajv2020({ strict: false, allErrors: true });
      addFormats(ajv);
      ajv.addSchema({ ...doc, $id: 'openapi.json' });
      const seen: string[] = [];
      for (const request of receiver.requests.slice(from)) {
        const event = JSON.parse(request.body) as WebhookEvent<'meeting.scheduled'>;
        const post = doc.webhooks[event.type]!.post;
        const validate = ajv.compile({ $ref: `openapi.json#/webhooks/${escapeKey(event.type)}/post/requestBody/content/application~1json/schema` });
        expect(validate(event) ? [] : validate.errors, event.type).toEqual([]);
        const headers = stringHeaders(request.headers);
        for (const parameter of post.parameters) expect(headers[parameter.name], parameter.name).toMatch(new RegExp(String(parameter.schema.pattern ?? '.')));
        verifyAt(Number(headers['webhook-timestamp']) * 1000, secret, request.body, headers);
        expect(summarizeEvent(event, headers as unknown as WebhookHeaders<'meeting.scheduled'>)).toContain(`${headers['webhook-id']} ${event.type}`);
        seen.push(event.type);
      }
      return seen.sort();
    }

    it('lists every event type with its body and the Standard Webhooks signing headers', () => {
      expect(Object.keys(doc.webhooks).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
      for (const [type, { post }] of Object.entries(doc.webhooks)) {
        expect(post.parameters.filter((p) => p.in === 'header' && p.required).map((p) => p.name)).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
        const body = post.requestBody.content['application/json']!.schema as {
          properties: Record<string, { const?: string; $ref?: string; allOf?: { $ref?: string; properties?: Record<string, unknown> }[] }>;
        };
        expect(body.properties.type!.const).toBe(type);
        // meeting.rescheduled: the Meeting with `previous` beside it; meeting.reminder_sent: with `reminder`.
        const data = body.properties.data!;
        const ref = type === 'meeting.rescheduled' || type === 'meeting.reminder_sent' ? data.allOf?.[0]?.$ref : data.$ref;
        if (/^(meeting|payment|member)\./.test(type)) expect(ref).toMatch(/^#\/components\/schemas\/(Meeting|Payment|Member)$/);
        if (type === 'meeting.rescheduled') expect(Object.keys(data.allOf?.[1]?.properties ?? {})).toEqual(['previous']);
        if (type === 'meeting.reminder_sent') expect(Object.keys(data.allOf?.[1]?.properties ?? {})).toEqual(['reminder']);
      }
    });

    it('describes what is delivered: each event validates against its schema and reads through the generated types', async () => {
      const from = receiver.requests.length;
      const secret = await subscribe(acme);
      const topic = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Intro', durationMinutes: 30, places: ['zoom'] })).json();
      const [slot, later] = await firstFreeSlots(t.app, acme.owner.username, topic.uuid, 2);
      const meeting = (await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', bookingBody(topic.uuid, slot!))).json().meetings[0];
      expect((await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${meeting.uuid}/reschedule`, { start: later!.start })).statusCode).toBe(200);
      expect((await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${meeting.uuid}/cancel`, { reason: 'Ill' })).statusCode).toBe(200);
      const member = (await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, { firstName: 'Ewa', lastName: 'Lis', email: 'ewa@example.com' })).json();
      expect((await call(t.app, acme.apiKey, 'DELETE', `/api/v1/teams/${acme.team.uuid}/users/${member.uuid}`)).statusCode).toBe(204);
      await runJobsCapturingMail(t.ctx, mail);
      expect(checkDeliveries(from, secret)).toEqual(['meeting.cancelled', 'meeting.rescheduled', 'meeting.scheduled', 'member.created', 'member.deleted']);
    });

    it('describes a paid booking’s events too: the meeting with its payment, and the payment once the gateway confirms it', async () => {
      const paid = await createPaidTopic(t, 'p24', p24.credentials);
      const from = receiver.requests.length;
      const secret = await subscribe(paid.account);
      const booking = await bookPaid(t, paid, 'p24', (await paid.offered())[0]!);
      const pay = await t.app.inject({ method: 'GET', url: `/pay/${booking.payment.uuid}`, headers: { accept: 'text/html' } });
      const token = new RegExp(`^${p24.baseUrl}/trnRequest/(.+)$`).exec(String(pay.headers.location))![1]!;
      const notification = p24.notificationFor(token);
      const headers = Object.fromEntries(Object.entries(notification.headers).filter((entry): entry is [string, string] => entry[1] !== undefined));
      const notified = await t.app.inject({ method: 'POST', url: `/api/v1/payments/p24/notifications/${paid.account.account.uuid}`, headers, payload: notification.rawBody });
      expect(notified.statusCode, notified.body).toBe(200);
      await runJobsCapturingMail(t.ctx, mail);
      expect(checkDeliveries(from, secret)).toEqual(['meeting.confirmed', 'meeting.scheduled', 'payment.paid']);
    });
  });
}

/** A `webhooks` key as a JSON Pointer segment. */
function escapeKey(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
