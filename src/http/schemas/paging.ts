import { Type } from 'typebox';
import { Nullable, SingleLine } from './common.js';

/** `limit` and `cursor`: the same on every list (src/domain/paging.ts). */
export function PageQuery(what: string) {
  return Type.Object(
    {
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: `${what} per page.` })),
      cursor: Type.Optional(SingleLine({ maxLength: 200, description: 'The `nextCursor` of the previous page.' })),
    },
    { additionalProperties: false },
  );
}

export const NextCursor = Nullable(Type.String({ description: 'Pass as `cursor` for the next page; null on the last page.' }));

export const PAGING = 'In pages of `limit` (default 50, at most 200); pass `nextCursor` as `cursor` for the next page.';
