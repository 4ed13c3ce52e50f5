import type { AuditAction, AuditEvent } from '../../domain/audit.js';
import { ForbiddenError } from '../../domain/errors.js';
import { DEFAULT_PAGE_SIZE, decodeCursor, encodeCursor, type Page } from '../../domain/paging.js';
import { selectAuditEventsPage } from '../../db/repositories/audit-events.js';
import { isAdminOfAnyTeam } from '../../db/repositories/teams.js';
import type { Principal, UseCaseContext } from '../context.js';

export interface AuditEventListInput {
  /** An instant (validated by the route): only events at or after it. */
  since?: string | undefined;
  action?: AuditAction | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

/**
 * `GET /audit-events`: the account's audit log, newest first, a page at a time (the cursor
 * is opaque to clients), by an admin of any of the account's teams (403 for other keys).
 */
export async function listAuditEvents(ctx: Pick<UseCaseContext, 'db'>, principal: Principal, input: AuditEventListInput): Promise<Page<AuditEvent>> {
  if (!(await isAdminOfAnyTeam(ctx.db, principal.userUuid))) throw new ForbiddenError('Only a team admin may read the audit log');
  const limit = input.limit ?? DEFAULT_PAGE_SIZE;
  const before = input.cursor === undefined ? undefined : decodeCursor(input.cursor);
  const rows = await selectAuditEventsPage(ctx.db, {
    accountUuid: principal.accountUuid,
    since: input.since === undefined ? undefined : Date.parse(input.since),
    action: input.action,
    before: before && { at: before[0], uuid: before[1] },
    limit: limit + 1,
  });
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return { items, nextCursor: rows.length > limit && last ? encodeCursor([last.at, last.uuid]) : null };
}
