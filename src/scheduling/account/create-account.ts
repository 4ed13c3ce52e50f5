import { DEFAULT_PLACES, PLACES, dedupe, isEmailAddress, isPlace, type Account, type Place } from '../../domain/account.js';
import { createDefaultAvailability } from '../../domain/availability.js';
import { ValidationError, type FieldError } from '../../domain/errors.js';
import type { Team } from '../../domain/team.js';
import { isValidTimeZone } from '../../domain/time-zones.js';
import { makeUsernameBase, normalizeEmail, pickFreeUsername, type User } from '../../domain/user.js';
import { insertAccount, setAccountOwner } from '../../db/repositories/accounts.js';
import { insertApiKey } from '../../db/repositories/api-keys.js';
import { insertMembership, insertTeam } from '../../db/repositories/teams.js';
import { findUsernamesStartingWith, insertUser } from '../../db/repositories/users.js';
import { inTransaction } from '../../db/transaction.js';
import type { DbOrTrx } from '../../db/database.js';
import { generateApiKey } from '../../domain/api-key.js';
import { newId } from '../../ids.js';
import type { UseCaseContext } from '../context.js';

export interface CreateAccountInput {
  name: string;
  ownerEmail: string;
  ownerFirstName: string;
  ownerLastName: string;
  maxUsers: number;
  timezone?: string | undefined;
  places?: string[] | undefined;
  teamName?: string | undefined;
}

export interface CreatedAccount {
  account: Account;
  owner: User;
  team: Team;
  apiKey: string;
}

const DEFAULT_TIMEZONE = 'UTC';

/**
 * An operator action: a new account with its owner, who is admin of the account's first
 * team (named after the account), and an API key for the owner.
 */
export async function createAccount(ctx: Pick<UseCaseContext, 'now' | 'db'>, input: CreateAccountInput): Promise<CreatedAccount> {
  const valid = validateCreateAccount(input);
  return inTransaction(ctx.db, async (trx) => {
    const now = ctx.now();
    const account: Account = {
      uuid: newId(now),
      name: valid.name,
      timezone: valid.timezone,
      maxUsers: valid.maxUsers,
      places: valid.places,
      ownerUuid: null,
      createdAt: now,
    };
    await insertAccount(trx, account);
    const team: Team = { uuid: newId(now), accountUuid: account.uuid, name: valid.teamName, createdAt: now };
    await insertTeam(trx, team);
    const owner = await insertNewUser(trx, {
      accountUuid: account.uuid,
      firstName: valid.ownerFirstName,
      lastName: valid.ownerLastName,
      email: valid.ownerEmail,
      timezone: account.timezone,
      now,
    });
    await insertMembership(trx, { teamUuid: team.uuid, userUuid: owner.uuid, admin: true }, now);
    await setAccountOwner(trx, account.uuid, owner.uuid);
    account.ownerUuid = owner.uuid;
    const key = generateApiKey();
    await insertApiKey(trx, {
      uuid: newId(now),
      accountUuid: account.uuid,
      userUuid: owner.uuid,
      name: 'Owner key',
      lookup: key.lookup,
      secretHash: key.secretHash,
      createdAt: now,
    });
    return { account, owner, team, apiKey: key.apiKey };
  });
}

/**
 * Inserts a user with a fresh username and the default availability. A concurrent insert
 * that takes the same username fails on the unique index; `inTransaction` then retries.
 */
export async function insertNewUser(
  trx: DbOrTrx,
  input: { accountUuid: string; firstName: string; lastName: string; email: string; timezone: string; now: number },
): Promise<User> {
  const base = makeUsernameBase(input.firstName, input.lastName);
  const username = pickFreeUsername(base, await findUsernamesStartingWith(trx, base));
  const user: User = {
    uuid: newId(input.now),
    accountUuid: input.accountUuid,
    firstName: input.firstName,
    lastName: input.lastName,
    email: input.email.trim(),
    username,
    timezone: input.timezone,
    language: null,
    createdAt: input.now,
    deactivatedAt: null,
  };
  await insertUser(trx, {
    ...user,
    emailNormalized: normalizeEmail(input.email),
    availabilityJson: JSON.stringify(createDefaultAvailability(input.timezone)),
  });
  return user;
}

function validateCreateAccount(input: CreateAccountInput) {
  const errors: FieldError[] = [];
  const name = input.name.trim();
  if (name === '' || name.length > 200) errors.push({ path: '/name', message: 'must be 1 to 200 characters' });
  if (!isEmailAddress(input.ownerEmail)) errors.push({ path: '/ownerEmail', message: 'must be an e-mail address' });
  const ownerFirstName = input.ownerFirstName.trim();
  const ownerLastName = input.ownerLastName.trim();
  if (ownerFirstName === '' || ownerFirstName.length > 100) errors.push({ path: '/ownerFirstName', message: 'must be 1 to 100 characters' });
  if (ownerLastName === '' || ownerLastName.length > 100) errors.push({ path: '/ownerLastName', message: 'must be 1 to 100 characters' });
  if (!Number.isInteger(input.maxUsers) || input.maxUsers < 1 || input.maxUsers > 100_000) {
    errors.push({ path: '/maxUsers', message: 'must be an integer from 1 to 100000' });
  }
  const timezone = input.timezone?.trim() || DEFAULT_TIMEZONE;
  if (!isValidTimeZone(timezone)) errors.push({ path: '/timezone', message: 'must be a valid IANA time zone' });
  const places = dedupe((input.places ?? [...DEFAULT_PLACES]).map((place) => place.trim()));
  places.forEach((place, index) => {
    if (!isPlace(place)) errors.push({ path: `/places/${index}`, message: `must be one of ${PLACES.join(', ')}` });
  });
  if (places.length === 0) errors.push({ path: '/places', message: 'must name at least one place' });
  const teamName = input.teamName?.trim() || name;
  if (errors.length > 0) throw new ValidationError(errors);
  return {
    name,
    ownerEmail: input.ownerEmail.trim(),
    ownerFirstName,
    ownerLastName,
    maxUsers: input.maxUsers,
    timezone,
    places: places as Place[],
    teamName: teamName.slice(0, 200),
  };
}
