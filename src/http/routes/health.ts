import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { checkReadiness } from '../../scheduling/operator/readiness.js';
import type { UseCaseContext } from '../../scheduling/context.js';
import { SERVICE_VERSION } from '../../version.js';

const HealthSchema = Type.Object({
  status: Type.String({
    description: '`ready` when the database answered and (SQLite) its last write found room; otherwise what went wrong.',
    examples: ['ready', 'database cannot store changes (disk full) for 42 s: 318 writes refused'],
  }),
});
const LivenessSchema = Type.Object({
  status: Type.String({ description: 'Always `ok` while the process answers.' }),
  version: Type.String({ description: "The running termin version (package.json's), e.g. to check a rollout reached every instance.", examples: ['0.1.0'] }),
});

/** /readyz answers within this even when the database hangs (the brief for probes: 2 s). */
const READINESS_TIMEOUT_MS = 1_500;

/** Liveness (the process answers) and readiness (the database answers) for load balancers. */
export const healthRoutes: FastifyPluginAsyncTypebox<{ ctx: Pick<UseCaseContext, 'db' | 'now' | 'dbStorage'> }> = async (app, { ctx }) => {
  app.get('/healthz', { schema: { tags: ['Operations'], summary: 'Liveness: the process is up', response: { 200: LivenessSchema } } }, async () => ({
    status: 'ok',
    version: SERVICE_VERSION,
  }));

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['Operations'],
        summary: 'Readiness: the database is reachable and takes writes',
        response: { 200: HealthSchema, 503: HealthSchema },
      },
    },
    async (request, reply) => {
      const readiness = await checkReadiness(ctx, READINESS_TIMEOUT_MS);
      if (readiness.ready) return { status: 'ready' };
      if (readiness.reason === 'database cannot store changes') {
        const { since, failedWrites } = readiness.outage;
        const seconds = Math.max(0, Math.round((ctx.now() - since) / 1000));
        // No stack here: the refused write's own line has it, once (src/http/problems.ts).
        request.log.warn({ since: new Date(since).toISOString(), failedWrites }, 'readiness check failed: the database cannot store changes (disk full)');
        return reply
          .code(503)
          .header('Retry-After', '5')
          .send({ status: `database cannot store changes (disk full) for ${seconds} s: ${failedWrites} writes refused` });
      }
      if (readiness.reason === 'database not answering') {
        request.log.warn({ timeoutMs: READINESS_TIMEOUT_MS }, 'readiness check failed: the database did not answer in time');
      } else {
        request.log.warn({ err: readiness.error }, 'readiness check failed');
      }
      return reply.code(503).header('Retry-After', '5').send({ status: readiness.reason });
    },
  );
};
