import { ValidationError } from './errors.js';

/**
 * One opaque cursor for every list: `limit` items per page, `nextCursor` (null on the last
 * page) passed back as `cursor`. The cursor names the last item's sort key, not a position,
 * so an item added or removed meanwhile neither repeats nor skips another.
 */

/** A list's order: a number (a creation time) and the uuid that breaks ties. */
export type SortKey = readonly [number, string];

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export const DEFAULT_PAGE_SIZE = 50;

export function encodeCursor(key: SortKey): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** The key a cursor names; a cursor this service did not issue is a 400 at `/query/cursor`. */
export function decodeCursor(cursor: string): SortKey {
  try {
    const [time, uuid] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [unknown, unknown];
    if (typeof time === 'number' && typeof uuid === 'string') return [time, uuid];
  } catch {
    // fall through to the validation error
  }
  throw new ValidationError([{ path: '/query/cursor', message: 'is not a cursor this service issued' }]);
}

function compareKeys(a: SortKey, b: SortKey): number {
  return a[0] !== b[0] ? a[0] - b[0] : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0;
}

/**
 * One page of a whole list that is small by construction (an account's webhooks, keys…),
 * in ascending `keyOf` order.
 *
 * @example
 * pageOf([{ t: 1, id: 'a' }, { t: 2, id: 'b' }], (x) => [x.t, x.id], { limit: 1 })
 * // { items: [{ t: 1, id: 'a' }], nextCursor: 'WzEsImEiXQ' }
 */
export function pageOf<T>(all: readonly T[], keyOf: (item: T) => SortKey, query: { limit?: number | undefined; cursor?: string | undefined }): Page<T> {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const sorted = [...all].sort((a, b) => compareKeys(keyOf(a), keyOf(b)));
  const rest = after === undefined ? sorted : sorted.filter((item) => compareKeys(keyOf(item), after) > 0);
  const items = rest.slice(0, limit);
  const last = items.at(-1);
  return { items, nextCursor: rest.length > limit && last !== undefined ? encodeCursor(keyOf(last)) : null };
}
