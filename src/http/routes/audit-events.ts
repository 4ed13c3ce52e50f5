import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AuditEvent } from '../../domain/audit.js';
import { toIso } from '../../domain/representations.js';
import { listAuditEvents } from '../../scheduling/audit/audit-events.js';
import type { UseCaseContext } from '../../scheduling/context.js';
import { principalOf } from '../request-guards.js';
import { AuditEventListQuerySchema, AuditEventListSchema } from '../schemas/audit-events.js';
import { API_KEY_SECURITY, AUTHENTICATED_ERRORS, problemResponses } from '../schemas/common.js';
import { PAGING } from '../schemas/paging.js';

function auditEventToJson(event: AuditEvent) {
  return { uuid: event.uuid, at: toIso(event.at), action: event.action, actor: event.actor, target: event.target, details: event.details };
}

/** The account's audit log: read only (no route changes or deletes an entry). */
export const auditEventRoutes: FastifyPluginAsyncTypebox<{ ctx: UseCaseContext }> = async (app, { ctx }) => {
  app.get(
    '/audit-events',
    {
      schema: {
        tags: ['Audit log'],
        summary: "The account's audit log",
        description:
          'Who changed what, newest first: members, teams, keys, the owner, the account and its integrations, connections, calendars, ' +
          'topics, webhooks, discount codes, cancelled and moved meetings, and participants’ data. Each entry is written in the same ' +
          `transaction as its change; none is ever changed or deleted. By an admin of any of the account's teams (403 otherwise). ${PAGING}`,
        security: API_KEY_SECURITY,
        querystring: AuditEventListQuerySchema,
        response: { 200: AuditEventListSchema, ...problemResponses(...AUTHENTICATED_ERRORS, 403) },
      },
    },
    async (request) => {
      const page = await listAuditEvents(ctx, principalOf(request), request.query);
      return { auditEvents: page.items.map(auditEventToJson), nextCursor: page.nextCursor };
    },
  );
};
