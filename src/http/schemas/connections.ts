import { Type } from 'typebox';
import { NextCursor } from './paging.js';
import { CONNECTION_STATUSES } from '../../domain/integrations.js';
import { IntegrationProviderSchema } from './account.js';
import { Nullable, StringEnum, Timestamp, Uuid } from './common.js';

export const ConnectionBodySchema = Type.Object({ provider: IntegrationProviderSchema }, { additionalProperties: false });

const connectionFields = {
  uuid: Uuid,
  provider: IntegrationProviderSchema,
  user: Uuid,
  status: StringEnum(CONNECTION_STATUSES, {
    description:
      '`pending`: not authorized yet (open `authorizeUrl`); `connected`: rooms and calendars work through it; `error`: the provider refused it (see `lastError`), connect again with POST.',
  }),
  accountEmail: Nullable(Type.String({ description: "The provider account's e-mail, once connected." })),
  lastError: Nullable(Type.String({ description: 'Why the provider refused the connection; null while it works.' })),
  createdAt: Timestamp,
  connectedAt: Nullable(Timestamp),
};

export const ConnectionSchema = Type.Object(connectionFields, {
  title: 'Connection',
  description: "A host's OAuth connection to a provider. Tokens are stored encrypted and never shown.",
});

export const StartedConnectionSchema = Type.Object(
  {
    ...connectionFields,
    authorizeUrl: Type.String({
      description:
        "Where to send the host's browser: the provider's authorization page, with `response_type=code`, the account's app, the redirect URI `{PUBLIC_URL}/oauth/{provider}/callback`, the provider's scopes, a single-use `state` (15 minutes) and PKCE (S256). Whoever finishes it in any browser connects the provider account they sign in with to this host (the page they land on and an e-mail to the host name the provider account, the host and the account, and the host can remove it): hand it only to the host's own browser. A connection started in the web app (`/app/connections`) is instead bound to that browser's session.",
    }),
  },
  { title: 'StartedConnection' },
);

export const ConnectionListSchema = Type.Object({ connections: Type.Array(ConnectionSchema), nextCursor: NextCursor });
export const UserConnectionParams = Type.Object({ userUuid: Uuid, uuid: Uuid });
export const OAuthCallbackParams = Type.Object({ provider: Type.String({ maxLength: 40 }) });
export const OAuthCallbackQuery = Type.Object(
  {
    code: Type.Optional(Type.String({ maxLength: 4096 })),
    state: Type.Optional(Type.String({ maxLength: 512 })),
    error: Type.Optional(Type.String({ maxLength: 256 })),
    error_description: Type.Optional(Type.String({ maxLength: 2048 })),
  },
  // Providers add parameters of their own (scope, iss, authuser, …).
  { additionalProperties: Type.String({ maxLength: 4096 }) },
);
