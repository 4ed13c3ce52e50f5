import type { Gateway, Place } from '../../domain/account.js';
import { NotFoundError } from '../../domain/errors.js';
import { findAccount } from '../../db/repositories/accounts.js';
import { findTopic } from '../../db/repositories/meeting-topics.js';
import { findActiveUserByUsername } from '../../db/repositories/users.js';
import type { UseCaseContext } from '../context.js';
import { gatewaysTaking } from '../payments/gateway-amounts.js';
import { findPublicTopicPage, type PublicTopicPage } from './public-topics.js';
import { findRoomPlaces } from '../integrations/apps.js';

/**
 * Page-only reads for the booking page, beside the public read (public-topics.ts) whose
 * rules decide which pages exist: the zone to start the calendar in when the browser names
 * none, and the gateways a paid topic's participant may choose. Nothing else leaves.
 */
export interface TopicPage extends PublicTopicPage {
  /** The host's zone for an individual page, the account's for a team page. */
  fallbackTimezone: string;
  /**
   * Enabled and configured, in the account's order (the first is preselected), and able to take
   * the topic's price and every variant's (currency and amount, by each gateway's rules); empty
   * for a free topic.
   */
  gateways: Gateway[];
  /** The topic's places whose link can follow later (the account has the provider's app): the page says so where a host has none yet. */
  roomPlaces: Place[];
}

export async function findTopicPage(
  ctx: Pick<UseCaseContext, 'db' | 'secretKey' | 'gateways'>,
  where: { username?: string | undefined; teamUuid?: string | undefined; topicUuid: string },
): Promise<TopicPage> {
  const page = await findPublicTopicPage(ctx, where);
  const topic = await findTopic(ctx.db, null, where.topicUuid);
  if (!topic) throw new NotFoundError('booking page');
  const [account, host, gateways, roomPlaces] = await Promise.all([
    findAccount(ctx.db, topic.accountUuid),
    where.teamUuid === undefined && where.username !== undefined ? findActiveUserByUsername(ctx.db, topic.accountUuid, where.username) : undefined,
    page.topic.paid
      ? gatewaysTaking(
          ctx,
          ctx.db,
          topic.accountUuid,
          [topic.price, ...topic.priceVariants.map((variant) => variant.price)].filter((price) => price !== null),
        )
      : [],
    findRoomPlaces(ctx.db, topic.accountUuid),
  ]);
  return { ...page, fallbackTimezone: host?.timezone ?? account?.timezone ?? 'UTC', gateways, roomPlaces: roomPlaces.filter((place) => topic.places.includes(place)) };
}
