import type { AuditAction, AuditEvent } from '../../domain/audit.js';
import { ForbiddenError, NotFoundError } from '../../domain/errors.js';
import type { DbOrTrx } from '../../db/database.js';
import { findAccount } from '../../db/repositories/accounts.js';
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
  return pageOfAuditEvents(ctx.db, principal.accountUuid, input);
}

/** The operator's view (CLI `audit list`): any account's log, as its admins see it. */
export async function listAuditEventsAsOperator(ctx: Pick<UseCaseContext, 'db'>, accountUuid: string, input: AuditEventListInput): Promise<Page<AuditEvent>> {
  if (!(await findAccount(ctx.db, accountUuid))) throw new NotFoundError('account');
  return pageOfAuditEvents(ctx.db, accountUuid, input);
}

async function pageOfAuditEvents(db: DbOrTrx, accountUuid: string, input: AuditEventListInput): Promise<Page<AuditEvent>> {
  const limit = input.limit ?? DEFAULT_PAGE_SIZE;
  const before = input.cursor === undefined ? undefined : decodeCursor(input.cursor);
  const rows = await selectAuditEventsPage(db, {
    accountUuid,
    since: input.since === undefined ? undefined : Date.parse(input.since),
    action: input.action,
    before: before && { at: before[0], uuid: before[1] },
    limit: limit + 1,
  });
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return { items, nextCursor: rows.length > limit && last ? encodeCursor([last.at, last.uuid]) : null };
}
