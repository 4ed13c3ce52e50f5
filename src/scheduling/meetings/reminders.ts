import { createHmac } from 'node:crypto';
import type { CountryCode } from 'libphonenumber-js';
import type { DomainEvent, ReminderEventData } from '../../domain/events.js';
import { participantLocaleOf, statusAt, type Meeting } from '../../domain/meeting.js';
import {
  isReminderOwed,
  reminderDueAt,
  reminderFate,
  reminderKey,
  smsDestinationRefusal,
  toE164,
  type Reminder,
  type ReminderChannel,
  type ReminderOutcome,
  type ReminderRecord,
} from '../../domain/reminders.js';
import { toIso } from '../../domain/representations.js';
import type { DbOrTrx } from '../../db/database.js';
import { findAccount } from '../../db/repositories/accounts.js';
import {
  claimReminder,
  countSmsSends,
  findReminderOutcomes,
  findSmsClaim,
  lockSmsNumber,
  recordReminderOutcome,
  releaseReminderClaim,
  reserveSmsSend,
} from '../../db/repositories/meeting-reminders.js';
import { findTopicIncludingDeleted } from '../../db/repositories/meeting-topics.js';
import { findMeeting, lockHost } from '../../db/repositories/meetings.js';
import { completeJob } from '../../db/repositories/outbox.js';
import { findUser } from '../../db/repositories/users.js';
import { inTransaction } from '../../db/transaction.js';
import { newId } from '../../ids.js';
import { messageBrandingOf } from '../account/branding.js';
import { translateTopic } from '../../domain/topic-translations.js';
import { reminderNotice, reminderSmsText, type ReminderFacts } from '../../mail/reminder-message.js';
import { LostClaimError, type JobHandler } from '../../outbox/job-handler.js';
import { EMAIL_JOB_KIND, REMINDER_JOB_KIND, enqueueJobs, type NewJob, type ReminderJobPayload } from '../../outbox/job-kinds.js';
import { SmsDeliveryError } from '../../sms/sender.js';
import type { Principal, UseCaseContext } from '../context.js';
import { getMeeting } from './meetings.js';
import { manageUrl } from './manage-token.js';
import { recordEvents } from '../record-events.js';

/** Attempts at an SMS the provider keeps refusing for a passing reason (rate limit, its outage): about 40 minutes of backoff. */
const MAX_REMINDER_ATTEMPTS = 10;

/**
 * Which setting the server lacks for each reminder channel (null: usable): e-mail always
 * works (without SMTP_URL messages are written to the data directory); SMS needs SMS_PROVIDER.
 */
export function missingReminderSettings(ctx: Pick<UseCaseContext, 'sms'>): Record<ReminderChannel, string | null> {
  return { email: null, sms: ctx.sms === null ? 'SMS_PROVIDER' : null };
}

/**
 * The reaction that plans reminders: a meeting that became confirmed (booked, paid, approved)
 * or moved gets one `reminder` job per reminder of its topic, due at start − minutesBefore,
 * unless it was confirmed (or moved) at or after that moment. A move plans afresh for the
 * new start; the jobs planned for the old one find the meeting elsewhere and do nothing, as
 * do those of a meeting cancelled or declined meanwhile: a job decides from the meeting as it
 * is when it runs, so nothing needs deleting.
 */
export async function reminderJobsForEvent(trx: DbOrTrx, event: DomainEvent): Promise<NewJob[]> {
  if (event.type !== 'meeting.scheduled' && event.type !== 'meeting.confirmed' && event.type !== 'meeting.rescheduled') return [];
  const { meeting } = event.data;
  if (meeting?.status !== 'confirmed') return [];
  const topic = await findTopicIncludingDeleted(trx, meeting.topicUuid);
  if (!topic || topic.reminders.length === 0) return [];
  return topic.reminders
    .filter((reminder) => isReminderOwed(event.occurredAt, reminderDueAt(meeting.start, reminder.minutesBefore)))
    .map((reminder) => {
      const payload: ReminderJobPayload = { ...reminder, accountUuid: meeting.accountUuid, meetingUuid: meeting.uuid, start: meeting.start };
      return { uuid: newId(event.occurredAt), kind: REMINDER_JOB_KIND, payload, runAt: reminderDueAt(meeting.start, reminder.minutesBefore) };
    });
}

