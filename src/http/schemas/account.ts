import { Type, type Static } from 'typebox';
import { NextCursor } from './paging.js';
import { GATEWAYS, PLACES } from '../../domain/account.js';
import { GATEWAY_FIELDS, type GatewayField } from '../../domain/gateway-settings.js';
import { INTEGRATION_FIELDS, INTEGRATION_PROVIDERS } from '../../domain/integrations.js';
import { LOGO_LIMITS, MIN_CONTRAST } from '../../domain/branding.js';
import { FreeObject, NonBlankLine, Nullable, SingleLine, StringEnum, Timestamp, TimeZone, Uuid } from './common.js';

export const PlaceSchema = StringEnum(PLACES, { description: 'A meeting place.' });
export const GatewaySchema = StringEnum(GATEWAYS, { description: 'A payment gateway code.' });
export const IntegrationProviderSchema = StringEnum(INTEGRATION_PROVIDERS, { description: 'An OAuth provider hosts connect for conference rooms (and calendars).' });

export const AccountSchema = Type.Object(
  {
    uuid: Uuid,
    name: Type.String(),
    timezone: TimeZone,
    maxUsers: Type.Integer({ description: "The plan's limit of active users; set by the operator." }),
    activeUsers: Type.Integer({ description: 'Seats in use: users not deactivated.' }),
    owner: Type.Union([Uuid, Type.Null()], {
      description:
        "The owner's user uuid. Only the owner renames, demotes or removes the owner (403 for anyone else), the owner stays an admin of at least one team, and only the owner hands ownership over (`POST /account/owner`). Null never for an account in use.",
    }),
    places: Type.Array(PlaceSchema, { description: 'Meeting places enabled for the account.' }),
    gateways: Type.Array(
      Type.Object({
        code: GatewaySchema,
        configured: Type.Boolean({ description: 'Every setting the gateway needs is stored and readable; only then may bookings use it.' }),
        reason: Type.Optional(
          Type.String({
            description:
              "Why `configured` is false although every setting is stored: the stored secrets cannot be decrypted with the server's secret key " +
              '(`TERMIN_SECRET_KEY` changed). The operator restores the key, or the credentials are entered again with PATCH.',
          }),
        ),
        settings: Type.Record(Type.String(), Type.Union([Type.String(), Type.Integer()]), {
          description: 'The non-secret settings (e.g. `merchantId`, `posId`, `clientId`). Secrets are write-only: never returned.',
        }),
      }),
    ),
    integrations: Type.Array(
      Type.Object({
        provider: IntegrationProviderSchema,
        configured: Type.Boolean({ description: "Every setting of the business's OAuth app is stored and readable: hosts may connect (`POST /users/{userUuid}/connections`)." }),
        reason: Type.Optional(Type.String({ description: 'Why `configured` is false although every setting is stored (as for gateways).' })),
        settings: Type.Record(Type.String(), Type.String(), {
          description: 'The non-secret settings (`clientId`, and `tenant` for Microsoft). `clientSecret` is write-only: never returned.',
        }),
      }),
      { description: "The business's OAuth apps, one per provider: hosts connect their own accounts through them for conference rooms and calendars." },
    ),
    retention: Type.Object(
      {
        participantDataDays: Nullable(
          Type.Integer({
            minimum: 1,
            maximum: 3650,
            description:
              "Days a meeting's participant data (name, e-mail, phone, note, answers, metadata, invoice details) is kept after the meeting ended; then the background erases it " +
              "as `POST /participants/erase` does (without cancelling anything). Days of 24 hours from the meeting's end. null (the default): kept until erased.",
          }),
        ),
      },
      { description: "How long participants' personal data is kept." },
    ),
    branding: Type.Object(
      {
        businessName: Nullable(Type.String({ description: "Shown instead of the account's name on the participant's pages and in e-mails; null: the account's name." })),
        logoUrl: Nullable(Type.String({ description: 'Where the logo was fetched from, as given; null: no logo.' })),
        logo: Nullable(
          Type.String({
            description: 'Where termin serves the stored logo (`{PUBLIC_URL}/branding/{accountUuid}/logo?v=…`): pages and e-mails load it from here, never from `logoUrl`.',
          }),
        ),
        accentColor: Nullable(Type.String({ description: 'The accent colour as given ("#rrggbb"); null: termin\'s own.' })),
        accentColorUsed: Type.String({
          description: `The accent colour pages and e-mails use: \`accentColor\`, darkened (same hue) until white text on it keeps a ${MIN_CONTRAST}:1 contrast (WCAG 2).`,
        }),
      },
      { description: "The business's own look on the booking, manage, pay and confirmation pages, the embed and every e-mail." },
    ),
    createdAt: Timestamp,
  },
  { $id: 'Account', title: 'Account' },
);

