import { Type, type Static } from 'typebox';
import { Email, NonBlankLine, Timestamp, TimeZone, Uuid } from './common.js';
import { NextCursor } from './paging.js';

export const TeamSchema = Type.Object({ uuid: Uuid, name: Type.String() }, { $id: 'Team', title: 'Team' });

export const TeamListSchema = Type.Object({ teams: Type.Array(Type.Ref('Team')), nextCursor: NextCursor });

export const CreateTeamBodySchema = Type.Object({ name: NonBlankLine({ maxLength: 200 }) }, { additionalProperties: false });

export const MemberSchema = Type.Object(
  {
    uuid: Uuid,
    firstName: Type.String(),
    lastName: Type.String(),
    email: Type.String(),
    username: Type.String({ description: "Unique across the service; the host's `username` in scheduling calls." }),
    admin: Type.Boolean({ description: 'Admin of this team.' }),
    timezone: TimeZone,
    createdAt: Timestamp,
  },
  { $id: 'Member', title: 'Member' },
);

export const MemberListSchema = Type.Object({ users: Type.Array(Type.Ref('Member')), nextCursor: NextCursor });

export const CreateMemberBodySchema = Type.Object(
  {
    firstName: NonBlankLine({ maxLength: 100 }),
    lastName: NonBlankLine({ maxLength: 100 }),
    // Surrounding spaces are trimmed, not refused (pasted addresses often carry them).
    email: Email('Trimmed; compared case-insensitively within the account.'),
    admin: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);
export type CreateMemberBody = Static<typeof CreateMemberBodySchema>;

export const MemberParamsSchema = Type.Object({ teamUuid: Uuid, userUuid: Uuid });

export const UpdateMemberBodySchema = Type.Object(
  {
    firstName: Type.Optional(NonBlankLine({ maxLength: 100, description: 'New first name (trimmed).' })),
    lastName: Type.Optional(NonBlankLine({ maxLength: 100, description: 'New last name (trimmed).' })),
    admin: Type.Optional(Type.Boolean({ description: "true makes the member an admin of this team; false takes the right away (409 LAST_ADMIN for the team's last admin)." })),
  },
  { additionalProperties: false, description: 'Only the fields sent change; an empty object changes nothing.' },
);
export type UpdateMemberBody = Static<typeof UpdateMemberBodySchema>;