type ReminderContext = Pick<UseCaseContext, 'publicUrl' | 'db' | 'now' | 'secretKey' | 'sms' | 'log'>;

/**
 * The `reminder` job, when it comes due. It does nothing for a meeting no longer confirmed at
 * that start (cancelled, declined, moved), and nothing twice: before anything leaves, the job
 * claims the send under the reminder's key in `meeting_reminders` (a `sending` row naming the
 * job), so of any jobs for one key (a meeting moved away and back has two), instances and
 * restarts, one sends; only that job, or its own retry after a crash or a passing failure,
 * turns the claim into the outcome, in the transaction that completes the job. A claim whose
 * job was given up stays until an operator's `outbox retry --failed`. From the meeting's start on it
 * is not sent but recorded `skipped` (`meeting.reminder_skipped`): after an outage a reminder
 * of a meeting already under way would only confuse. An e-mail is queued as an `email` job
 * with that record; an SMS is handed to the provider first, retried with the outbox's backoff
 * while the provider fails for a passing reason, and recorded `failed`
 * (`meeting.reminder_failed`) when it refuses for good or the attempts run out. Each sent
 * reminder records `meeting.reminder_sent` (webhooks).
 */
export function createReminderSender(ctx: ReminderContext): JobHandler<'reminder'> {
  return {
    kind: REMINDER_JOB_KIND,
    concurrency: 4,
    maxAttempts: MAX_REMINDER_ATTEMPTS,
    async handle(job) {
      const { payload } = job;
      const reminder: Reminder = { minutesBefore: payload.minutesBefore, channel: payload.channel, to: payload.to };
      const key = reminderKey(payload.start, reminder);
      const meeting = await findMeeting(ctx.db, payload.accountUuid, payload.meetingUuid);
      if (!meeting) return;
      // A retry of a job that claimed the send before the meeting moved lets go of it: a claim is held only by a job that may still send.
      if (!isStillDue(meeting, payload, ctx.now())) return releaseReminderClaim(ctx.db, meeting.uuid, key, job.uuid);
      const claim = {
        uuid: newId(ctx.now()),
        meetingUuid: meeting.uuid,
        key,
        channel: payload.channel,
        recipient: payload.to,
        minutesBefore: payload.minutesBefore,
        dueAt: reminderDueAt(payload.start, payload.minutesBefore),
        jobUuid: job.uuid,
        claimedAt: ctx.now(),
      };
      // Another job for the same key sends it (or did): two both reading "not sent yet" would both hand the SMS to the provider.
      if (!(await claimReminder(ctx.db, claim))) return;
      const finish = (status: ReminderOutcome, detail: string | null, jobs: NewJob[] = []) => finishReminder(ctx, job, payload, key, status, detail, jobs);
      const skipSms = (reason: string) => {
        ctx.log.warn({ meetingUuid: meeting.uuid, accountUuid: meeting.accountUuid, reminder: key, reason }, 'an SMS reminder was skipped');
        return finish('skipped', reason);
      };
      const now = ctx.now();
      if (reminderFate(now, meeting.start) === 'late') return finish('skipped', `picked up at ${toIso(now)}, not before the meeting's start: not sent late`);
      const facts = await reminderFacts(ctx, meeting, payload.to);
      if (!facts) return finish('skipped', 'the host or the topic no longer exists');
      if (payload.channel === 'email') {
        // A host reminder of a collective meeting goes to every host it holds, each in their own zone.
        const coHosts = facts.recipient === 'host' ? await Promise.all((meeting.coHosts ?? []).map((host) => findUser(ctx.db, meeting.accountUuid, host.uuid))) : [];
        const notices = [
          facts,
          ...coHosts
            .filter((host) => host !== undefined)
            .map((host) => ({ ...facts, to: { name: `${host.firstName} ${host.lastName}`, email: host.email }, lang: host.language ?? 'en', timezone: host.timezone })),
        ];
        const branding = await messageBrandingOf(ctx.db, ctx.publicUrl, meeting.accountUuid, facts.accountName);
        return finish(
          'sent',
          null,
          notices.map((notice) => ({ uuid: newId(now), kind: EMAIL_JOB_KIND, payload: { ...reminderNotice(notice), ...(branding ? { branding } : {}) } })),
        );
      }
      // Hosts have no phone number in termin: a host's SMS reminder, like one of a meeting booked without a phone, has nobody to go to.
      const phone = payload.to === 'participant' ? meeting.participant.phone : null;
      if (phone === null || phone.trim() === '') return finish('skipped', 'no phone number');
      if (ctx.sms === null) return finish('failed', 'SMS_PROVIDER is not set on this server');
      const to = toE164(phone, ctx.sms.defaultCountry as CountryCode);
      if (to === null) return finish('failed', 'not a valid phone number');
      // SMS pumping: a booking page takes any number, premium ranges included, and the business pays for each SMS.
      const refusal = smsDestinationRefusal(to, ctx.sms.allowedCountries);
      if (refusal !== null) return skipSms(refusal);
      const budget = await reserveSmsBudget(ctx, { meetingUuid: meeting.uuid, key, jobUuid: job.uuid, smsNumber: smsNumberKey(ctx.secretKey.current, to) });
      if (budget === 'lost') return;
      if (budget === 'over') {
        return skipSms(`${ctx.sms.maxPerNumberPerDay} SMS already sent to this number in the last 24 hours (SMS_MAX_PER_NUMBER_PER_DAY): not sent`);
      }
      try {
        const sent = await ctx.sms.send({ to, text: reminderSmsText(facts) });
        return await finish('sent', `${ctx.sms.provider} ${sent.id}`);
      } catch (error) {
        if (!(error instanceof SmsDeliveryError)) throw error;
        // A passing failure is retried by the outbox (and checked against the start again); a lasting one, or the last attempt, is recorded.
        if (error.retryable && job.attempts + 1 < MAX_REMINDER_ATTEMPTS) throw error;
        return finish('failed', error.message);
      }
    },
  };
}

