import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { LinkGoneError, NotFoundError } from '../../domain/errors.js';
import { findSingleUseTopic } from '../../scheduling/topics/single-use-links.js';
import type { Lang } from '../../domain/meeting.js';
import { isValidTimeZone } from '../../domain/time-zones.js';
import { slugProblem } from '../../domain/user.js';
import type { AppContext } from '../../context.js';
import { findTopicPage } from '../../scheduling/booking/booking-page.js';
import { translateTopic } from '../../domain/topic-translations.js';
import { findPublicTopicUuidBySlug, findRenamedHost, listPublicTopicsOfHost } from '../../scheduling/booking/public-topics.js';
import { manageUrl } from '../../scheduling/meetings/manage-token.js';
import { getManagedBooking, invitationForToken } from '../../scheduling/booking/public-booking.js';
import { fillAsset, loadAssets, type Asset } from '../pages/assets.js';
import { renderBookingPage, renderSingleUseGone, renderTopicList } from '../pages/booking.js';
import { sendHtml } from '../pages/html.js';
import { EMBED_TITLES, pickLang, pickLocale, supportedLang } from '../pages/i18n.js';
import { renderManageGone, renderManagePage } from '../pages/manage.js';

interface PageQuery {
  lang?: string;
  timezone?: string;
  embed?: string;
}

/** Query strings are read leniently: a page link with tracking parameters or a typo still opens. */
const PageQuerySchema = {
  type: 'object',
  properties: {
    lang: { type: 'string', description: '`en`, `pl`, `de`, `uk`, `es` or `fr`: overrides Accept-Language (anything else is ignored).' },
    timezone: { type: 'string', description: "An IANA zone that overrides the browser's (ignored when not a zone)." },
    embed: { type: 'string', description: "Set by embed.js: the embedding page's origin, to which the page posts its height and the booking." },
  },
} as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PAGE_TAGS = ['Booking pages'];
const YEAR_SECONDS = 365 * 24 * 3600;

function langOf(request: FastifyRequest<{ Querystring: PageQuery }>): Lang {
  return pickLang(request.query.lang, request.headers['accept-language']);
}

/** `?embed=https://shop.example` → that origin; anything that is not an http(s) origin is ignored. */
function embedOriginOf(value: string | undefined): string | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    if ((url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value.replace(/\/$/, '')) return url.origin;
  } catch {
    // not a URL
  }
  return null;
}

function withLang(url: string, request: FastifyRequest<{ Querystring: PageQuery }>): string {
  const lang = supportedLang(request.query.lang);
  return lang ? `${url}?lang=${lang}` : url;
}

function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: Asset, cacheControl: string): FastifyReply {
  reply.header('content-type', asset.contentType).header('x-content-type-options', 'nosniff').header('cache-control', cacheControl).header('etag', asset.etag);
  // Other sites load embed.js and may run with Cross-Origin-Embedder-Policy.
  reply.header('cross-origin-resource-policy', 'cross-origin');
  if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
  return reply.code(200).send(asset.body);
}

/**
 * The participant's pages: the booking page of a public topic (an individual host's or a
 * team's), a host's list of them, the manage page behind the e-mail's private link, the
 * embed script, and the pages' static files. Server-rendered HTML under a strict CSP; the
 * one script (assets/booking.js) fills the calendar from the public API.
 */
