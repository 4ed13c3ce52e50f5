import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sql } from 'kysely';
import { Type } from 'typebox';
import type { Db } from '../../db/database.js';
import { SERVICE_VERSION } from '../../version.js';

const HealthSchema = Type.Object({ status: Type.String({ description: '`ready` when the database answered; otherwise what went wrong.' }) });
const LivenessSchema = Type.Object({
  status: Type.String({ description: 'Always `ok` while the process answers.' }),
  version: Type.String({ description: "The running termin version (package.json's), e.g. to check a rollout reached every instance.", examples: ['0.1.0'] }),
});

/** /readyz answers within this even when the database hangs (the brief for probes: 2 s). */
const READINESS_TIMEOUT_MS = 1_500;

/** Liveness (the process answers) and readiness (the database answers) for load balancers. */
export const healthRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.get(
    '/healthz',
    { schema: { tags: ['Operations'], summary: 'Liveness: the process is up', response: { 200: LivenessSchema } } },
    async () => ({ status: 'ok', version: SERVICE_VERSION }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['Operations'],
        summary: 'Readiness: the database is reachable',
        response: { 200: HealthSchema, 503: HealthSchema },
      },
    },
    async (request, reply) => {
      // A database that accepts connections but never answers must not hang the probe: the
      // answer comes within READINESS_TIMEOUT_MS either way (load balancers time out too).
      let timer: NodeJS.Timeout | undefined;
      const probe = sql`select 1`.execute(db);
      const timedOut = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), READINESS_TIMEOUT_MS);
      });
      try {
        const outcome = await Promise.race([probe, timedOut]);
        if (outcome === 'timeout') {
          probe.catch(() => undefined); // it fails later, on its own connection timeout
          request.log.warn({ timeoutMs: READINESS_TIMEOUT_MS }, 'readiness check failed: the database did not answer in time');
          return reply.code(503).header('Retry-After', '5').send({ status: 'database not answering' });
        }
        return { status: 'ready' };
      } catch (error) {
        request.log.warn({ err: error }, 'readiness check failed');
        return reply.code(503).header('Retry-After', '5').send({ status: 'database unreachable' });
      } finally {
        clearTimeout(timer);
      }
    },
  );
};
