import { Type, type Static } from 'typebox';
import { LANGS } from '../../domain/meeting.js';
import { Email, NonBlankLine, Nullable, StringEnum, Timestamp, TimeZone, Uuid } from './common.js';
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
    language: Nullable(StringEnum(LANGS, { description: 'The language of the e-mails termin sends this user (PATCH /users/{userUuid}); null: not chosen, they read English.' })),
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

/** `PATCH /users/{userUuid}`: what a user may change of their own record (an admin of one of their teams, anyone's). */
export const UpdateUserBodySchema = Type.Object(
  {
    username: Type.Optional(
      Type.String({
        maxLength: 64,
        description:
          "The user's new username, the first part of their booking links (`/book/{username}/…`): lower-case letters, digits and single " +
          'hyphens, at most 64 (400 otherwise; `teams` and `once` are reserved). 409 USERNAME_TAKEN when another user has it or gave it up ' +
          'less than a year ago. The old username keeps working in booking links for a year at least: `/book/{old}/…` answers 301 to the ' +
          'new one, and nobody else may take it meanwhile; the user may take it back.',
        examples: ['anna'],
      }),
    ),
    language: Type.Optional(
      Nullable(
        StringEnum(LANGS, { description: 'The language of the e-mails termin sends this user (new bookings, requests, cancellations, reminders, sign-in links); null: English.' }),
      ),
    ),
  },
  { additionalProperties: false, description: 'Only the fields sent change.' },
);
export type UpdateUserBody = Static<typeof UpdateUserBodySchema>;

export const UserSchema = Type.Object(
  {
    uuid: Uuid,
    firstName: Type.String(),
    lastName: Type.String(),
    email: Type.String(),
    username: Type.String({ description: "Unique across the service; the host's `username` in scheduling calls and booking links." }),
    timezone: TimeZone,
    language: Nullable(StringEnum(LANGS, { description: 'The language of the e-mails termin sends this user; null: not chosen (English).' })),
    createdAt: Timestamp,
  },
  { $id: 'User', title: 'User' },
);
