import { NotFoundError } from '../../domain/errors.js';
import type { Place } from '../../domain/account.js';
import { isPaidTopic, type FormField, type MeetingTopic, type Money, type PriceVariant } from '../../domain/meeting-topic.js';
import { findAccount } from '../../db/repositories/accounts.js';
import { findPublicTeamTopicUuidBySlug, findTopic, findTopicsBySlug, listTopics } from '../../db/repositories/meeting-topics.js';
import { findTeam } from '../../db/repositories/teams.js';
import { findActiveUserByUsername, findActiveUsersByUsernames, findCurrentUsernameOf } from '../../db/repositories/users.js';
import type { UseCaseContext } from '../context.js';
import type { TopicTranslations } from '../../domain/topic-translations.js';
import { getBranding, type BrandingView } from '../account/branding.js';

/** What a booking page may show of a topic: nothing internal (no account, creator or buffers). */
export interface PublicTopic {
  uuid: string;
  name: string;
  description: string;
  durationMinutes: number;
  /** The lengths the participant may choose (the default among them). */
  durations: number[];
  /** The participant may bring guests. */
  allowGuests: boolean;
  places: Place[];
  phoneRequired: boolean;
  price: Money | null;
  priceVariants: PriceVariant[];
  paid: boolean;
  form: FormField[];
  team: string | null;
  cancellationNoticeMinutes: number;
  /** Bookings are requests the host approves or declines: the page asks rather than confirms. */
  requiresApproval: boolean;
  /** The link's readable last part instead of the uuid, when the topic has one. */
  slug: string | null;
  /** The topic's words in other languages, for the page to show its language's (translateTopic). */
  translations: TopicTranslations;
}

export interface PublicTopicPage {
  topic: PublicTopic;
  /** The hosts the page books with: the one named in the URL, or every host of a team topic. */
  hosts: { username: string; name: string }[];
  team: { uuid: string; name: string } | null;
  accountName: string;
  /** Per place, what the participant needs (an address, a link), when the topic says. */
  placeDetails?: Record<string, string>;
}

/**
 * The booking page of a public topic: `GET /book/{username}/{topicUuid}` (give `username`)
 * or `GET /book/teams/{teamUuid}/{topicUuid}` (give `teamUuid`). A topic that does not
 * exist, is not public, is not hosted by that user or does not belong to that team is
 * NotFound, the same for each, so the page reveals nothing about private topics.
 */
export async function findPublicTopicPage(
  ctx: Pick<UseCaseContext, 'db'>,
  where: { username?: string | undefined; teamUuid?: string | undefined; topicUuid: string; singleUse?: boolean | undefined },
): Promise<PublicTopicPage> {
  const topic = await findTopic(ctx.db, null, where.topicUuid);
  // A single-use link opens its topic's page whether or not the topic is public.
  if (!topic || (!topic.public && where.singleUse !== true)) throw new NotFoundError('booking page');
  let hostUsernames: string[];
  let team: PublicTopicPage['team'] = null;
  if (where.teamUuid !== undefined) {
    if (topic.teamUuid === null || topic.teamUuid !== where.teamUuid) throw new NotFoundError('booking page');
    const found = await findTeam(ctx.db, topic.accountUuid, topic.teamUuid);
    if (!found) throw new NotFoundError('booking page');
    team = { uuid: found.uuid, name: found.name };
    hostUsernames = topic.hosts.map((host) => host.username);
  } else {
    if (where.username === undefined || !topic.hosts.some((host) => host.username === where.username)) throw new NotFoundError('booking page');
    hostUsernames = [where.username];
    if (topic.teamUuid !== null) {
      const found = await findTeam(ctx.db, topic.accountUuid, topic.teamUuid);
      team = found ? { uuid: found.uuid, name: found.name } : null;
    }
  }
  const [account, users] = await Promise.all([findAccount(ctx.db, topic.accountUuid), findActiveUsersByUsernames(ctx.db, topic.accountUuid, hostUsernames)]);
  if (!account) throw new NotFoundError('booking page');
  const names = new Map(users.map((user) => [user.username, `${user.firstName} ${user.lastName}`]));
  const page: PublicTopicPage = {
    topic: toPublicTopic(topic),
    hosts: hostUsernames.filter((username) => names.has(username)).map((username) => ({ username, name: names.get(username)! })),
    team,
    accountName: account.name,
  };
  const placeDetails = (topic as { placeDetails?: Record<string, string> }).placeDetails;
  if (placeDetails !== undefined) page.placeDetails = placeDetails;
  return page;
}

/** `GET /book/{username}`: the host's public topics, oldest first, and their name; NotFound for an unknown or deactivated user. */
export async function listPublicTopicsOfHost(
  ctx: Pick<UseCaseContext, 'db' | 'publicUrl'>,
  username: string,
): Promise<{ host: { username: string; name: string }; accountName: string; branding: BrandingView; topics: PublicTopic[] }> {
  const user = await findActiveUserByUsername(ctx.db, null, username);
  if (!user) throw new NotFoundError('booking page');
  const [account, topics, branding] = await Promise.all([
    findAccount(ctx.db, user.accountUuid),
    listTopics(ctx.db, user.accountUuid, { hostUuid: user.uuid }),
    getBranding(ctx, user.accountUuid),
  ]);
  return {
    host: { username: user.username, name: `${user.firstName} ${user.lastName}` },
    accountName: account?.name ?? '',
    branding,
    topics: topics.filter((topic) => topic.public).map(toPublicTopic),
  };
}

export function toPublicTopic(topic: MeetingTopic): PublicTopic {
  return {
    uuid: topic.uuid,
    name: topic.name,
    description: topic.description,
    durationMinutes: topic.durationMinutes,
    durations: topic.durations,
    allowGuests: topic.allowGuests,
    places: topic.places,
    phoneRequired: topic.phoneRequired,
    price: topic.price,
    priceVariants: topic.priceVariants,
    paid: isPaidTopic(topic),
    form: topic.form,
    team: topic.teamUuid,
    cancellationNoticeMinutes: topic.cancellationNoticeMinutes,
    requiresApproval: topic.requiresApproval,
    slug: topic.slug,
    translations: topic.translations,
  };
}

/**
 * The public topic a booking link's readable last part names: `/book/{username}/{slug}`
 * (a topic that user hosts) or `/book/teams/{teamUuid}/{slug}`; undefined when none, so the
 * link is a 404 page like any unknown topic.
 */
export async function findPublicTopicUuidBySlug(
  ctx: Pick<UseCaseContext, 'db'>,
  where: { username?: string | undefined; teamUuid?: string | undefined; slug: string },
): Promise<string | undefined> {
  if (where.teamUuid !== undefined) return findPublicTeamTopicUuidBySlug(ctx.db, where.teamUuid, where.slug);
  if (where.username === undefined) return undefined;
  const user = await findActiveUserByUsername(ctx.db, null, where.username);
  if (!user) return undefined;
  const topics = await findTopicsBySlug(ctx.db, user.accountUuid, where.slug, { hostUuid: user.uuid });
  return topics.find((topic) => topic.public)?.uuid;
}

/**
 * Where a booking link with a given-up username goes now: the user's current username, or
 * undefined when nobody gave it up (or they are deactivated). A username someone has now is
 * theirs: the caller asks only after the link found no such host.
 */
export async function findRenamedHost(ctx: Pick<UseCaseContext, 'db'>, username: string): Promise<string | undefined> {
  return findCurrentUsernameOf(ctx.db, username);
}
