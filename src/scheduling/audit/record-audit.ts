import { MANAGE_LINK_ACTOR, type Actor, type AuditAction, type AuditDetails, type AuditEvent, type AuditTargetType } from '../../domain/audit.js';
import type { DbOrTrx } from '../../db/database.js';
import { insertAuditEvent } from '../../db/repositories/audit-events.js';
import { newId } from '../../ids.js';
import type { Principal } from '../context.js';

export interface NewAuditEvent {
  accountUuid: string;
  action: AuditAction;
  actor: Actor;
  target: { type: AuditTargetType; uuid: string };
  details?: AuditDetails | undefined;
  now: number;
}

/**
 * Records who changed what, in the caller's transaction: pass the `trx` the change is made
 * in, so the change and its entry commit together or not at all (an insert that fails fails
 * the change). `details` must hold no secret, token or participant's e-mail, name or phone:
 * field names for updates, uuids and codes otherwise.
 *
 * @example
 * await inTransaction(db, async (trx) => {
 *   await insertTeam(trx, team);
 *   await recordAuditEvent(trx, { accountUuid, action: 'team.created', actor: actorOf(principal), target: { type: 'team', uuid: team.uuid }, now });
 * });
 */
export async function recordAuditEvent(trx: DbOrTrx, event: NewAuditEvent): Promise<AuditEvent> {
  const recorded: AuditEvent = {
    uuid: newId(event.now),
    accountUuid: event.accountUuid,
    at: event.now,
    action: event.action,
    actor: event.actor,
    target: event.target,
    details: event.details ?? {},
  };
  await insertAuditEvent(trx, recorded);
  return recorded;
}

/**
 * Who a principal is for the log: the user, by the API key or the /app session it came
 * with (`principal.actor`, set where the principal is established); a principal built
 * without one (older callers, test fixtures) is the user by an API key.
 */
export function actorOf(caller: Principal | { participantOf: string }): Actor {
  // The participant, by their manage link (see ParticipantActor): never named in the log.
  if ('participantOf' in caller) return MANAGE_LINK_ACTOR;
  return caller.actor ?? { type: 'user', userUuid: caller.userUuid, via: 'api-key' };
}
