import type { ApiKeyRecord } from '../domain/api-key.js';
import { meetingToJson, toIso } from '../domain/representations.js';
import type { AccountView } from '../scheduling/account/account.js';
import type { ParticipantExport } from '../scheduling/participants/participants.js';

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
    retention: { participantDataDays: account.retention.participantDataDays },
    branding: {
      businessName: account.branding.businessName,
      logoUrl: account.branding.logoUrl,
      logo: account.branding.logo,
      accentColor: account.branding.accentColor,
      accentColorUsed: account.branding.accent,
    },
    createdAt: toIso(account.createdAt),
  };
}

export function apiKeyToJson(key: ApiKeyRecord) {
  return { uuid: key.uuid, name: key.name, createdAt: toIso(key.createdAt), lastUsedAt: key.lastUsedAt === null ? null : toIso(key.lastUsedAt) };
}

/** The export as the API shows it: each meeting as `GET /meetings/{uuid}` does, with its payments and messages. */
export function exportToJson(data: ParticipantExport) {
  return {
    email: data.email,
    exportedAt: toIso(data.exportedAt),
    meetings: data.meetings.map(({ meeting, payment, messages }) => ({
      ...meetingToJson(meeting),
      payments:
        payment === undefined
          ? []
          : [
              {
                uuid: payment.uuid,
                amount: payment.amount,
                currency: payment.currency,
                status: payment.status,
                gateway: payment.gateway,
                createdAt: toIso(payment.createdAt),
                expiresAt: toIso(payment.expiresAt),
                paidAt: payment.paidAt === null ? null : toIso(payment.paidAt),
                refundedAmount: payment.refundedAmount ?? 0,
              },
            ],
      messages: messages.map((message) => ({ kind: message.kind, channel: message.channel, sentAt: toIso(message.sentAt) })),
    })),
  };
}
