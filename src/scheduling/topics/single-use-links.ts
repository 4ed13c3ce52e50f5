import { createHash, randomBytes } from 'node:crypto';
import { LinkGoneError, NotFoundError, ValidationError } from '../../domain/errors.js';
import type { MeetingTopic } from '../../domain/meeting-topic.js';
import { findTopic } from '../../db/repositories/meeting-topics.js';
import { findSingleUseLinkByHash, findUnusedSingleUseLinks, insertSingleUseLink, type SingleUseLink } from '../../db/repositories/single-use-links.js';
import { newId } from '../../ids.js';
import type { Principal, UseCaseContext } from '../context.js';
import { requireTopicManager } from './meeting-topics.js';

const DAY_MS = 86_400_000;
export const SINGLE_USE_DAYS = { default: 7, min: 1, max: 365 } as const;

/** What is stored of a token: its SHA-256, hex. A dump of the table gives no working link. */
export function hashSingleUseToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A link as its creator sees it: the URL only once, at creation (the token is not stored). */
export interface CreatedSingleUseLink {
  uuid: string;
  url: string;
  expiresAt: number;
  createdAt: number;
}

/** The topic, if the caller may hand out links to it: a host of it, or whoever manages it. */
async function requireLinkMaker(ctx: Pick<UseCaseContext, 'db'>, principal: Principal, topicUuid: string): Promise<MeetingTopic> {
  const topic = await findTopic(ctx.db, principal.accountUuid, topicUuid);
  if (!topic) throw new NotFoundError('meeting topic');
  if (!topic.hosts.some((host) => host.uuid === principal.userUuid)) await requireTopicManager(ctx.db, principal, topic);
  return topic;
}

/**
 * `POST /meeting-topics/{uuid}/single-use-links`: a link that books the topic once, public or
 * not, until it expires. 32 random bytes (base64url) make the token; only its hash is kept.
 */
export async function createSingleUseLink(
  ctx: Pick<UseCaseContext, 'db' | 'now' | 'publicUrl'>,
  principal: Principal,
  topicUuid: string,
  expiresInDays: number = SINGLE_USE_DAYS.default,
): Promise<CreatedSingleUseLink> {
  if (!Number.isInteger(expiresInDays) || expiresInDays < SINGLE_USE_DAYS.min || expiresInDays > SINGLE_USE_DAYS.max) {
    throw new ValidationError([{ path: '/expiresInDays', message: `must be a whole number of days from ${SINGLE_USE_DAYS.min} to ${SINGLE_USE_DAYS.max}` }]);
  }
  const topic = await requireLinkMaker(ctx, principal, topicUuid);
  const now = ctx.now();
  const token = randomBytes(32).toString('base64url');
  const link: SingleUseLink = { uuid: newId(now), topicUuid: topic.uuid, createdAt: now, expiresAt: now + expiresInDays * DAY_MS, usedAt: null };
  await insertSingleUseLink(ctx.db, principal.accountUuid, link, hashSingleUseToken(token));
  return { uuid: link.uuid, url: `${ctx.publicUrl}/book/once/${token}`, expiresAt: link.expiresAt, createdAt: now };
}

/** `GET …/single-use-links`: the topic's links neither used nor expired (without their URLs: only their hashes are kept). */
export async function listSingleUseLinks(ctx: Pick<UseCaseContext, 'db' | 'now'>, principal: Principal, topicUuid: string): Promise<SingleUseLink[]> {
  const topic = await requireLinkMaker(ctx, principal, topicUuid);
  return findUnusedSingleUseLinks(ctx.db, topic.uuid, ctx.now());
}

/**
 * The topic a single-use token books, while it may: LinkGone for a token used, expired or
 * unknown (the page answers 410 for each alike), or whose topic is gone.
 */
export async function findSingleUseTopic(ctx: Pick<UseCaseContext, 'db' | 'now'>, token: string): Promise<{ topic: MeetingTopic; tokenHash: string }> {
  const tokenHash = hashSingleUseToken(token);
  const link = await findSingleUseLinkByHash(ctx.db, tokenHash);
  if (!link || link.usedAt !== null || link.expiresAt <= ctx.now()) throw new LinkGoneError();
  const topic = await findTopic(ctx.db, null, link.topicUuid);
  if (!topic) throw new LinkGoneError();
  return { topic, tokenHash };
}
