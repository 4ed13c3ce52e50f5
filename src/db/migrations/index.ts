import type { Migration } from 'kysely';
import * as foundation from './0001-foundation.js';
import * as meetingTopics from './0002-meeting-topics.js';
import * as meetings from './0003-meetings.js';
import * as bookings from './0004-bookings.js';
import * as discountCodes from './0005-discount-codes.js';
import * as coreSeams from './0006-core-seams.js';
import * as payments from './0007-payments.js';
import * as webhooks from './0008-webhooks.js';
import * as calendars from './0009-calendars.js';
import * as bookingPages from './0010-booking-pages.js';
import * as placeDetails from './0011-place-details.js';
import * as syncClaims from './0012-sync-claims.js';
import * as outboxClaims from './0013-outbox-claims.js';
import * as attemptsAndIsoAmounts from './0014-attempts-and-iso-amounts.js';
import * as refundRequests from './0016-refund-requests.js';
import * as accountOwners from './0017-account-owners.js';
import * as integrations from './0018-integrations.js';
import * as meetingLifecycle from './0021-meeting-lifecycle.js';
import * as webhookSecretRotation from './0022-webhook-secret-rotation.js';
import * as meetingReminders from './0023-meeting-reminders.js';
import * as schedulesAndLimits from './0024-schedules-and-limits.js';
import * as seatsAndWeights from './0025-seats-and-weights.js';
import * as calendarSyncTokens from './0026-calendar-sync-tokens.js';
import * as appSessions from './0027-app-sessions.js';
import * as participantLocale from './0029-participant-locale.js';
import * as collectiveTopics from './0030-collective-topics.js';
import * as changeNotifications from './0031-change-notifications.js';
import * as reminderClaims from './0032-reminder-claims.js';
import * as busyCut from './0033-calendar-busy-cut.js';
import * as roomAttemptsAndNotices from './0034-room-attempts-and-notices.js';
import * as tokensRefreshedAt from './0035-tokens-refreshed-at.js';
import * as oauthStateSessions from './0036-oauth-state-sessions.js';
import * as smsNumberLimits from './0037-sms-number-limits.js';
import * as participantErasure from './0038-participant-erasure.js';
import * as retention from './0039-retention.js';
import * as auditEvents from './0040-audit-events.js';
import * as hostSetupSteps from './0041-host-setup-steps.js';
import * as bookingLinkNames from './0042-booking-link-names.js';
import * as bookingChoices from './0043-booking-choices.js';
import * as timeOffAndSingleUseLinks from './0044-time-off-and-single-use-links.js';
import * as brandingAndTopicWords from './0045-branding-and-topic-words.js';
import * as retentionIndexes from './0046-retention-indexes.js';
import * as yearIndexes from './0047-year-indexes.js';
import * as smsNumberLockTimes from './0048-sms-number-lock-times.js';

/** Every migration, in order. Listed explicitly so the build needs no directory scan. */
export const migrations: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-meeting-topics': meetingTopics,
  '0003-meetings': meetings,
  '0004-bookings': bookings,
  '0005-discount-codes': discountCodes,
  '0006-core-seams': coreSeams,
  '0007-payments': payments,
  '0008-webhooks': webhooks,
  '0009-calendars': calendars,
  '0010-booking-pages': bookingPages,
  '0011-place-details': placeDetails,
  '0012-sync-claims': syncClaims,
  '0013-outbox-claims': outboxClaims,
  '0014-attempts-and-iso-amounts': attemptsAndIsoAmounts,
  '0016-refund-requests': refundRequests,
  '0017-account-owners': accountOwners,
  '0018-integrations': integrations,
  '0021-meeting-lifecycle': meetingLifecycle,
  '0022-webhook-secret-rotation': webhookSecretRotation,
  '0023-meeting-reminders': meetingReminders,
  '0024-schedules-and-limits': schedulesAndLimits,
  '0025-seats-and-weights': seatsAndWeights,
  '0026-calendar-sync-tokens': calendarSyncTokens,
  '0027-app-sessions': appSessions,
  '0029-participant-locale': participantLocale,
  '0030-collective-topics': collectiveTopics,
  '0031-change-notifications': changeNotifications,
  '0032-reminder-claims': reminderClaims,
  '0033-calendar-busy-cut': busyCut,
  '0034-room-attempts-and-notices': roomAttemptsAndNotices,
  '0035-tokens-refreshed-at': tokensRefreshedAt,
  '0036-oauth-state-sessions': oauthStateSessions,
  '0037-sms-number-limits': smsNumberLimits,
  '0038-participant-erasure': participantErasure,
  '0039-retention': retention,
  '0040-audit-events': auditEvents,
  '0041-host-setup-steps': hostSetupSteps,
  '0042-booking-link-names': bookingLinkNames,
  '0043-booking-choices': bookingChoices,
  '0044-time-off-and-single-use-links': timeOffAndSingleUseLinks,
  '0045-branding-and-topic-words': brandingAndTopicWords,
  '0046-retention-indexes': retentionIndexes,
  '0047-year-indexes': yearIndexes,
  '0048-sms-number-lock-times': smsNumberLockTimes,
};
