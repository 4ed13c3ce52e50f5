import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { UseCaseContext } from '../../scheduling/context.js';
import { receiveNotification } from '../../scheduling/payments/notifications.js';
import { preparePayment, returnFromGateway } from '../../scheduling/payments/pay.js';
import { getPaymentDetails } from '../../scheduling/payments/view.js';
import { renderGatewayError, renderPaymentState, renderPreparing } from '../pages/pay.js';
import { loadAssets } from '../pages/assets.js';
import { sendHtml } from '../pages/html.js';
import { paymentRecord, meetingToJson, toIso } from '../../domain/representations.js';
import { principalOf } from '../request-guards.js';
import { API_KEY_SECURITY, AUTHENTICATED_ERRORS, UuidParams, problemResponses } from '../schemas/common.js';
import { NotificationParamsSchema, PayParamsSchema, PaymentDetailsSchema } from '../schemas/payments.js';

/** Each gateway's own notification, as it sends it: JSON (Stripe, P24, PayU, PayPal) or a form (Tpay). */
const NOTIFICATION_BODY = {
  required: true,
  description: "The gateway's notification in its own format, checked against its signature over the exact bytes received.",
  content: {
    'application/json': { schema: { type: 'object', additionalProperties: true, description: 'Stripe, Przelewy24, PayU or PayPal event.' } },
    'application/x-www-form-urlencoded': { schema: { type: 'object', additionalProperties: true, description: 'Tpay notification fields.' } },
  },
};

/** `GET /payments/{uuid}`: behind the API key. */
export const paymentRoutes: FastifyPluginAsyncTypebox<{ ctx: UseCaseContext }> = async (app, { ctx }) => {
  app.get(
    '/payments/:uuid',
    {
      schema: {
        tags: ['Payments'],
        summary: 'One payment, its meetings and its history',
        description:
          'The payment of a paid booking (its uuid is in the booking response and in each meeting record), the meetings it pays for, ' +
          "and `events`: every change of its state with its time, oldest first, from the service's event log (an audit trail: " +
          '`pending` when booked, `paid`, `expired`, `failed`, one `refunded` entry per refund with its `amount`, `refund_failed` when a gateway refused one).',
        security: API_KEY_SECURITY,
        params: UuidParams,
        response: { 200: PaymentDetailsSchema, ...problemResponses(...AUTHENTICATED_ERRORS, 404) },
      },
    },
    async (request) => {
      const details = await getPaymentDetails(ctx, principalOf(request), request.params.uuid);
      return {
        payment: paymentRecord(details.payment, ctx.publicUrl),
        meetings: details.meetings.map(meetingToJson),
        events: details.history.map((entry) => ({ status: entry.status, at: toIso(entry.at), event: entry.event, amount: entry.amount })),
      };
    },
  );
};

/**
 * `POST /api/v1/payments/{gateway}/notifications/{accountUuid}`: registered beside the JSON
 * API, not inside it, because the gateways are not API clients: no key, whatever `Accept`
 * they send, no per-client rate limit, and a body read as raw text (JSON or form-encoded)
 * so each gateway's signature is checked over exactly the bytes it signed. The parsers
 * below apply to this plugin only.
 */
