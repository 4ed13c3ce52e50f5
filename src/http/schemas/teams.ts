import { Type, type Static } from 'typebox';
import { Timestamp, TimeZone, Uuid } from './common.js';

export const TeamSchema = Type.Object({ uuid: Uuid, name: Type.String() }, { $id: 'Team', title: 'Team' });

export const TeamListSchema = Type.Object({ teams: Type.Array(Type.Ref('Team')) });

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

export const MemberListSchema = Type.Object({ users: Type.Array(Type.Ref('Member')) });

export const CreateMemberBodySchema = Type.Object(
  {
    firstName: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }),
    lastName: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }),
    email: Type.String({ format: 'email', maxLength: 320 }),
    admin: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);
export type CreateMemberBody = Static<typeof CreateMemberBodySchema>;

export const MemberParamsSchema = Type.Object({ teamUuid: Uuid, userUuid: Uuid });