const GATEWAY_NAMES = { stripe: 'Stripe', p24: 'Przelewy24', payu: 'PayU', paypal: 'PayPal', tpay: 'Tpay' } as const satisfies Record<(typeof GATEWAYS)[number], string>;

function gatewayFieldSchema(field: GatewayField) {
  const secret = field.secret ? 'Write-only: stored encrypted, never returned or logged.' : 'Shown back in `GET /account`.';
  if (field.type === 'integer') {
    return Type.Union([Type.Integer({ minimum: 1 }), Type.String({ pattern: '^[1-9][0-9]{0,15}$' })], {
      description: `A positive integer (a string of digits is taken too). ${secret}`,
      ...(field.secret ? { writeOnly: true } : {}),
    });
  }
  return SingleLine({ minLength: 1, maxLength: 500, description: secret, ...(field.secret ? { writeOnly: true } : {}) });
}

/**
 * One schema per gateway, from the same field list the use case checks: the document names
 * every setting, and an incomplete object is refused at each missing field's path instead
 * of enabling a gateway that cannot take a payment.
 */
export const GATEWAY_SETTINGS_SCHEMAS = Object.fromEntries(
  GATEWAYS.map((code) => [
    code,
    Type.Object(Object.fromEntries(GATEWAY_FIELDS[code].map((field) => [field.name, gatewayFieldSchema(field)])), {
      additionalProperties: false,
      title: `${GATEWAY_NAMES[code]} settings`,
      description: `Every field is required: ${GATEWAY_NAMES[code]} is usable for bookings once all are stored.`,
    }),
  ]),
);

