import { isIP } from 'node:net';
import { type AuditDetails, OPERATOR_ACTOR, changedFields } from '../../domain/audit.js';
import type { OAuthApp } from '../../integrations/ports.js';
import type { Place } from '../../domain/account.js';
import { INTEGRATION_FIELDS, INTEGRATION_PROVIDERS, type IntegrationProvider, PROVIDER_PLACES, splitIntegrationSettings } from '../../domain/integrations.js';
import { type FieldError, ForbiddenError, NotFoundError, SecretUnreadableError, ValidationError } from '../../domain/errors.js';
import type { DbOrTrx } from '../../db/database.js';
import { findAccount } from '../../db/repositories/accounts.js';
import { isAdminOfAnyTeam } from '../../db/repositories/teams.js';
import { inTransaction } from '../../db/transaction.js';
import { isForbiddenAddress } from '../../net/outbound-guard.js';
import { findAccountIntegration, saveAccountIntegration, selectAccountIntegrations } from '../../db/repositories/integrations.js';
import { openRecord, sealRecord } from '../../secrets/secret-box.js';
import { recordAuditEvent } from '../audit/record-audit.js';
import type { Principal, UseCaseContext } from '../context.js';
import { canOpenSecrets, UNREADABLE_CREDENTIALS } from '../payments/credentials.js';

/** An account's OAuth app for a provider as `GET /account` shows it: never the secret. */
export interface IntegrationView {
  provider: IntegrationProvider;
  /** Every setting the provider needs is stored, and this server can read it: hosts may connect. */
  configured: boolean;
  settings: Record<string, string>;
  /** Why it is not configured, when it has everything but cannot be read (another secret key). */
  reason?: string;
}

export async function listIntegrations(ctx: Pick<UseCaseContext, 'db' | 'secretKey'>, accountUuid: string): Promise<IntegrationView[]> {
  return (await selectAccountIntegrations(ctx.db, accountUuid)).map((stored) => {
    const complete = INTEGRATION_FIELDS[stored.provider].every((field) => (field.secret ? stored.sealedSecrets : stored.settings)[field.name] !== undefined);
    if (complete && !canOpenSecrets(ctx.secretKey, stored.sealedSecrets))
      return { provider: stored.provider, configured: false, settings: stored.settings, reason: UNREADABLE_CREDENTIALS };
    return { provider: stored.provider, configured: complete, settings: stored.settings };
  });
}

/** One provider's change in `PATCH /account` `integrations`: new settings (secrets sealed already), or null to remove the app. */
export type IntegrationChange = { provider: IntegrationProvider; value: { settings: Record<string, string>; sealedSecrets: Record<string, string> } | null; keepSecrets: boolean };

/**
 * Checks `PATCH /account`'s `integrations` (`{ "zoom": { "clientId", "clientSecret" }, "google": null }`)
 * and seals the secrets before any transaction. A secret left out keeps the one stored (so an
 * admin may change the client id without typing the secret again); every other missing or
 * unknown field is a 400 at its path.
 */
export function prepareIntegrationChanges(
  ctx: Pick<UseCaseContext, 'secretKey'>,
  input: Readonly<Record<string, Readonly<Record<string, unknown>> | null | undefined>>,
  errors: FieldError[],
): IntegrationChange[] {
  const changes: IntegrationChange[] = [];
  for (const [name, value] of Object.entries(input)) {
    const provider = name as IntegrationProvider;
    if (value === undefined) continue;
    if (value === null) {
      changes.push({ provider, value: null, keepSecrets: false });
      continue;
    }
    const secretsGiven = INTEGRATION_FIELDS[provider].filter((field) => field.secret).every((field) => value[field.name] !== undefined);
    const placeholder = Object.fromEntries(INTEGRATION_FIELDS[provider].filter((field) => field.secret && value[field.name] === undefined).map((field) => [field.name, 'kept']));
    const split = splitIntegrationSettings(provider, { ...placeholder, ...value }, `/integrations/${provider}`);
    errors.push(...split.errors);
    const secrets = Object.fromEntries(Object.entries(split.value.secrets).filter(([field]) => value[field] !== undefined));
    changes.push({ provider, value: { settings: split.value.settings, sealedSecrets: sealRecord(ctx.secretKey, secrets) }, keepSecrets: !secretsGiven });
  }
  return changes;
}

