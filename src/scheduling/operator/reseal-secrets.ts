import { inChunks } from '../../db/chunks.js';
import { replaceSealedValues, SEALED_TABLES, type SealedKind, type SealedRow, type SealedTable, selectSealedRows } from '../../db/repositories/sealed-values.js';
import { inTransaction } from '../../db/transaction.js';
import { canOpenSecret, resealSecret } from '../../secrets/secret-box.js';
import type { UseCaseContext } from '../context.js';

export interface ResealReport {
  /** Rows whose sealed values were sealed again with the current key. */
  changedRows: number;
  /** What no given key opens, named without any secret: each must be entered again (or the old key given back). */
  unreadable: string[];
}

/**
 * `cli secrets reseal`: every sealed value (SEALED_TABLES) opened with whichever key opens it
 * (TERMIN_SECRET_KEY or one of TERMIN_SECRET_KEY_PREVIOUS) and sealed again with the current
 * key, a hundred rows per transaction, each row only if it still holds what was read (the
 * server may store new values meanwhile: those are sealed with the current key already).
 * Values the current key opens are left as they are, so a second run changes nothing. Once it
 * reports 0 changed and nothing unreadable, the previous keys can be dropped.
 */
export async function resealSecrets(ctx: Pick<UseCaseContext, 'db' | 'secretKey'>): Promise<ResealReport> {
  const report: ResealReport = { changedRows: 0, unreadable: [] };
  for (const table of Object.keys(SEALED_TABLES) as SealedTable[]) {
    const changes: { row: SealedRow; after: Record<string, string> }[] = [];
    for (const row of await selectSealedRows(ctx.db, table)) {
      const after: Record<string, string> = {};
      for (const [column, kind] of Object.entries(SEALED_TABLES[table].sealed) as [string, SealedKind][]) {
        const stored = row.sealed[column];
        if (stored === null || stored === undefined || (kind === 'ics-url' && row.names.type !== 'ics')) continue;
        const resealed = kind === 'record' ? resealRecord(ctx.secretKey, stored) : resealText(ctx.secretKey, stored);
        if (resealed === 'unreadable') report.unreadable.push(describeUnreadable(row, column));
        else if (resealed !== null) after[column] = resealed;
      }
      if (Object.keys(after).length > 0) changes.push({ row, after });
    }
    await inChunks(changes, 100, async (chunk) => {
      // Counted once committed: a transaction retried after a conflict runs its work again.
      report.changedRows += await inTransaction(ctx.db, async (trx) => {
        let changed = 0;
        for (const { row, after } of chunk) if (await replaceSealedValues(trx, row, after)) changed += 1;
        return changed;
      });
    });
  }
  return report;
}

function resealText(keys: UseCaseContext['secretKey'], sealed: string): string | null | 'unreadable' {
  return canOpenSecret(keys, sealed) ? resealSecret(keys, sealed) : 'unreadable';
}

/** A JSON record of sealed values: sealed again as a whole when any of them is not on the current key. */
function resealRecord(keys: UseCaseContext['secretKey'], json: string): string | null | 'unreadable' {
  const record = JSON.parse(json) as Record<string, string>;
  if (!Object.values(record).every((sealed) => canOpenSecret(keys, sealed))) return 'unreadable';
  const resealed = Object.fromEntries(Object.entries(record).map(([name, sealed]) => [name, resealSecret(keys, sealed)]));
  if (Object.values(resealed).every((value) => value === null)) return null;
  return JSON.stringify(Object.fromEntries(Object.entries(record).map(([name, sealed]) => [name, resealed[name] ?? sealed])));
}

/** Whose it is and what to do, never the value: `zoom connection 0193… of user 0193… (account 0193…): its tokens; the host connects again`. */
function describeUnreadable(row: SealedRow, column: string): string {
  const { key, names } = row;
  switch (row.table) {
    case 'account_gateways':
      return `account ${key.account_id}: the ${key.code} gateway's credentials; enter them again (PATCH /api/v1/account, gateways.${key.code})`;
    case 'account_integrations':
      return `account ${key.account_id}: the ${key.provider} app's credentials; an admin enters them again (PATCH /api/v1/account, integrations.${key.provider})`;
    case 'calendars':
      return `calendar ${key.id} of user ${names.user_id} (account ${names.account_id}): its ${column === 'url' ? 'iCalendar address' : 'password'}; the host removes it and adds it again`;
    case 'calendar_feeds':
      return `user ${key.user_id}: the private feed's address; the host makes a new one (rotates the feed)`;
    case 'webhook_subscriptions':
      return column === 'secret_sealed'
        ? `webhook ${key.id} (account ${names.account_id}): its signing secret; rotate it and give the receiver the new one`
        : `webhook ${key.id} (account ${names.account_id}): the signing secret a rotation replaced; it lapses by itself`;
    case 'connections':
      return `${names.provider} connection ${key.id} of user ${names.user_id} (account ${names.account_id}): its tokens; the host connects again`;
    case 'oauth_states':
      return `an authorization in progress for connection ${names.connection_id}: it lapses by itself within 15 minutes`;
  }
}
