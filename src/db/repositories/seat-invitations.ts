import type { DbOrTrx } from '../database.js';

/**
 * Raises the SEQUENCE of the host's invitation to the group meeting (topic, host, start) and
 * returns it: 1 for the first invitation, then one more per update. The upsert takes the
 * row's lock, so of two updates the later to commit carries the higher number, and its
 * attendee list (read after this, see findSeatAttendees) is the newer one.
 */
export async function bumpSeatInvitation(db: DbOrTrx, topicUuid: string, hostUuid: string, start: number): Promise<number> {
  const row = await db
    .insertInto('seat_invitations')
    .values({ topic_id: topicUuid, host_user_id: hostUuid, starts_at: start, sequence: 1 })
    .onConflict((oc) => oc.columns(['topic_id', 'host_user_id', 'starts_at']).doUpdateSet((eb) => ({ sequence: eb('seat_invitations.sequence', '+', 1) })))
    .returning('sequence')
    .executeTakeFirstOrThrow();
  return Number(row.sequence);
}

/** The confirmed participants of the group meeting (topic, host, start), first booked first. */
export async function findSeatAttendees(db: DbOrTrx, topicUuid: string, hostUuid: string, start: number): Promise<{ name: string; email: string }[]> {
  const rows = await db
    .selectFrom('meetings')
    .select(['participant_name', 'participant_email'])
    .where('topic_id', '=', topicUuid)
    .where('host_user_id', '=', hostUuid)
    .where('starts_at', '=', start)
    .where('status', '=', 'confirmed')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ name: row.participant_name, email: row.participant_email }));
}