/** Stores prepared changes in the caller's transaction; a kept secret must exist, or it is a 400 at its path. */
export async function applyIntegrationChanges(trx: DbOrTrx, accountUuid: string, changes: readonly IntegrationChange[], now: number, errors: FieldError[]): Promise<void> {
  for (const change of changes) {
    let value = change.value;
    if (value !== null && change.keepSecrets) {
      const stored = await findAccountIntegration(trx, accountUuid, change.provider);
      for (const field of INTEGRATION_FIELDS[change.provider].filter((f) => f.secret)) {
        const kept: string | undefined = value.sealedSecrets[field.name] ?? stored?.sealedSecrets[field.name];
        if (kept === undefined) errors.push({ path: `/integrations/${change.provider}/${field.name}`, message: `is required to connect ${change.provider}` });
        else value = { ...value, sealedSecrets: { ...value.sealedSecrets, [field.name]: kept } };
      }
    }
    if (errors.length === 0) await saveAccountIntegration(trx, accountUuid, change.provider, value, now);
  }
}

/**
 * The account's OAuth app for `provider` with its secret opened, or null when none is configured.
 * Throws SecretUnreadableError (naming the app and that an admin enters its credentials again)
 * when no secret key of this server opens its client secret.
 */
export async function openIntegrationApp(
  ctx: Pick<UseCaseContext, 'secretKey' | 'integrations'>,
  db: DbOrTrx,
  accountUuid: string,
  provider: IntegrationProvider,
): Promise<OAuthApp | null> {
  const stored = await findAccountIntegration(db, accountUuid, provider);
  if (!stored) return null;
  if (!canOpenSecrets(ctx.secretKey, stored.sealedSecrets)) {
    const label = ctx.integrations.oauth[provider].label;
    throw new SecretUnreadableError({
      what: `the account's ${label} app credentials`,
      todo: `an admin enters the ${label} app's client id and secret again (PATCH /api/v1/account, integrations.${provider})`,
    });
  }
  const secrets = openRecord(ctx.secretKey, stored.sealedSecrets);
  const clientId = stored.settings.clientId;
  const clientSecret = secrets.clientSecret;
  if (clientId === undefined || clientSecret === undefined) return null;
  return { clientId, clientSecret, settings: stored.settings };
}

/**
 * The places whose rooms this account can make: those of the providers it has an app for.
 * Only there does a meeting without a link get one later (the host can connect); elsewhere
 * a room place is a label with whatever static link is set, as before integrations.
 */
export async function findRoomPlaces(db: DbOrTrx, accountUuid: string): Promise<Place[]> {
  return (await selectAccountIntegrations(db, accountUuid)).map((integration) => PROVIDER_PLACES[integration.provider]);
}

// ── The admins' Integrations page and the operator's CLI ─────────────────────────────────

/** `{PUBLIC_URL}/oauth/{provider}/callback`: the redirect URI the business registers with the provider. */
export function redirectUriOf(publicUrl: string, provider: IntegrationProvider): string {
  return `${publicUrl}/oauth/${provider}/callback`;
}

/** Why the OAuth providers cannot send a host's browser back to PUBLIC_URL as it is, or null when they can. */
export type PublicUrlProblem = 'not-https' | 'not-public';

/**
 * Whether `PUBLIC_URL` can be a redirect URI the providers accept and a host's browser reaches
 * from anywhere: https, and not this machine or a private network (localhost, `*.localhost`,
 * 127.*, 10.*, 192.168.*, ::1, fc00::/7 …: every address the outbound guard refuses).
 *
 * `publicUrlProblem('https://termin.example.com')` → null; `publicUrlProblem('http://127.0.0.1:3000')` → 'not-https';
 * `publicUrlProblem('https://192.168.1.5')` → 'not-public'.
 */
