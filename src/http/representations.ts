import type { ApiKeyRecord } from '../domain/api-key.js';
import { toIso } from '../domain/representations.js';
import type { AccountView } from '../scheduling/account/account.js';

/** What only the API shows (the shapes webhooks share are in src/domain/representations.ts). */

export function accountToJson(account: AccountView) {
  return {
    uuid: account.uuid,
    name: account.name,
    timezone: account.timezone,
    maxUsers: account.maxUsers,
    activeUsers: account.activeUsers,
    owner: account.ownerUuid,
    places: account.places,
    gateways: account.gateways.map((gateway) => ({
      code: gateway.code,
      configured: gateway.configured,
      ...(gateway.reason !== undefined ? { reason: gateway.reason } : {}),
      settings: gateway.settings,
    })),
    integrations: account.integrations.map((integration) => ({
      provider: integration.provider,
      configured: integration.configured,
      ...(integration.reason !== undefined ? { reason: integration.reason } : {}),
      settings: integration.settings,
    })),
    createdAt: toIso(account.createdAt),
  };
}

export function apiKeyToJson(key: ApiKeyRecord) {
  return { uuid: key.uuid, name: key.name, createdAt: toIso(key.createdAt), lastUsedAt: key.lastUsedAt === null ? null : toIso(key.lastUsedAt) };
}
