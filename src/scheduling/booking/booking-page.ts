import type { Gateway, Place } from '../../domain/account.js';
import { NotFoundError } from '../../domain/errors.js';
import { findAccount } from '../../db/repositories/accounts.js';
import { findTopic } from '../../db/repositories/meeting-topics.js';
import { findPlaceDetailsOfUsers } from '../../db/repositories/place-details.js';
import { findActiveUserByUsername } from '../../db/repositories/users.js';
import type { UseCaseContext } from '../context.js';
import { gatewaysTaking } from '../payments/gateway-amounts.js';
import { findPublicTopicPage, type PublicTopicPage } from './public-topics.js';
import { findRoomPlaces } from '../integrations/apps.js';
import { getBranding, type BrandingView } from '../account/branding.js';
import type { TopicTranslations, TopicWords } from '../../domain/topic-translations.js';

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
  /**
   * The topic offers a phone call and neither it nor (one of) the page's hosts gives a number
   * for it: the host calls the participant, so the page asks for their number when that place is
   * chosen. The API keeps its own rule (a phone is required only where the topic requires it).
   */
  phoneCallNeedsNumber: boolean;
  /** The business's look. */
  branding: BrandingView;
  /** The topic's words as stored, for the page to pick its language's (translateTopic). */
  words: TopicWords & { translations: TopicTranslations };
}

export async function findTopicPage(
  ctx: Pick<UseCaseContext, 'db' | 'secretKey' | 'gateways' | 'publicUrl'>,
  where: { username?: string | undefined; teamUuid?: string | undefined; topicUuid: string; singleUse?: boolean | undefined },
): Promise<TopicPage> {
  const page = await findPublicTopicPage(ctx, where);
  const topic = await findTopic(ctx.db, null, where.topicUuid);
  if (!topic) throw new NotFoundError('booking page');
  const [account, host, gateways, roomPlaces, hostDetails, branding] = await Promise.all([
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
    findPlaceDetailsOfUsers(
      ctx.db,
      topic.hosts.filter((candidate) => page.hosts.some((shown) => shown.username === candidate.username)).map((candidate) => candidate.uuid),
    ),
    getBranding(ctx, topic.accountUuid),
  ]);
  const phoneCallNeedsNumber =
    topic.places.includes('phone-call') && !topic.placeDetails['phone-call'] && (hostDetails.size === 0 || [...hostDetails.values()].some((details) => !details['phone-call']));
  return {
    ...page,
    fallbackTimezone: host?.timezone ?? account?.timezone ?? 'UTC',
    gateways,
    roomPlaces: roomPlaces.filter((place) => topic.places.includes(place)),
    phoneCallNeedsNumber,
    branding,
    words: { name: topic.name, description: topic.description, confirmationMessage: topic.confirmationMessage, form: topic.form, translations: topic.translations },
  };
}