export const bookingPageRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  const assets = loadAssets();
  const stylesheet = assets.url('booking.css');
  const script = assets.url('booking.js');
  const rawEmbedScript = assets.byName.get('embed.js');
  if (!rawEmbedScript) throw new Error('assets/embed.js is missing');
  // The frame's title in each language, from the catalogue (the script picks by ?lang= or the host page's lang).
  const embedScript = fillAsset(rawEmbedScript, "/*TITLES*/ { en: 'Booking' }", JSON.stringify(EMBED_TITLES));
  const favicon = assets.byName.get('favicon.svg');
  if (!favicon) throw new Error('assets/favicon.svg is missing');

  /**
   * A booking link with a username its host gave up: 301 to the same page under the current
   * one (query kept), as links on old cards and sites must keep working. False when the
   * username was never given up (the caller's 404 stands).
   */
  const redirectRenamedHost = async (request: FastifyRequest, reply: FastifyReply, username: string, rest: string): Promise<boolean> => {
    const current = await findRenamedHost(ctx, username);
    if (current === undefined || current === username) return false;
    const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
    reply
      .code(301)
      .header('location', `/book/${encodeURIComponent(current)}${rest}${query}`)
      .header('cache-control', 'no-store')
      .send();
    return true;
  };

  // Every browser asks for /favicon.ico on every page; an icon, not a 404 in each page load.
  app.get('/favicon.ico', { schema: { hide: true } }, async (request, reply) => sendAsset(request, reply, favicon, 'public, max-age=86400'));

  app.get<{ Params: { file: string } }>('/assets/:file', { schema: { hide: true } }, async (request, reply) => {
    const asset = assets.byHashedName.get(request.params.file);
    if (!asset) throw new NotFoundError('asset');
    // The content's hash is in the name: a changed file gets a new URL, so a year is safe.
    return sendAsset(request, reply, asset, `public, max-age=${YEAR_SECONDS}, immutable`);
  });

  app.get(
    '/embed.js',
    {
      schema: {
        tags: PAGE_TAGS,
        operationId: 'getEmbedScript',
        summary: 'Embed script for a booking page',
        description:
          'On any site: `<script src="{PUBLIC_URL}/embed.js" data-termin-booking="{booking page URL}"></script>` (or an element with ' +
          '`data-termin-booking` plus the script). Inserts the page in an iframe sized to its content; a finished booking is posted to ' +
          'the host page as `{ type: "termin:booked", meetings, payment }` (and dispatched as a `termin:booked` DOM event on the element); ' +
          'a paid booking then continues at `payment.redirectUrl` unless the element has `data-termin-redirect="false"`. The URL is fixed, ' +
          'so it is cached for an hour (revalidated by ETag), not a year.',
      },
    },
    async (request, reply) => sendAsset(request, reply, embedScript, 'public, max-age=3600'),
  );

  app.get<{ Params: { username: string }; Querystring: PageQuery }>(
    '/book/:username',
    {
      schema: {
        tags: PAGE_TAGS,
        operationId: 'getHostBookingPages',
        summary: "A host's booking pages (HTML)",
        description:
          "Lists the host's public topics (their own and their teams' that they host), each linking to its booking page (by its slug when it has one). " +
          '`?lang=en|pl|de|uk|es|fr` overrides Accept-Language. A username the host has given up answers 301 to the current one.',
        querystring: PageQuerySchema,
      },
    },
    async (request, reply) => {
      const lang = langOf(request);
      const host = await listPublicTopicsOfHost(ctx, request.params.username).catch(async (error: unknown) => {
        if (error instanceof NotFoundError && (await redirectRenamedHost(request, reply, request.params.username, ''))) return null;
        throw error;
      });
      if (host === null) return reply;
      const page = renderTopicList({
        lang,
        locale: pickLocale(lang, request.headers['accept-language']),
        hostName: host.host.name,
        accountName: host.accountName,
        branding: host.branding,
        stylesheet,
        topics: host.topics.map((topic) => {
          // Each topic's name and description in the page's language, its own where untranslated.
          const words = translateTopic({ ...topic, confirmationMessage: '' }, lang);
          return {
            url: withLang(`/book/${encodeURIComponent(host.host.username)}/${topic.slug ?? topic.uuid}`, request),
            name: words.name,
            description: words.description,
            durationMinutes: topic.durationMinutes,
            durations: topic.durations,
            price: topic.price,
            priceVariants: topic.priceVariants,
          };
        }),
      });
      return sendHtml(reply, 200, page);
    },
  );

  const topicPage = async (request: FastifyRequest<{ Params: { username?: string; teamUuid?: string; topicUuid: string }; Querystring: PageQuery }>, reply: FastifyReply) => {
    const { username, teamUuid } = request.params;
    // A malformed id is simply no such page (a 404 page, not a validation error).
    if (teamUuid !== undefined && !UUID.test(teamUuid)) throw new NotFoundError('booking page');
    // The link's last part is the topic's uuid or its slug (`/book/anna/intro-call`).
    const topicPart = request.params.topicUuid;
    const topicUuid = UUID.test(topicPart)
      ? topicPart
      : slugProblem(topicPart) === null
        ? await findPublicTopicUuidBySlug(ctx, { username, teamUuid, slug: topicPart })
        : undefined;
    const found = await (topicUuid === undefined ? Promise.reject(new NotFoundError('booking page')) : findTopicPage(ctx, { username, teamUuid, topicUuid })).catch(
      async (error: unknown) => {
        if (error instanceof NotFoundError && username !== undefined && (await redirectRenamedHost(request, reply, username, `/${encodeURIComponent(topicPart)}`))) return null;
        throw error;
      },
    );
    if (found === null) return reply;
    return sendHtml(reply, 200, renderTopicPage(request, found, teamUuid === undefined ? (username ?? null) : null, teamUuid));
  };
  /** A topic's booking page: its own (above) or a single-use link's (`singleUseToken`). */
  const renderTopicPage = (
    request: FastifyRequest<{ Querystring: PageQuery }>,
    found: Awaited<ReturnType<typeof findTopicPage>>,
    username: string | null,
    teamUuid: string | undefined,
    singleUseToken?: string,
  ) => {
    const lang = langOf(request);
    // The topic's words in the page's language, its own where untranslated; a select's values stay its own options.
    const words = translateTopic(found.words, lang);
    const optionLabels = Object.fromEntries(words.form.filter((field) => field.options).map((field) => [field.key, field.options!]));
    const timezone = request.query.timezone && isValidTimeZone(request.query.timezone) ? request.query.timezone : null;
    return renderBookingPage({
      lang,
      locale: pickLocale(lang, request.headers['accept-language']),
      accountName: found.accountName,
      topic: {
        ...found.topic,
        name: words.name,
        description: words.description,
        form: found.topic.form.map((field, index) => ({ ...field, label: words.form[index]?.label ?? field.label })),
      },
      branding: found.branding,
      confirmationMessage: words.confirmationMessage,
      optionLabels,
      username,
      team: found.topic.team,
      hostLabel: teamUuid === undefined ? (found.hosts[0]?.name ?? null) : (found.team?.name ?? null),
      gateways: found.gateways,
      roomPlaces: found.roomPlaces,
      phoneCallNeedsNumber: found.phoneCallNeedsNumber,
      timezone,
      timezoneError: request.query.timezone && timezone === null ? request.query.timezone.slice(0, 100) : null,
      fallbackTimezone: found.fallbackTimezone,
      embedOrigin: embedOriginOf(request.query.embed),
      singleUseToken,
      stylesheet,
      script,
    });
  };
  const bookingDescription =
    'The booking page of a public topic: a month calendar of the days with free slots (each a `<button data-date="YYYY-MM-DD">`), the ' +
    "chosen day's slots (`<button data-start>` with the UTC start) in the participant's zone (detected by the browser, `?timezone=` " +
    "overrides, changeable from a searchable list), the topic's places, price and variants and form questions, then a confirmation " +
    'or, for a paid topic, the payment\'s `redirectUrl`; a topic that requires approval asks "Request booking" instead. Books through POST /api/v1/public/schedule. `?lang=en|pl|de|uk|es|fr` overrides Accept-Language. ' +
    "An unknown, private or deleted topic is a 404 page. The last part may be the topic's `slug` instead of its uuid (`/book/anna/intro-call`); " +
    'a username the host has given up (PATCH /users/{userUuid}) answers 301 to the same page under the current one.';

  app.get<{ Params: { username: string; topicUuid: string }; Querystring: PageQuery }>(
    '/book/:username/:topicUuid',
    {
      schema: {
        tags: PAGE_TAGS,
        operationId: 'getTopicBookingPage',
        summary: "Booking page of a host's topic (HTML)",
        description: bookingDescription,
        querystring: PageQuerySchema,
      },
    },
    topicPage,
  );

  app.get<{ Params: { teamUuid: string; topicUuid: string }; Querystring: PageQuery }>(
    '/book/teams/:teamUuid/:topicUuid',
    {
      schema: {
        tags: PAGE_TAGS,
        operationId: 'getTeamTopicBookingPage',
        summary: "Booking page of a team's topic (HTML)",
        description: `${bookingDescription} One calendar for the team: each slot is booked with a free host (round-robin).`,
        querystring: PageQuerySchema,
      },
    },
    topicPage,
  );

  app.get<{ Params: { token: string }; Querystring: PageQuery }>(
    '/book/once/:token',
    {
      schema: {
        tags: PAGE_TAGS,
        operationId: 'getSingleUseBookingPage',
        summary: 'Booking page of a single-use link (HTML)',
        description:
          "The link of POST /meeting-topics/{uuid}/single-use-links: the topic's booking page (as `/book/{username}/{topicUuid}`, or the team's " +
          'for a team topic), also for a topic that is not public; its booking sends the token and uses the link up. A link used, expired ' +
          "or unknown is a 410 page saying so (in the page's language), and so is a booking through it.",
        querystring: PageQuerySchema,
      },
    },
    async (request, reply) => {
      const lang = langOf(request);
      const found = await findSingleUseTopic(ctx, request.params.token).catch((error: unknown) => {
        if (error instanceof LinkGoneError) return null;
        throw error;
      });
      if (found === null) return sendHtml(reply, 410, renderSingleUseGone(lang, stylesheet));
      const { topic } = found;
      const teamUuid = topic.teamUuid ?? undefined;
      const username = teamUuid === undefined ? topic.hosts[0]?.username : undefined;
      const page = await findTopicPage(ctx, { username, teamUuid, topicUuid: topic.uuid, singleUse: true }).catch((error: unknown) => {
        if (error instanceof NotFoundError) return null;
        throw error;
      });
      if (page === null) return sendHtml(reply, 410, renderSingleUseGone(lang, stylesheet));
      reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
      return sendHtml(reply, 200, renderTopicPage(request, page, teamUuid === undefined ? (username ?? null) : null, teamUuid, request.params.token));
    },
  );

  app.get<{ Params: { token: string }; Querystring: PageQuery }>(
    '/booking/:token',
    {
      schema: {
        tags: PAGE_TAGS,
        operationId: 'getManageBookingPage',
        summary: 'Manage a booking (HTML)',
        description:
          "The private link of every confirmation e-mail. Shows the meeting in the participant's zone and language (`?lang=` overrides) and, " +
          "until the topic's `cancellationNoticeMinutes` before the start, lets the participant cancel it (optional reason) or move it to " +
          'another free slot. Once cancelled, declined or expired, it links back to the topic\'s booking page ("Book another time", `#book-again`) ' +
          'while that page takes bookings. A forged link, or one whose meeting has ended, is a 404 page.',
        querystring: PageQuerySchema,
      },
    },
    async (request, reply) => {
      const managed = await getManagedBooking(ctx, request.params.token).catch((error: unknown) => {
        if (error instanceof NotFoundError) return null;
        throw error;
      });
      if (managed === null) return sendHtml(reply, 404, renderManageGone(langOf(request), stylesheet));
      const { meeting } = managed;
      const lang: Lang = supportedLang(request.query.lang) ?? meeting.participant.lang;
      const timezone = request.query.timezone && isValidTimeZone(request.query.timezone) ? request.query.timezone : meeting.participant.timezone;
      const page = renderManagePage({
        lang,
        locale: pickLocale(lang, request.headers['accept-language']),
        token: request.params.token,
        accountName: null,
        topicName: translateTopic(managed.topic, lang).name,
        confirmationMessage: translateTopic(managed.topic, lang).confirmationMessage,
        branding: managed.branding,
        hostName: managed.hostName,
        start: meeting.start,
        end: meeting.end,
        status: meeting.status,
        place: meeting.place,
        location: meeting.location,
        price: managed.payment
          ? { amount: managed.payment.amount, currency: managed.payment.currency, paid: managed.payment.status === 'paid' || managed.payment.status === 'refunded' }
          : null,
        manageUrl: manageUrl(ctx.config.publicUrl, ctx.secretKey, meeting.uuid),
        timezone,
        changeableUntil: managed.canChange ? managed.changeDeadline : null,
        bookAgainPath: managed.bookAgainPath,
        stylesheet,
        script,
      });
      return sendHtml(reply, 200, page);
    },
  );

  app.get<{ Params: { token: string } }>(
    '/booking/:token/invitation.ics',
    {
      schema: {
        tags: PAGE_TAGS,
        operationId: 'getManagedBookingInvitation',
        summary: 'The booking as an .ics file',
        description:
          "The manage link's meeting as an iCalendar event (text/calendar, as a download), for calendars without a web template link: " +
          'the same UID as the e-mailed invitation, the join link or address as its location, the manage link as its URL. 404 as for the manage page.',
      },
    },
    async (request, reply) => {
      const ics = await invitationForToken(ctx, request.params.token);
      return reply
        .header('content-type', 'text/calendar; charset=utf-8')
        .header('content-disposition', 'attachment; filename="invitation.ics"')
        .header('cache-control', 'no-store')
        .header('x-content-type-options', 'nosniff')
        .send(ics);
    },
  );
};
