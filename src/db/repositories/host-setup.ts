import type { StoredSetupStep } from '../../domain/setup-checklist.js';
import type { DbOrTrx } from '../database.js';

/** Records a first-run step as done; done again changes nothing (the first time stays). */
export async function markSetupStep(db: DbOrTrx, userUuid: string, step: StoredSetupStep, now: number): Promise<void> {
  await db
    .insertInto('host_setup_steps')
    .values({ user_id: userUuid, step, done_at: now })
    .onConflict((oc) => oc.columns(['user_id', 'step']).doNothing())
    .execute();
}

/** The first-run steps the host has done. */
export async function findSetupSteps(db: DbOrTrx, userUuid: string): Promise<Set<string>> {
  const rows = await db.selectFrom('host_setup_steps').select('step').where('user_id', '=', userUuid).execute();
  return new Set(rows.map((row) => row.step));
}
