import { PLACES, dedupe, type Account, type EnabledGateway, type Gateway, type Place } from '../../domain/account.js';
import { ForbiddenError, NotFoundError, ValidationError, type FieldError } from '../../domain/errors.js';
import { isGatewayConfigured, splitGatewaySettings } from '../../domain/gateway-settings.js';
import { isValidTimeZone } from '../../domain/time-zones.js';
import { replaceAccountGateways, selectAccountGateways, type StoredGateway } from '../../db/repositories/account-gateways.js';
import { countActiveUsers, findAccount, findRetention, writeAccountChanges, type AccountChanges } from '../../db/repositories/accounts.js';
import { isAdminOfAnyTeam } from '../../db/repositories/teams.js';
import type { DbOrTrx } from '../../db/database.js';
import { inTransaction } from '../../db/transaction.js';
import { sealRecord } from '../../secrets/secret-box.js';
import type { Principal, UseCaseContext } from '../context.js';
import { changedFields, OPERATOR_ACTOR, type Actor, type AuditDetails } from '../../domain/audit.js';
import { actorOf, recordAuditEvent } from '../audit/record-audit.js';
import { applyIntegrationChanges, type IntegrationView, listIntegrations, prepareIntegrationChanges } from '../integrations/apps.js';
import { writeBranding } from '../../db/repositories/account-brandings.js';
import type { BrandingInput } from '../../domain/branding.js';
import { getBranding, prepareBrandingChanges, type BrandingView } from './branding.js';
import { canOpenSecrets, UNREADABLE_CREDENTIALS } from '../payments/credentials.js';

export interface AccountView extends Account {
  activeUsers: number;
  gateways: EnabledGateway[];
  integrations: IntegrationView[];
  retention: { participantDataDays: number | null };
  branding: BrandingView;
}

export async function getAccount(ctx: Pick<UseCaseContext, 'db' | 'secretKey' | 'publicUrl'>, principal: Principal): Promise<AccountView> {
  const account = await findAccount(ctx.db, principal.accountUuid);
  if (!account) throw new NotFoundError('account');
  const [activeUsers, gateways, integrations, participantDataDays, branding] = await Promise.all([
    countActiveUsers(ctx.db, account.uuid),
    listUsableGateways(ctx, account.uuid),
    listIntegrations(ctx, account.uuid),
    findRetention(ctx.db, account.uuid),
    getBranding(ctx, account.uuid),
  ]);
  return { ...account, activeUsers, gateways, integrations, retention: { participantDataDays }, branding };
}

/**
 * The account's gateways as `GET /account` shows them: as `listEnabledGateways`, and one whose
 * stored secrets this server's key cannot open reads `configured: false` with the reason, as
 * bookings treat it (see `gatewayRefusal`).
 */
export async function listUsableGateways(ctx: Pick<UseCaseContext, 'db' | 'secretKey'>, accountUuid: string): Promise<EnabledGateway[]> {
  return (await selectAccountGateways(ctx.db, accountUuid)).map((stored) => {
    const gateway = toEnabledGateway(stored);
    return gateway.configured && !canOpenSecrets(ctx.secretKey, stored.sealedSecrets) ? { ...gateway, configured: false, reason: UNREADABLE_CREDENTIALS } : gateway;
  });
}

/** The account's gateways as they may be shown: settings without secrets, and whether each is usable. */
export async function listEnabledGateways(db: DbOrTrx, accountUuid: string): Promise<EnabledGateway[]> {
  return (await selectAccountGateways(db, accountUuid)).map(toEnabledGateway);
}

export function toEnabledGateway(stored: StoredGateway): EnabledGateway {
  const names = [...Object.keys(stored.settings), ...Object.keys(stored.sealedSecrets)];
  return { code: stored.code, settings: stored.settings, configured: isGatewayConfigured(stored.code, names) };
}

export interface AccountPatch {
  name?: string | undefined;
  timezone?: string | undefined;
  places?: Place[] | undefined;
  /** `settingsPath`: where the settings sit in the request, for the errors (default `/gateways/{code}`). */
  gateways?: { code: Gateway; settings?: object | undefined; settingsPath?: string | undefined }[] | undefined;
  /** Per provider, its OAuth app's settings, or null to remove it. */
  integrations?: Readonly<Record<string, Readonly<Record<string, unknown>> | null | undefined>> | undefined;
  /** Retention: days a meeting's personal data is kept after it ended (1..3650), or null: until erased. */
  retention?: { participantDataDays: number | null } | undefined;
  /** The business's name, logo (fetched now, through the outbound guard) and accent colour; null removes one. */
  branding?: BrandingInput | undefined;
}

/**
 * `PATCH /account`: by an admin of any of the account's teams. `maxUsers` is the operator's.
 * `gateways` replaces the enabled set; a gateway named without settings keeps what was
 * stored for it, one with settings is validated whole and its secrets sealed before they
 * reach the repository.
 */
