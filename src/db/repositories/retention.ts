import type { DbOrTrx } from '../database.js';

/**
 * The maintenance's pruning, one function per rule: each deletes at most `limit` of the rows
 * past `before` (epoch ms) in one statement and says how many went. The rows are picked by a
 * subquery with LIMIT (both dialects accept it under IN), on the time column migration 0046
 * indexes, so a batch costs its own rows, not the table's.
 */
export type PruneBatch = (db: DbOrTrx, before: number, limit: number) => Promise<number>;

/** Outbox jobs done, or failed for good (no done_at: their creation counts), before `before`. */
export const deleteFinishedJobsBefore: PruneBatch = async (db, before, limit) => {
  const result = await db
    .deleteFrom('outbox')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('outbox')
        .select('id')
        .where((w) => w.or([w.and([w('status', '=', 'done'), w('done_at', '<', before)]), w.and([w('status', '=', 'failed'), w('created_at', '<', before)])]))
        .limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
};

export const deleteEventsBefore: PruneBatch = async (db, before, limit) => {
  const result = await db
    .deleteFrom('events')
    .where('id', 'in', (eb) => eb.selectFrom('events').select('id').where('occurred_at', '<', before).limit(limit))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
};

/** Deliveries no longer pending (delivered, or failed for good), with their attempts (columns of the row). */
export const deleteWebhookDeliveriesBefore: PruneBatch = async (db, before, limit) => {
  const result = await db
    .deleteFrom('webhook_deliveries')
    .where('id', 'in', (eb) => eb.selectFrom('webhook_deliveries').select('id').where('created_at', '<', before).where('status', '!=', 'pending').limit(limit))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
};

export const deleteAuditEventsBefore: PruneBatch = async (db, before, limit) => {
  const result = await db
    .deleteFrom('audit_events')
    .where('id', 'in', (eb) => eb.selectFrom('audit_events').select('id').where('at', '<', before).limit(limit))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
};

/** Connected calendars' busy time that ended before `before`: no slot of the past is offered. */
export const deletePastBusyBefore: PruneBatch = async (db, before, limit) => {
  const result = await db
    .deleteFrom('external_busy')
    .where('id', 'in', (eb) => eb.selectFrom('external_busy').select('id').where('ends_at', '<', before).limit(limit))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
};

/** Web app sessions that expired, or were revoked (signed out), before `before`. */
export const deleteEndedSessionsBefore: PruneBatch = async (db, before, limit) => {
  const result = await db
    .deleteFrom('app_sessions')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('app_sessions')
        .select('id')
        .where((w) => w.or([w('expires_at', '<', before), w('revoked_at', '<', before)]))
        .limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
};

export const deleteExpiredSignInLinksBefore: PruneBatch = async (db, before, limit) => {
  const result = await db
    .deleteFrom('app_sign_in_links')
    .where('token_hash', 'in', (eb) => eb.selectFrom('app_sign_in_links').select('token_hash').where('expires_at', '<', before).limit(limit))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
};

export const deleteExpiredOauthStatesBefore: PruneBatch = async (db, before, limit) => {
  const result = await db
    .deleteFrom('oauth_states')
    .where('state_hash', 'in', (eb) => eb.selectFrom('oauth_states').select('state_hash').where('expires_at', '<', before).limit(limit))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
};

export const deleteIdempotencyKeysBefore: PruneBatch = async (db, before, limit) => {
  const result = await db
    .deleteFrom('idempotency_keys')
    .where(({ eb, refTuple, selectFrom }) =>
      eb(
        refTuple('account_id', 'key'),
        'in',
        selectFrom('idempotency_keys').select(['account_id', 'key']).where('created_at', '<', before).limit(limit).$asTuple('account_id', 'key'),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
};

/**
 * SMS destinations' lock rows not taken since `before`: the lock only serialises the count of
 * the last 24 hours' sends (kept in meeting_reminders), and the next send writes the row again.
 * The outer condition is checked again on the row deleted, so a lock taken meanwhile stays.
 */
export const deleteIdleSmsNumberLocksBefore: PruneBatch = async (db, before, limit) => {
  const result = await db
    .deleteFrom('sms_number_locks')
    .where('sms_number', 'in', (eb) => eb.selectFrom('sms_number_locks').select('sms_number').where('locked_at', '<', before).limit(limit))
    .where('locked_at', '<', before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
};