/** A day, for SMS_MAX_PER_NUMBER_PER_DAY: any 24 hours, not a calendar day (whose zone would it be?). */
const SMS_LIMIT_WINDOW_MS = 24 * 60 * 60_000;

/**
 * Reserves one SMS to this destination under SMS_MAX_PER_NUMBER_PER_DAY: under the number's
 * lock, counts what it was sent (or is being sent) in the last 24 hours across the server, and
 * writes the number on this job's claim when there is room. A retry whose claim carries the
 * number already counts once. 'lost': the job no longer holds the claim (sends nothing).
 */
async function reserveSmsBudget(ctx: ReminderContext, claim: { meetingUuid: string; key: string; jobUuid: string; smsNumber: string }): Promise<'reserved' | 'over' | 'lost'> {
  return inTransaction(ctx.db, async (trx) => {
    await lockSmsNumber(trx, claim.smsNumber, ctx.now());
    const held = await findSmsClaim(trx, claim);
    if (held === undefined) return 'lost';
    if (held === claim.smsNumber) return 'reserved';
    if ((await countSmsSends(trx, claim.smsNumber, ctx.now() - SMS_LIMIT_WINDOW_MS)) >= (ctx.sms?.maxPerNumberPerDay ?? 0)) return 'over';
    await reserveSmsSend(trx, claim);
    return 'reserved';
  });
}

/** The destination as stored for the count: an HMAC under the server's key, so no phone number is copied out of the meeting. */
/** Rotating the secret key starts the day's counts afresh: a day's budget at most once more. */
function smsNumberKey(secretKey: Buffer, e164: string): string {
  return createHmac('sha256', secretKey).update(`termin sms number v1:${e164}`).digest('hex');
}

/** The meeting still happens at the start the reminder was planned for. */
function isStillDue(meeting: Meeting, payload: ReminderJobPayload, now: number): boolean {
  return statusAt(meeting, now) === 'confirmed' && meeting.start === payload.start;
}

