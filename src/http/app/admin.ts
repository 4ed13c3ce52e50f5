import type { FastifyPluginAsync } from 'fastify';
import { ForbiddenError } from '../../domain/errors.js';
import { accountPage } from './account.js';
import { auditPages } from './audit.js';
import type { AppPageOptions } from './frame.js';
import { integrationPages } from './integrations.js';
import { keyPages } from './keys.js';
import { participantPages } from './participants.js';
import { webhookPages } from './webhooks.js';

/**
 * The account admin's pages (API keys, integrations, webhooks, the account, participants' data, the audit log): for an admin of
 * any team of the account, the owner included (the owner always administers a team), which is
 * the rule the API applies to these resources. Anyone else gets the 403 page, and no
 * navigation entry (frame.ts). Each use case checks again with the member as the caller.
 */
export const adminPages: FastifyPluginAsync<AppPageOptions> = async (app, options) => {
  app.addHook('preHandler', async (request) => {
    if (request.appTeams.length === 0) throw new ForbiddenError('Only an admin of one of the account’s teams may use this page');
  });
  await app.register(keyPages, options);
  await app.register(integrationPages, options);
  await app.register(webhookPages, options);
  await app.register(accountPage, options);
  await app.register(participantPages, options);
  await app.register(auditPages, options);
};