export function publicUrlProblem(publicUrl: string): PublicUrlProblem | null {
  let url: URL;
  try {
    url = new URL(publicUrl);
  } catch {
    return 'not-https';
  }
  if (url.protocol !== 'https:') return 'not-https';
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || (!host.includes('.') && !host.includes(':'))) return 'not-public';
  if (isIP(host) !== 0 && isForbiddenAddress(host)) return 'not-public';
  return null;
}

/** One provider's OAuth app as its admin page shows it: the settings, whether a secret is stored (never the secret). */
export interface IntegrationSetupRow {
  provider: IntegrationProvider;
  label: string;
  configured: boolean;
  /** Why a complete app cannot be used (a secret no key of this server opens). */
  reason: string | null;
  settings: Record<string, string>;
  secretSet: boolean;
  /** `{PUBLIC_URL}/oauth/{provider}/callback`, exactly as the provider must have it. */
  redirectUri: string;
}

export interface IntegrationSetup {
  apps: IntegrationSetupRow[];
  publicUrlProblem: PublicUrlProblem | null;
}

/** What the Integrations page shows: every provider, with the account's app where there is one. For admins of any team of the account. */
export async function getIntegrationSetup(ctx: Pick<UseCaseContext, 'db' | 'secretKey' | 'integrations' | 'publicUrl'>, principal: Principal): Promise<IntegrationSetup> {
  if (!(await isAdminOfAnyTeam(ctx.db, principal.userUuid))) throw new ForbiddenError('Only a team admin may manage the account’s integrations');
  const [stored, views] = await Promise.all([selectAccountIntegrations(ctx.db, principal.accountUuid), listIntegrations(ctx, principal.accountUuid)]);
  const apps = INTEGRATION_PROVIDERS.map((provider): IntegrationSetupRow => {
    const app = stored.find((candidate) => candidate.provider === provider);
    const view = views.find((candidate) => candidate.provider === provider);
    return {
      provider,
      label: ctx.integrations.oauth[provider].label,
      configured: view?.configured ?? false,
      reason: view?.reason ?? null,
      settings: app?.settings ?? {},
      secretSet: app?.sealedSecrets.clientSecret !== undefined,
      redirectUri: redirectUriOf(ctx.publicUrl, provider),
    };
  });
  return { apps, publicUrlProblem: publicUrlProblem(ctx.publicUrl) };
}

/**
 * The operator's `integrations set` (the CLI): an account's OAuth app for one provider, with the
 * same checks as `PATCH /account` `integrations` (a secret left out keeps the stored one), or
 * null to remove it. No caller to check: the operator may set any account's.
 */
export async function setIntegrationAsOperator(
  ctx: Pick<UseCaseContext, 'db' | 'secretKey' | 'now'>,
  accountUuid: string,
  provider: IntegrationProvider,
  settings: Readonly<Record<string, string>> | null,
): Promise<void> {
  if (!(await findAccount(ctx.db, accountUuid))) throw new NotFoundError('account');
  const errors: FieldError[] = [];
  const changes = prepareIntegrationChanges(ctx, { [provider]: settings }, errors);
  if (errors.length > 0) throw new ValidationError(errors);
  await inTransaction(ctx.db, async (trx) => {
    const now = ctx.now();
    await applyIntegrationChanges(trx, accountUuid, changes, now, errors);
    if (errors.length > 0) throw new ValidationError(errors);
    const details: AuditDetails = settings === null ? { provider, removed: true } : { provider, removed: false, changed: changedFields(settings) };
    await recordAuditEvent(trx, { accountUuid, action: 'integration.updated', actor: OPERATOR_ACTOR, target: { type: 'integration', uuid: accountUuid }, details, now });
  });
}