export const UpdateAccountBodySchema = Type.Object(
  {
    name: Type.Optional(NonBlankLine({ maxLength: 200 })),
    timezone: Type.Optional(TimeZone),
    places: Type.Optional(Type.Array(PlaceSchema, { minItems: 1, maxItems: PLACES.length * 2 })),
    gateways: Type.Optional(
      Type.Union(
        [
          Type.Array(
            Type.Union([
              GatewaySchema,
              Type.Object(
                {
                  code: GatewaySchema,
                  settings: Type.Optional({ ...FreeObject, description: "The gateway's settings, the same fields as in the map spelling (all required)." }),
                },
                { additionalProperties: false },
              ),
            ]),
            { maxItems: GATEWAYS.length },
          ),
          Type.Object(Object.fromEntries(GATEWAYS.map((code) => [code, Type.Optional(GATEWAY_SETTINGS_SCHEMAS[code]!)])), { additionalProperties: false }),
        ],
        {
          description:
            'The enabled payment gateways, replacing the current set: `{ "stripe": {…settings} }`, `[{ "code": "stripe", "settings": {…} }]`, or ' +
            '`["stripe", "p24"]`. A code without settings keeps what was stored for it (enabled, not configured if nothing was); settings, when given, ' +
            'must be complete: a missing field is 400 at its path and nothing is stored.',
        },
      ),
    ),
    integrations: Type.Optional(
      Type.Object(
        Object.fromEntries(
          INTEGRATION_PROVIDERS.map((provider) => [
            provider,
            Type.Optional(
              Type.Union([
                Type.Object(
                  Object.fromEntries(
                    INTEGRATION_FIELDS[provider].map((field) => [
                      field.name,
                      Type.Optional(
                        SingleLine({
                          minLength: 1,
                          maxLength: 500,
                          description: field.secret ? 'Write-only: stored encrypted, never returned.' : field.default ? `Default \`${field.default}\`.` : undefined,
                        }),
                      ),
                    ]),
                  ),
                  { additionalProperties: false, description: `The OAuth app registered with ${provider}, redirect URI \`{PUBLIC_URL}/oauth/${provider}/callback\`.` },
                ),
                Type.Null({ description: 'Removes the app (connections made with it stop working).' }),
              ]),
            ),
          ]),
        ),
        {
          additionalProperties: false,
          description:
            'The OAuth apps per provider, each changed on its own (the others stay): `{ "zoom": { "clientId": "…", "clientSecret": "…" } }`. A secret left out keeps the stored one; `null` removes the app.',
        },
      ),
    ),
    branding: Type.Optional(
      Type.Object(
        {
          businessName: Type.Optional(Nullable(NonBlankLine({ maxLength: 200, description: "The business's name as participants see it; null: the account's name." }))),
          logoUrl: Type.Optional(
            Nullable(
              Type.String({
                maxLength: 2000,
                description:
                  `An https URL of a PNG, JPEG, WebP or GIF image of at most ${LOGO_LIMITS.maxBytes / 1024} kB. termin fetches it now, through the same guard as webhooks (no private, loopback ` +
                  'or metadata addresses; redirects are not followed), checks its type by its bytes (SVG is refused, not sanitised), stores it and serves it itself. ' +
                  'Any refusal is 400 at `/branding/logoUrl` and nothing is stored. null removes the logo.',
              }),
            ),
          ),
          accentColor: Type.Optional(
            Nullable(
              Type.String({
                pattern: '^#[0-9a-fA-F]{6}$',
                description: `"#rrggbb". Kept as given; pages and e-mails use it darkened, if needed, so white text on it keeps ${MIN_CONTRAST}:1 (\`accentColorUsed\`). null: termin's own.`,
              }),
            ),
          ),
        },
        { additionalProperties: false, description: "The business's own look; each field changed on its own (a field left out stays)." },
      ),
    ),
    retention: Type.Optional(
      Type.Object(
        {
          participantDataDays: Nullable(
            Type.Integer({ minimum: 1, maximum: 3650, description: "Days after a meeting's end its participant's personal data is kept (1..3650); null: until erased." }),
          ),
        },
        { additionalProperties: false, description: "How long participants' personal data is kept (see `GET /account`'s `retention`)." },
      ),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateAccountBody = Static<typeof UpdateAccountBodySchema>;

export const HandOverOwnershipBodySchema = Type.Object(
  { userUuid: Type.String({ format: 'uuid', description: 'The new owner: an active user of the account who is already an admin of one of its teams.' }) },
  { additionalProperties: false },
);

export const ApiKeySchema = Type.Object(
  { uuid: Uuid, name: Type.String(), createdAt: Timestamp, lastUsedAt: Type.Union([Timestamp, Type.Null()]) },
  { $id: 'ApiKey', title: 'ApiKey' },
);
export const CreatedApiKeySchema = Type.Object({
  uuid: Uuid,
  name: Type.String(),
  apiKey: Type.String({ description: 'The secret: shown only in this response, stored only as a hash.' }),
  createdAt: Timestamp,
});
export const ApiKeyListSchema = Type.Object({ apiKeys: Type.Array(Type.Ref('ApiKey')), nextCursor: NextCursor });
export const CreateApiKeyBodySchema = Type.Object(
  { name: NonBlankLine({ maxLength: 200, description: 'A label for the key, e.g. where it is used.' }) },
  { additionalProperties: false },
);