export const paymentNotificationRoutes: FastifyPluginAsyncTypebox<{ ctx: UseCaseContext }> = async (app, { ctx }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  app.post(
    '/payments/:gateway/notifications/:accountUuid',
    {
      schema: {
        tags: ['Payments'],
        summary: "A payment gateway's notification",
        description:
          "Where each gateway is told to send its notifications (set automatically on every transaction; for Stripe and PayPal also register it as the webhook endpoint in the gateway's dashboard). " +
          "No API key: the gateway's own signature scheme authenticates the body (Stripe-Signature, P24 `sign` plus transaction/verify, PayU OpenPayu-Signature, " +
          'PayPal verify-webhook-signature, Tpay X-JWS-Signature against its own certificates plus md5sum). A forged, unsigned or mismatched notification (another amount or currency) is 400 NOTIFICATION_REJECTED and changes nothing; ' +
          'a repeated one changes nothing and gets the answer the gateway expects. A confirming call to the gateway that fails is 502, so the gateway sends it again; ' +
          "while the account's stored credentials cannot be decrypted with the server's secret key (`TERMIN_SECRET_KEY` changed) it is 503 with `Retry-After`, for the same reason.",
        params: NotificationParamsSchema,
        response: { 200: Type.String({ description: 'What the gateway expects (e.g. Tpay\'s `TRUE`, Stripe\'s `{"received":true}`).' }), ...problemResponses(400, 502, 503) },
      },
      // Read raw (each gateway signs its exact bytes), so only documented, not validated, here.
      config: { documentedBody: NOTIFICATION_BODY },
    },
    async (request, reply) => {
      const headers: Record<string, string | undefined> = {};
      for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
      const rawBody = typeof request.body === 'string' ? request.body : '';
      const answer = await receiveNotification(ctx, request.params.gateway, request.params.accountUuid, { headers, rawBody, contentType: request.headers['content-type'] });
      return reply
        .code(answer.status as 200)
        .type(answer.contentType)
        .send(answer.body);
    },
  );
};

/** `GET /pay/{uuid}` and `GET /pay/{uuid}/return`: pages for the participant's browser, no key. */
export const payPageRoutes: FastifyPluginAsyncTypebox<{ ctx: UseCaseContext }> = async (app, { ctx }) => {
  const payUrl = (uuid: string) => `${ctx.publicUrl}/pay/${uuid}`;
  // The booking page's stylesheet: the booking page routes serve it under the same hashed URL.
  const stylesheet = loadAssets().url('booking.css');
  app.get(
    '/pay/:uuid',
    {
      schema: {
        tags: ['Pages'],
        summary: 'Pay for a booking (a page)',
        description:
          "The payment's `redirectUrl`. On the first visit it creates the gateway's transaction (once, even under concurrent visits on several instances) " +
          "and answers 303 to the gateway's payment page; later visits reuse the same transaction. A payment that is no longer pending shows its state. " +
          "If the gateway fails, a page in the participant's language says so, with a link to try again; nothing is created twice.",
        params: PayParamsSchema,
      },
    },
    async (request, reply) => {
      const outcome = await preparePayment(ctx, request.params.uuid, request.ip);
      switch (outcome.kind) {
        case 'redirect':
          return reply.code(303).header('cache-control', 'no-store').redirect(outcome.url, 303);
        case 'state':
          return sendHtml(reply, 200, renderPaymentState(outcome.view, payUrl(request.params.uuid), stylesheet));
        case 'preparing':
          reply.header('refresh', '2');
          return sendHtml(reply, 200, renderPreparing(outcome.view, stylesheet));
        case 'gateway-error':
          reply.header('retry-after', '10');
          return sendHtml(reply, 502, renderGatewayError(outcome.view, payUrl(request.params.uuid), stylesheet));
      }
    },
  );

  app.get(
    '/pay/:uuid/return',
    {
      schema: {
        tags: ['Pages'],
        summary: 'Back from the gateway (a page)',
        description:
          "Where the gateway sends the participant back. Shows the payment's state in the participant's language; for PayPal, captures the approved order first. " +
          'While the gateway has not confirmed the payment yet, the page refreshes itself.',
        params: PayParamsSchema,
        querystring: Type.Record(Type.String(), Type.String()),
      },
    },
    async (request, reply) => {
      const view = await returnFromGateway(ctx, request.params.uuid, request.query as Record<string, string>);
      if (view.status === 'pending') reply.header('refresh', '5');
      return sendHtml(reply, 200, renderPaymentState(view, payUrl(request.params.uuid), stylesheet));
    },
  );
};
