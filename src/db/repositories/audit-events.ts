import type { AuditAction, AuditEvent } from '../../domain/audit.js';
import type { DbOrTrx } from '../database.js';

/*
 * The audit log's rows. Insert and read only: by design there is no function here (or
 * anywhere) that updates or deletes an audit event.
 */

export async function insertAuditEvent(db: DbOrTrx, event: AuditEvent): Promise<void> {
  await db
    .insertInto('audit_events')
    .values({
      id: event.uuid,
      account_id: event.accountUuid,
      at: event.at,
      action: event.action,
      actor_type: event.actor.type,
      actor_user_id: event.actor.userUuid ?? null,
      actor_via: event.actor.via,
      target_type: event.target.type,
      target_id: event.target.uuid,
      details: JSON.stringify(event.details),
    })
    .execute();
}

export interface AuditEventQuery {
  accountUuid: string;
  /** Only events at or after this instant. */
  since?: number | undefined;
  action?: AuditAction | undefined;
  /** Keyset position: events strictly older than (at, uuid). */
  before?: { at: number; uuid: string } | undefined;
  limit: number;
}

/** The account's events, newest first (at, then uuid, both descending: a keyset cursor pages through them stably). */
export async function selectAuditEventsPage(db: DbOrTrx, query: AuditEventQuery): Promise<AuditEvent[]> {
  let select = db.selectFrom('audit_events').selectAll().where('account_id', '=', query.accountUuid);
  if (query.action !== undefined) select = select.where('action', '=', query.action);
  if (query.since !== undefined) select = select.where('at', '>=', query.since);
  if (query.before !== undefined) {
    const { at, uuid } = query.before;
    select = select.where((eb) => eb.or([eb('at', '<', at), eb.and([eb('at', '=', at), eb('id', '<', uuid)])]));
  }
  const rows = await select.orderBy('at', 'desc').orderBy('id', 'desc').limit(query.limit).execute();
  return rows.map(
    (row): AuditEvent => ({
      uuid: row.id,
      accountUuid: row.account_id,
      at: Number(row.at),
      // Written only by insertAuditEvent from the typed unions, so read back as them.
      action: row.action as AuditEvent['action'],
      actor: {
        type: row.actor_type as AuditEvent['actor']['type'],
        ...(row.actor_user_id === null ? {} : { userUuid: row.actor_user_id }),
        via: row.actor_via as AuditEvent['actor']['via'],
      },
      target: { type: row.target_type as AuditEvent['target']['type'], uuid: row.target_id },
      details: JSON.parse(row.details) as AuditEvent['details'],
    }),
  );
}
