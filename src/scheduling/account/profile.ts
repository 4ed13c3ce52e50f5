import { UsernameTakenError, ValidationError, type FieldError } from '../../domain/errors.js';
import type { Lang } from '../../domain/meeting.js';
import { PREVIOUS_USERNAME_HOLD_MS, usernameProblem, type User } from '../../domain/user.js';
import { changedFields } from '../../domain/audit.js';
import type { DbOrTrx } from '../../db/database.js';
import { bumpCalendarVersions } from '../../db/repositories/busy-time.js';
import { renameHostInTopics } from '../../db/repositories/meeting-topics.js';
import { findUser, findUsernameHolder, renameUser, setUserLanguage } from '../../db/repositories/users.js';
import { inTransaction } from '../../db/transaction.js';
import { requireSelfOrTeamAdmin } from '../access.js';
import { actorOf, recordAuditEvent } from '../audit/record-audit.js';
import type { Principal, UseCaseContext } from '../context.js';

export interface UpdateProfileInput {
  /** The user's new username: their booking links' first part. */
  username?: string | undefined;
  /** The language of the e-mails termin sends them; null: not chosen (English). */
  language?: Lang | null | undefined;
}

/**
 * `PATCH /users/{userUuid}` and the web app's profile: a user changes their own username or
 * language, an admin of one of their teams anyone's. A new username keeps the rules of the
 * generated ones (usernameProblem); one that another user has, or gave up less than
 * PREVIOUS_USERNAME_HOLD_MS ago, is USERNAME_TAKEN. The old username is kept, so links with
 * it redirect to the new one; a user may take back their own old username at any time.
 * Topic settings keyed by username (host weights, host schedules) follow the rename.
 */
export async function updateUserProfile(ctx: Pick<UseCaseContext, 'now' | 'db'>, principal: Principal, userUuid: string, input: UpdateProfileInput): Promise<User> {
  const errors: FieldError[] = [];
  const username = input.username?.trim();
  if (username !== undefined) {
    const problem = usernameProblem(username);
    if (problem !== null) errors.push({ path: '/username', message: problem });
  }
  if (errors.length > 0) throw new ValidationError(errors);
  return inTransaction(ctx.db, async (trx) => {
    const user = await requireSelfOrTeamAdmin(trx, principal, userUuid);
    const now = ctx.now();
    if (username !== undefined && username !== user.username) {
      await requireFreeUsername(trx, username, user.uuid, now);
      await renameUser(trx, user.uuid, user.username, username, now);
      await renameHostInTopics(trx, user.accountUuid, user.username, username);
      // Cached schedules carry the host's username in their slots.
      await bumpCalendarVersions(trx, [user.uuid]);
    }
    if (input.language !== undefined && input.language !== user.language) await setUserLanguage(trx, user.uuid, input.language);
    await recordAuditEvent(trx, {
      accountUuid: user.accountUuid,
      action: 'member.updated',
      actor: actorOf(principal),
      target: { type: 'member', uuid: user.uuid },
      details: { changed: changedFields(input), ...(username !== undefined && username !== user.username ? { previousUsername: user.username } : {}) },
      now,
    });
    return (await findUser(trx, user.accountUuid, user.uuid)) ?? user;
  });
}

async function requireFreeUsername(trx: DbOrTrx, username: string, userUuid: string, now: number): Promise<void> {
  const holder = await findUsernameHolder(trx, username);
  if (holder === null || holder.userUuid === userUuid) return;
  if (holder.retiredAt === null || now - holder.retiredAt < PREVIOUS_USERNAME_HOLD_MS) throw new UsernameTakenError();
}
