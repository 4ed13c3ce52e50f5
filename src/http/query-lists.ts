import type { FastifyRequest } from 'fastify';

/**
 * Multi-value query parameters are accepted both repeated (`status=a&status=b`, OpenAPI's
 * `style: form, explode: true`) and comma-separated (`status=a,b`, what `explode: false`
 * clients send): integrators' tools send either. The values themselves never hold a comma
 * (enums), so splitting on it is safe.
 *
 * @example
 * // preValidation of GET /meetings?status=confirmed,cancelled&status=expired
 * // request.query.status → ['confirmed', 'cancelled', 'expired']
 */
export function acceptCommaLists(...names: string[]) {
  return async (request: FastifyRequest): Promise<void> => {
    const query = request.query as Record<string, unknown> | undefined;
    if (!query) return;
    for (const name of names) {
      const value = query[name];
      if (value === undefined) continue;
      const values = Array.isArray(value) ? value : [value];
      query[name] = values.flatMap((item) => (typeof item === 'string' ? item.split(',').filter((part) => part !== '') : [item]));
    }
  };
}

/** The OpenAPI serialisation of a query with multi-value parameters (repeated form; commas are accepted too), set on the querystring schema. */
export const REPEATED_OR_COMMAS = { style: 'form', explode: true } as const;
