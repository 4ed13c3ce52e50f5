import { MAINTENANCE_ACTOR } from '../../domain/audit.js';
import type { MeetingTopic } from '../../domain/meeting-topic.js';
import { hasAnyAccount } from '../../db/repositories/accounts.js';
import type { UseCaseContext } from '../context.js';
import { createAccount, type CreatedAccount } from '../account/create-account.js';
import { createMeetingTopic } from '../topics/meeting-topics.js';

export interface DemoData extends CreatedAccount {
  topic: MeetingTopic;
}

/**
 * First start on an empty database: a demo account with a public 30-minute phone call, whose
 * owner's key is printed once beside its booking page, so a newcomer can make a first call
 * and see a page that offers times at once. Does nothing when any account exists.
 */
export async function seedDemoIfEmpty(ctx: Pick<UseCaseContext, 'now' | 'db' | 'sms'>, timezone: string): Promise<DemoData | null> {
  if (await hasAnyAccount(ctx.db)) return null;
  const created = await createAccount(ctx, {
    name: 'Demo',
    ownerEmail: 'owner@demo.termin.test',
    ownerFirstName: 'Demo',
    ownerLastName: 'Owner',
    maxUsers: 5,
    timezone,
    places: ['offline', 'phone-call', 'zoom', 'google-meet'],
    teamName: 'Demo team',
  });
  // The server seeds the demo by itself at start: the system, not the owner, created its topic.
  const owner = { keyUuid: '', userUuid: created.owner.uuid, accountUuid: created.account.uuid, username: created.owner.username, actor: MAINTENANCE_ACTOR };
  // Only what works out of the box: a new account has no Zoom or Google app (an admin sets them
  // up later), so a booking there would get no link. A phone call needs nothing: with no number
  // of the host's, the booking page asks the participant for theirs and the host calls.
  const topic = await createMeetingTopic(ctx, owner, { name: 'Intro call', durationMinutes: 30, places: ['phone-call'], public: true });
  return { ...created, topic };
}
