import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { UseCaseContext } from '../../scheduling/context.js';
import { eraseParticipant, exportParticipant } from '../../scheduling/participants/participants.js';
import { exportToJson } from '../representations.js';
import { principalOf } from '../request-guards.js';
import { API_KEY_SECURITY, AUTHENTICATED_ERRORS, problemResponses } from '../schemas/common.js';
import { ErasureSchema, ParticipantEmailBodySchema, ParticipantExportSchema } from '../schemas/participants.js';

/** A participant's data: what the account keeps about them, and their erasure (GDPR articles 15 and 17). */
export const participantRoutes: FastifyPluginAsyncTypebox<{ ctx: UseCaseContext }> = async (app, { ctx }) => {
  app.post(
    '/participants/export',
    {
      schema: {
        tags: ["Participants' data"],
        summary: 'Export what the account keeps about a participant',
        description:
          "By an admin of any of the account's teams (403 for other keys). Every meeting of the account whose participant has that e-mail " +
          '(compared without regard to case), any status, past and future, with its form answers, metadata, payment and the messages sent to them. ' +
          'The e-mail goes in the body, never in the URL (URLs are logged). A participant already erased has nothing left to export.',
        security: API_KEY_SECURITY,
        body: ParticipantEmailBodySchema,
        response: { 200: ParticipantExportSchema, ...problemResponses(...AUTHENTICATED_ERRORS, 403) },
      },
    },
    async (request) => exportToJson(await exportParticipant(ctx, principalOf(request), request.body.email)),
  );

  app.post(
    '/participants/erase',
    {
      schema: {
        tags: ["Participants' data"],
        summary: "Erase a participant's personal data",
        description:
          "By an admin of any of the account's teams (403 for other keys). Every meeting of the account with that participant e-mail: the name becomes " +
          '`(erased)`; e-mail, phone, note, form answers, metadata and invoice details are removed (`null` / `{}`); times, host, topic, place, status, price and ' +
          "payment stay (the business's accounts). A meeting still to come is cancelled first: its slot is freed and the host told, the participant not. " +
          "Messages and reminders not yet sent to them are dropped; copies in the meetings' history, webhook deliveries, replayable responses and hosts' calendars are erased too. " +
          'Webhooks get `participant.erased` `{ meetings: [uuids] }`, never the e-mail. Idempotent: a second call answers `erased: 0`. ' +
          'The same person booking again later is a new participant.',
        security: API_KEY_SECURITY,
        body: ParticipantEmailBodySchema,
        response: { 200: ErasureSchema, ...problemResponses(...AUTHENTICATED_ERRORS, 403) },
      },
    },
    async (request) => {
      const result = await eraseParticipant(ctx, principalOf(request), request.body.email);
      return { erased: result.erased.length };
    },
  );
};
