/**
 * The account's audit log: who changed what, recorded in the transaction of the change
 * (src/scheduling/audit/record-audit.ts) and never changed or deleted by any API. Pure types
 * and the few rules about what an entry may say; no database, no HTTP.
 */

/** Every action the log records (CONTRACT.md, "Audit log"); `GET /audit-events?action=` takes one of them. */
export const AUDIT_ACTIONS = [
  'member.created',
  'member.updated',
  'member.deleted',
  'team.created',
  'team.updated',
  'team.deleted',
  'key.created',
  'key.revoked',
  'owner.transferred',
  'account.updated',
  'integration.updated',
  'connection.created',
  'connection.deleted',
  'calendar.created',
  'calendar.deleted',
  'topic.created',
  'topic.updated',
  'topic.deleted',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'discount.created',
  'discount.deleted',
  'participant.exported',
  'participant.erased',
  'retention.applied',
  'meeting.cancelled',
  'meeting.moved',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const ACTOR_TYPES = ['user', 'operator', 'participant', 'system'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

/** How the actor reached termin: a user's API key or /app session, the operator's CLI, a participant's manage link, the background maintenance. */
export const ACTOR_VIAS = ['api-key', 'app', 'cli', 'manage-link', 'maintenance'] as const;
export type ActorVia = (typeof ACTOR_VIAS)[number];

/** Who made a change. `userUuid` only for a user (the operator and participants are not users). */
export interface Actor {
  type: ActorType;
  userUuid?: string | undefined;
  via: ActorVia;
}

/** The operator at the command line (src/cli). */
export const OPERATOR_ACTOR: Actor = Object.freeze({ type: 'operator', via: 'cli' });
/** The background maintenance (retention, lapsed holds). */
export const MAINTENANCE_ACTOR: Actor = Object.freeze({ type: 'system', via: 'maintenance' });
/** The participant of a meeting, by the manage link of their confirmation: never named (the log keeps no participant's e-mail or name). */
export const MANAGE_LINK_ACTOR: Actor = Object.freeze({ type: 'participant', via: 'manage-link' });

/** What an entry is about: the record's kind and uuid (`account` for account-wide actions). */
export const AUDIT_TARGET_TYPES = ['account', 'member', 'team', 'api-key', 'integration', 'connection', 'calendar', 'topic', 'webhook', 'discount-code', 'meeting'] as const;
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];

/**
 * A small JSON object describing the change. It never holds a secret, a token, or a
 * participant's e-mail, name or phone: updates name the fields that changed, not their values.
 */
export type AuditDetails = Readonly<Record<string, string | number | boolean | null | readonly string[]>>;

export interface AuditEvent {
  uuid: string;
  accountUuid: string;
  at: number;
  action: AuditAction;
  actor: Actor;
  target: { type: AuditTargetType; uuid: string };
  details: AuditDetails;
}

/**
 * The names of the fields a patch sets (those not `undefined`), sorted: what an update's
 * `details.changed` lists instead of the values (which may be secrets or personal data).
 *
 * @example
 * changedFields({ name: 'Acme', timezone: undefined, gateways: [] }) // ['gateways', 'name']
 */
export function changedFields(patch: object): string[] {
  return Object.entries(patch)
    .filter(([, value]) => value !== undefined)
    .map(([name]) => name)
    .sort();
}

export function isAuditAction(value: string): value is AuditAction {
  return (AUDIT_ACTIONS as readonly string[]).includes(value);
}