export async function updateAccount(
  ctx: Pick<UseCaseContext, 'now' | 'db' | 'secretKey' | 'publicUrl' | 'outbound'>,
  principal: Principal,
  patch: AccountPatch,
): Promise<AccountView> {
  const { changes, gateways } = validateAccountPatch(patch);
  // Before the transaction: a new logo is fetched over the network.
  const branding = patch.branding === undefined ? undefined : await prepareBrandingChanges(ctx, patch.branding);
  const errors: FieldError[] = [];
  const integrations = patch.integrations === undefined ? [] : prepareIntegrationChanges(ctx, patch.integrations, errors);
  if (errors.length > 0) throw new ValidationError(errors);
  const sealed = gateways?.map((gateway) =>
    gateway.split === null
      ? { code: gateway.code, keep: true as const }
      : { code: gateway.code, keep: false as const, settings: gateway.split.settings, sealedSecrets: sealRecord(ctx.secretKey, gateway.split.secrets) },
  );
  await inTransaction(ctx.db, async (trx) => {
    if (!(await isAdminOfAnyTeam(trx, principal.userUuid))) throw new ForbiddenError('Only a team admin may change the account');
    await writeAccountChanges(trx, principal.accountUuid, changes);
    if (branding !== undefined) await writeBranding(trx, principal.accountUuid, branding, ctx.now());
    if (sealed !== undefined) {
      const current = new Map((await selectAccountGateways(trx, principal.accountUuid)).map((stored) => [stored.code, stored]));
      const next: StoredGateway[] = sealed.map((gateway) =>
        gateway.keep
          ? (current.get(gateway.code) ?? { code: gateway.code, settings: {}, sealedSecrets: {} })
          : { code: gateway.code, settings: gateway.settings, sealedSecrets: gateway.sealedSecrets },
      );
      await replaceAccountGateways(trx, principal.accountUuid, next, ctx.now());
    }
    await applyIntegrationChanges(trx, principal.accountUuid, integrations, ctx.now(), errors);
    if (errors.length > 0) throw new ValidationError(errors);
    await recordAccountAudit(trx, principal.accountUuid, actorOf(principal), patch, ctx.now());
  });
  return getAccount(ctx, principal);
}

/** Operator-only changes (the CLI): the plan's user limit, and anything PATCH may set. */
export async function updateAccountAsOperator(ctx: Pick<UseCaseContext, 'now' | 'db'>, accountUuid: string, changes: AccountChanges): Promise<Account> {
  if (changes.maxUsers !== undefined && (!Number.isInteger(changes.maxUsers) || changes.maxUsers < 1)) {
    throw new ValidationError([{ path: '/maxUsers', message: 'must be a positive integer' }]);
  }
  return inTransaction(ctx.db, async (trx) => {
    const account = await findAccount(trx, accountUuid);
    if (!account) throw new NotFoundError('account');
    await writeAccountChanges(trx, accountUuid, changes);
    await recordAuditEvent(trx, {
      accountUuid,
      action: 'account.updated',
      actor: OPERATOR_ACTOR,
      target: { type: 'account', uuid: accountUuid },
      details: { changed: changedFields(changes) },
      now: ctx.now(),
    });
    return (await findAccount(trx, accountUuid))!;
  });
}

/**
 * The audit log's entries of a `PATCH /account`: `account.updated` naming the fields it set
 * (never their values: gateway settings hold secrets), and one `integration.updated` per
 * provider whose OAuth app was set (naming the fields sent) or removed.
 */
async function recordAccountAudit(trx: DbOrTrx, accountUuid: string, actor: Actor, patch: AccountPatch, now: number): Promise<void> {
  const { integrations, ...rest } = patch;
  const changed = changedFields(rest);
  const target = { type: 'account' as const, uuid: accountUuid };
  if (changed.length > 0) await recordAuditEvent(trx, { accountUuid, action: 'account.updated', actor, target, details: { changed }, now });
  for (const [provider, value] of Object.entries(integrations ?? {})) {
    if (value === undefined) continue;
    const details: AuditDetails = value === null ? { provider, removed: true } : { provider, removed: false, changed: changedFields(value) };
    await recordAuditEvent(trx, { accountUuid, action: 'integration.updated', actor, target: { type: 'integration', uuid: accountUuid }, details, now });
  }
}

interface GatewayChange {
  code: Gateway;
  /** null: keep what is stored. */
  split: { settings: Record<string, string | number>; secrets: Record<string, string> } | null;
}

function validateAccountPatch(patch: AccountPatch): { changes: AccountChanges; gateways: GatewayChange[] | undefined } {
  const errors: FieldError[] = [];
  const changes: AccountChanges = {};
  let gateways: GatewayChange[] | undefined;
  if (patch.name !== undefined) {
    const name = patch.name.trim();
    if (name === '') errors.push({ path: '/name', message: 'must not be empty' });
    changes.name = name;
  }
  if (patch.timezone !== undefined) {
    if (!isValidTimeZone(patch.timezone)) errors.push({ path: '/timezone', message: 'must be a valid IANA time zone' });
    changes.timezone = patch.timezone;
  }
  if (patch.places !== undefined) {
    if (patch.places.length === 0) errors.push({ path: '/places', message: `must enable at least one of ${PLACES.join(', ')}` });
    changes.places = dedupe(patch.places);
  }
  if (patch.retention !== undefined) {
    const days = patch.retention.participantDataDays;
    if (days !== null && (!Number.isInteger(days) || days < 1 || days > 3650)) {
      errors.push({ path: '/retention/participantDataDays', message: 'must be a whole number of days from 1 to 3650, or null' });
    }
    changes.participantDataDays = days;
  }
  if (patch.gateways !== undefined) {
    const seen = new Set<string>();
    patch.gateways.forEach((gateway, index) => {
      if (seen.has(gateway.code)) errors.push({ path: `/gateways/${index}/code`, message: 'is listed twice' });
      seen.add(gateway.code);
    });
    gateways = patch.gateways.map((gateway) => {
      if (gateway.settings === undefined) return { code: gateway.code, split: null };
      const settings = gateway.settings as Record<string, unknown>;
      const split = splitGatewaySettings(gateway.code, settings, gateway.settingsPath ?? `/gateways/${gateway.code}`);
      errors.push(...split.errors);
      return { code: gateway.code, split: split.value };
    });
  }
  if (errors.length > 0) throw new ValidationError(errors);
  return { changes, gateways };
}
