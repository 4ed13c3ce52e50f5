import { setupChecklistOf, type SetupChecklist } from '../../domain/setup-checklist.js';
import { listConnectionsOfUser } from '../../db/repositories/connections.js';
import { findSetupSteps, markSetupStep } from '../../db/repositories/host-setup.js';
import { listTopics } from '../../db/repositories/meeting-topics.js';
import type { Principal, UseCaseContext } from '../context.js';

export interface HostChecklist extends SetupChecklist {
  /** The host's booking page (their public topics): the link the last step shares. */
  bookingUrl: string;
}

/** The signed-in host's first-run checklist (see setupChecklistOf), read from their own steps, topics and connections. */
export async function getSetupChecklist(ctx: Pick<UseCaseContext, 'db' | 'publicUrl'>, principal: Principal): Promise<HostChecklist> {
  const [stored, topics, connections] = await Promise.all([
    findSetupSteps(ctx.db, principal.userUuid),
    listTopics(ctx.db, principal.accountUuid, { hostUuid: principal.userUuid }),
    listConnectionsOfUser(ctx.db, principal.userUuid),
  ]);
  const checklist = setupChecklistOf({
    stored,
    topicPlaces: topics.map((topic) => topic.places),
    connected: connections.filter((connection) => connection.status === 'connected').length,
  });
  return { ...checklist, bookingUrl: `${ctx.publicUrl}/book/${encodeURIComponent(principal.username)}` };
}

/** "I shared it" (or the checklist's copy button): the host's booking link counts as shared. */
export async function markBookingLinkShared(ctx: Pick<UseCaseContext, 'db' | 'now'>, principal: Principal): Promise<void> {
  await markSetupStep(ctx.db, principal.userUuid, 'link-shared', ctx.now());
}
