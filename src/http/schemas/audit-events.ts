import { Type } from 'typebox';
import { ACTOR_TYPES, ACTOR_VIAS, AUDIT_ACTIONS, AUDIT_TARGET_TYPES } from '../../domain/audit.js';
import { SingleLine, StringEnum, Timestamp, UtcInstant, Uuid } from './common.js';
import { NextCursor } from './paging.js';

export const AuditEventListQuerySchema = Type.Object(
  {
    since: Type.Optional(UtcInstant('Only events at or after this instant.')),
    action: Type.Optional(StringEnum(AUDIT_ACTIONS, { description: 'Only events of this action.' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Events per page.' })),
    cursor: Type.Optional(SingleLine({ maxLength: 200, description: 'The `nextCursor` of the previous page.' })),
  },
  { additionalProperties: false },
);

export const AuditEventSchema = Type.Object(
  {
    uuid: Uuid,
    at: Timestamp,
    action: StringEnum(AUDIT_ACTIONS),
    actor: Type.Object({
      type: StringEnum(ACTOR_TYPES, { description: '`user` (a member), `operator` (the CLI), `participant` (by their manage link) or `system` (the maintenance).' }),
      userUuid: Type.Optional(Uuid),
      via: StringEnum(ACTOR_VIAS, { description: 'How: an API key, the /app web app, the CLI, the manage link, or the background maintenance.' }),
    }),
    target: Type.Object({ type: StringEnum(AUDIT_TARGET_TYPES), uuid: Uuid }),
    details: Type.Record(Type.String(), Type.Unknown(), {
      description:
        'What changed, e.g. `{ "changed": ["name", "places"] }` for an update (field names, never values), `{ "teamUuid", "admin" }` for a new member. Never secrets, tokens, URLs with their paths, or a participant\'s e-mail, name or phone.',
    }),
  },
  { title: 'AuditEvent' },
);

export const AuditEventListSchema = Type.Object({
  auditEvents: Type.Array(AuditEventSchema),
  nextCursor: NextCursor,
});
