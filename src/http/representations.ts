import type { Member } from '../domain/user.js';
import type { Team } from '../domain/team.js';
import type { AccountView } from '../scheduling/account.js';
import type { ApiKeyRecord } from '../db/repositories/api-keys.js';

/** Domain objects as the API shows them: epoch milliseconds become ISO 8601 UTC strings. */
export function toIso(ms: number): string {
  return new Date(ms).toISOString();
}

export function teamToJson(team: Team) {
  return { uuid: team.uuid, name: team.name };
}

export function memberToJson(member: Member) {
  return {
    uuid: member.uuid,
    firstName: member.firstName,
    lastName: member.lastName,
    email: member.email,
    username: member.username,
    admin: member.admin,
    timezone: member.timezone,
    createdAt: toIso(member.createdAt),
  };
}

export function accountToJson(account: AccountView) {
  return {
    uuid: account.uuid,
    name: account.name,
    timezone: account.timezone,
    maxUsers: account.maxUsers,
    activeUsers: account.activeUsers,
    places: account.places,
    gateways: account.gateways.map((gateway) => ({ code: gateway.code, configured: Object.keys(gateway.settings).length > 0 })),
    createdAt: toIso(account.createdAt),
  };
}

export function apiKeyToJson(key: ApiKeyRecord) {
  return { uuid: key.uuid, name: key.name, createdAt: toIso(key.createdAt), lastUsedAt: key.lastUsedAt === null ? null : toIso(key.lastUsedAt) };
}