/**
 * Records the outcome and completes the job in one transaction, under the host's lock so a
 * cancel or a move committing meanwhile is seen: then nothing is recorded or queued, and the
 * job's claim is let go. Only the job holding the reminder's claim records it and queues its
 * e-mail and its event.
 */
async function finishReminder(
  ctx: ReminderContext,
  job: { uuid: string; claim: string },
  payload: ReminderJobPayload,
  key: string,
  status: ReminderOutcome,
  detail: string | null,
  jobs: NewJob[],
): Promise<'completed'> {
  await inTransaction(ctx.db, async (trx) => {
    const now = ctx.now();
    if (!(await completeJob(trx, job, now))) throw new LostClaimError(job.uuid);
    const found = await findMeeting(trx, payload.accountUuid, payload.meetingUuid);
    if (!found) return;
    await lockHost(trx, found.hostUuid);
    const meeting = await findMeeting(trx, payload.accountUuid, payload.meetingUuid);
    if (!meeting) return;
    if (!isStillDue(meeting, payload, now)) return releaseReminderClaim(trx, meeting.uuid, key, job.uuid);
    const recorded = await recordReminderOutcome(trx, { meetingUuid: meeting.uuid, key, jobUuid: job.uuid, status, detail, recordedAt: now });
    if (!recorded) return;
    await enqueueJobs(trx, jobs, now);
    const type = status === 'sent' ? 'meeting.reminder_sent' : status === 'skipped' ? 'meeting.reminder_skipped' : 'meeting.reminder_failed';
    const data: ReminderEventData = { meeting, reminder: { minutesBefore: payload.minutesBefore, channel: payload.channel, to: payload.to, status, detail } };
    await recordEvents(trx, [{ accountUuid: meeting.accountUuid, type, subjectUuid: meeting.uuid, data: { ...data } }], now);
  });
  return 'completed';
}

/** What the reminder says, for its reader: the participant in their language and zone, the host in their own (English when not chosen). */
async function reminderFacts(ctx: ReminderContext, meeting: Meeting, recipient: Reminder['to']): Promise<ReminderFacts | null> {
  const [account, topic, host] = await Promise.all([
    findAccount(ctx.db, meeting.accountUuid),
    findTopicIncludingDeleted(ctx.db, meeting.topicUuid),
    findUser(ctx.db, meeting.accountUuid, meeting.hostUuid),
  ]);
  if (!account || !topic || !host) return null;
  const hostName = `${host.firstName} ${host.lastName}`;
  const words = translateTopic(topic, recipient === 'host' ? (host.language ?? 'en') : meeting.participant.lang);
  const common = {
    accountName: account.name,
    topicName: words.name,
    start: meeting.start,
    end: meeting.end,
    place: meeting.place,
    where: meeting.location?.text ?? null,
    whereSource: meeting.location?.source ?? null,
    manageUrl: manageUrl(ctx.publicUrl, ctx.secretKey, meeting.uuid),
  };
  if (recipient === 'host') {
    return { ...common, recipient, to: { name: hostName, email: host.email }, lang: host.language ?? 'en', timezone: host.timezone, withName: meeting.participant.name };
  }
  return {
    ...common,
    recipient,
    to: { name: meeting.participant.name, email: meeting.participant.email },
    lang: meeting.participant.lang,
    ...participantLocaleOf(meeting),
    timezone: meeting.participant.timezone,
    withName: hostName,
  };
}

/**
 * `GET /meetings/{uuid}/reminders`: what became of the meeting's reminders so far (sent,
 * skipped after an outage, for want of a phone, or by the server's SMS limits (destination
 * countries, SMS per number per day), failed at the SMS provider), oldest first.
 * Who may read them: whoever may read the meeting.
 */
export async function listMeetingReminders(ctx: Pick<UseCaseContext, 'now' | 'db'>, principal: Principal, meetingUuid: string): Promise<ReminderRecord[]> {
  const meeting = await getMeeting(ctx, principal, meetingUuid);
  return findReminderOutcomes(ctx.db, meeting.uuid);
}
