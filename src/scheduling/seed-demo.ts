import { hasAnyAccount } from '../db/repositories/accounts.js';
import type { UseCaseContext } from './context.js';
import { createAccount, type CreatedAccount } from './create-account.js';

/**
 * First start on an empty database: a demo account whose owner's key is printed once, so
 * a newcomer can make a first call at once. Does nothing when any account exists.
 */
export async function seedDemoIfEmpty(ctx: UseCaseContext, timezone: string): Promise<CreatedAccount | null> {
  if (await hasAnyAccount(ctx.db)) return null;
  return createAccount(ctx, {
    name: 'Demo',
    ownerEmail: 'owner@demo.termin.test',
    ownerFirstName: 'Demo',
    ownerLastName: 'Owner',
    maxUsers: 5,
    timezone,
    places: ['offline', 'phone-call', 'zoom', 'google-meet'],
    teamName: 'Demo team',
  });
}
