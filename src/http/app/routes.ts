import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { AddressLimiter } from '../../domain/address-limiter.js';
import { PLACES, isPlace, type Place } from '../../domain/account.js';
import { WEEKDAYS, type Availability, type Weekday } from '../../domain/availability.js';
import { DomainError, ForbiddenError, NotFoundError, RateLimitedError, ValidationError, type FieldError } from '../../domain/errors.js';
import { INTEGRATION_PROVIDERS, type IntegrationProvider } from '../../domain/integrations.js';
import type { FormFieldInput } from '../../domain/form.js';
import type { Lang } from '../../domain/meeting.js';
import type { MeetingTopic } from '../../domain/meeting-topic.js';
import type { Team } from '../../domain/team.js';
import { MoneyFormatError, formatMinorUnits, parseDecimalAmount } from '../../domain/money.js';
import type { AppContext } from '../../context.js';
import { getAccount } from '../../scheduling/account.js';
import { getTeamOverview, listUpcomingOfHost, scheduleForMove } from '../../scheduling/app-host.js';
import { approveMeeting, declineMeeting } from '../../scheduling/approval.js';
import { addTeamMember, listTeams, removeTeamMember } from '../../scheduling/teams.js';
import { getTeamMember, updateTeamMember } from '../../scheduling/members.js';
import { csrfTokenOf, isCsrfTokenValid, newBrowserNonce, redeemSignInLink, requestSignInLink, resumeAppSession, signOut, type AppSession } from '../../scheduling/app-sign-in.js';
import { getAvailability, setAvailability } from '../../scheduling/availability.js';
import { addCalendar, getFeedUrl, listCalendars, removeCalendar, rotateFeed } from '../../scheduling/calendars.js';
import { listConnections, removeConnection, startConnection } from '../../scheduling/connections.js';
import { calculateSchedule } from '../../scheduling/calculate-schedule.js';
import { explainSchedule } from '../../scheduling/explain-schedule.js';
import { localToInstant, parseLocalDate } from '../../domain/time-zones.js';
import { createMeetingTopic, getMeetingTopic, listMeetingTopics, updateMeetingTopic } from '../../scheduling/meeting-topics.js';
import { cancelMeeting } from '../../scheduling/meetings.js';
import { rescheduleMeeting } from '../../scheduling/reschedule-meeting.js';
import { loadAssets } from '../pages/assets.js';
import { sendHtml, type SafeHtml } from '../pages/html.js';
import { PROBLEM_KINDS } from '../problems.js';
import { pickLang, pickLocale } from '../pages/i18n.js';
import { LANG_COOKIE, NONCE_COOKIE, SESSION_COOKIE, parseCookies, serializeCookie } from './cookies.js';
import {
  renderAvailabilityPage,
  renderLoginPage,
  renderMessagePage,
  renderConnectionsPage,
  renderMovePage,
  renderTeamPage,
  renderTopicFormPage,
  renderTopicsPage,
  renderUpcomingPage,
  type AppFrame,
  type AvailabilityForm,
  type WhyNotView,
  type TopicForm,
} from './pages.js';
import { APP_STRINGS } from './strings.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The web app's signed-in member (set by the app's guard; null elsewhere). */
    appSession: AppSession | null;
    /** The teams that member administers (each has a page in the navigation). */
    appTeams: readonly Team[];
  }
}

/** The "why not?" form's fields, as the query string brings them (each at most once used). */
interface WhyNotQuery {
  why_topic?: string | undefined;
  why_date?: string | undefined;
  why_time?: string | undefined;
}

/** A query value that may come repeated: its first, bounded. */
function oneOf(value: string | string[] | undefined): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return first?.slice(0, 64);
}

/** A posted HTML form: each name's values, repeated names (checkboxes) in order. */
type FormBody = Record<string, string | string[]>;

/** Sign-in link requests one address (IP) may make per minute on this instance; the per-member limit is in the database. */
const SIGN_IN_REQUESTS_PER_IP_PER_MINUTE = 10;
const FORM_BODY_LIMIT = 64 * 1024;
const HIDE = { schema: { hide: true } } as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function parseForm(text: string): FormBody {
  const body: FormBody = {};
  for (const [name, value] of new URLSearchParams(text)) {
    const current = body[name];
    if (current === undefined) body[name] = value;
    else body[name] = Array.isArray(current) ? [...current, value] : [current, value];
  }
  return body;
}

function field(body: FormBody | undefined, name: string): string {
  const value = body?.[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

function fields(body: FormBody | undefined, name: string): string[] {
  const value = body?.[name];
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/**
 * The host's web app under /app: sign-in by e-mailed link, then the member's upcoming
 * meetings, weekly hours and topics, as server-rendered pages with plain forms (each carrying
 * a CSRF token) and one small script. Every change is the same use case the API calls, with
 * the member as the caller, so the same rules, events and webhooks apply. No API key is
 * involved: the browser holds only an HttpOnly session cookie.
 */
export const appRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  const assets = loadAssets();
  const stylesheets = [assets.url('booking.css'), assets.url('app.css')];
  const script = assets.url('app.js');
  const secure = ctx.config.publicUrl.startsWith('https:');
  const signInLimiter = new AddressLimiter(SIGN_IN_REQUESTS_PER_IP_PER_MINUTE);

  app.decorateRequest('appSession', null);
  app.decorateRequest('appTeams', null as unknown as readonly Team[]);
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT }, (_request, body, done) => {
    done(null, parseForm(typeof body === 'string' ? body : body.toString('utf8')));
  });

  const cookiesOf = (request: FastifyRequest) => parseCookies(request.headers.cookie);

  /** `?lang=` (remembered in a cookie), else the remembered choice, else Accept-Language. */
  function langOf(request: FastifyRequest, reply: FastifyReply): Lang {
    const query = (request.query as { lang?: string } | undefined)?.lang;
    if (query === 'en' || query === 'pl') {
      reply.header('set-cookie', serializeCookie(LANG_COOKIE, query, { maxAge: 365 * 86_400, secure }));
      return query;
    }
    return pickLang(cookiesOf(request)[LANG_COOKIE], request.headers['accept-language']);
  }

  function frameOf(request: FastifyRequest, reply: FastifyReply, csrf: string): AppFrame {
    const lang = langOf(request, reply);
    const session = request.appSession;
    return {
      lang,
      locale: pickLocale(lang, request.headers['accept-language']),
      path: request.url.split('?')[0]!,
      stylesheets,
      script,
      csrf,
      member: session ? { name: `${session.user.firstName} ${session.user.lastName}`, email: session.user.email } : null,
      teams: session ? (request.appTeams ?? []) : [],
    };
  }

  const send = (reply: FastifyReply, status: number, page: SafeHtml) => sendHtml(reply, status, page);
  const seeOther = (reply: FastifyReply, location: string) => reply.code(303).header('location', location).header('cache-control', 'no-store').send();

  // ── Sign-in (no session needed) ──────────────────────────────────────────────────────

  /** The login form's CSRF token is bound to a random cookie, set here when the browser has none. */
  function loginCsrf(request: FastifyRequest, reply: FastifyReply): string {
    let nonce = cookiesOf(request)[NONCE_COOKIE];
    if (!nonce || nonce.length < 20) {
      nonce = newBrowserNonce();
      reply.header('set-cookie', serializeCookie(NONCE_COOKIE, nonce, { maxAge: 86_400, secure }));
    }
    return csrfTokenOf(ctx.secretKey, `nonce:${nonce}`);
  }

  app.get('/app/login', HIDE, async (request, reply) => {
    if (await resumeAppSession(ctx, cookiesOf(request)[SESSION_COOKIE])) return seeOther(reply, '/app');
    const csrf = loginCsrf(request, reply);
    return send(reply, 200, renderLoginPage(frameOf(request, reply, csrf)));
  });

  app.post<{ Body: FormBody }>('/app/login', HIDE, async (request, reply) => {
    const body = request.body ?? {};
    const nonce = cookiesOf(request)[NONCE_COOKIE];
    if (!nonce || !isCsrfTokenValid(ctx.secretKey, `nonce:${nonce}`, body.csrf))
      throw new ForbiddenError('The form has expired or did not come from this site: reload the page and try again');
    const now = ctx.now();
    const blocked = signInLimiter.blockedFor(request.ip, now);
    if (blocked > 0) {
      reply.header('retry-after', String(blocked));
      throw new RateLimitedError('Too many sign-in requests from this address', blocked);
    }
    signInLimiter.record(request.ip, now);
    const frame = frameOf(request, reply, csrfTokenOf(ctx.secretKey, `nonce:${nonce}`));
    const lang: Lang = field(body, 'lang') === 'pl' ? 'pl' : field(body, 'lang') === 'en' ? 'en' : frame.lang;
    // The same answer whether or not the address is a member's (nothing to learn from it).
    await requestSignInLink(ctx, field(body, 'email').slice(0, 320), lang);
    const t = APP_STRINGS[frame.lang];
    return send(reply, 200, renderMessagePage(frame, t.linkSentTitle, t.linkSent));
  });

  app.get<{ Params: { token: string } }>('/app/login/:token', HIDE, async (request, reply) => {
    const session = await redeemSignInLink(ctx, request.params.token);
    if (session === null) {
      const t = APP_STRINGS[langOf(request, reply)];
      const frame = frameOf(request, reply, '');
      return send(reply, 410, renderMessagePage(frame, t.linkInvalidTitle, t.linkInvalid, { href: '/app/login', label: t.askAgain }));
    }
    reply.header('set-cookie', serializeCookie(SESSION_COOKIE, session.token, { maxAge: Math.floor((session.expiresAt - ctx.now()) / 1000), secure }));
    return seeOther(reply, '/app');
  });

  // ── Signed-in pages ──────────────────────────────────────────────────────────────────

  await app.register(async (member: FastifyInstance) => {
    member.addHook('preHandler', async (request, reply) => {
      const session = await resumeAppSession(ctx, cookiesOf(request)[SESSION_COOKIE]);
      if (session === null) {
        // A stale cookie goes; the browser is sent to sign in.
        if (cookiesOf(request)[SESSION_COOKIE] !== undefined) reply.header('set-cookie', serializeCookie(SESSION_COOKIE, '', { maxAge: 0, secure }));
        return seeOther(reply, '/app/login');
      }
      request.appSession = session;
      request.appTeams = await listTeams(ctx, session.principal);
      if (session.renewedUntil !== null) {
        reply.header('set-cookie', serializeCookie(SESSION_COOKIE, cookiesOf(request)[SESSION_COOKIE]!, { maxAge: Math.floor((session.renewedUntil - ctx.now()) / 1000), secure }));
      }
      // Every change needs the session's form token: another site can make the browser post, but not read the token.
      if (request.method === 'POST' && !isCsrfTokenValid(ctx.secretKey, `session:${session.uuid}`, (request.body as FormBody | undefined)?.csrf)) {
        throw new ForbiddenError('The form has expired or did not come from this site: reload the page and try again');
      }
    });

    const sessionOf = (request: FastifyRequest): AppSession => request.appSession!;
    const frame = (request: FastifyRequest, reply: FastifyReply) => frameOf(request, reply, sessionOf(request).csrfToken);

    member.post('/app/logout', HIDE, async (request, reply) => {
      await signOut(ctx, sessionOf(request).uuid);
      reply.header('set-cookie', serializeCookie(SESSION_COOKIE, '', { maxAge: 0, secure }));
      return seeOther(reply, '/app/login');
    });

    // Upcoming
    member.get<{ Querystring: { done?: string; lang?: string } }>('/app', HIDE, async (request, reply) => {
      const session = sessionOf(request);
      const f = frame(request, reply);
      const t = APP_STRINGS[f.lang];
      const upcoming = await listUpcomingOfHost(ctx, session.principal);
      const done = request.query.done;
      const flashes: Record<string, string> = { cancelled: t.cancelled, moved: t.moved, approved: t.approved, declined: t.declined };
      const flash = done !== undefined && Object.hasOwn(flashes, done) ? flashes[done]! : null;
      return send(reply, 200, renderUpcomingPage(f, { ...upcoming, timezone: session.user.timezone, flash }));
    });

    member.post<{ Params: { uuid: string }; Body: FormBody }>('/app/meetings/:uuid/cancel', HIDE, async (request, reply) => {
      requireUuid(request.params.uuid);
      await cancelMeeting(ctx, sessionOf(request).principal, request.params.uuid, field(request.body, 'reason').slice(0, 2000));
      return seeOther(reply, '/app?done=cancelled');
    });

    // A request awaiting approval: the same use cases as POST /meetings/{uuid}/approve and …/decline.
    member.post<{ Params: { uuid: string }; Body: FormBody }>('/app/meetings/:uuid/approve', HIDE, async (request, reply) => {
      requireUuid(request.params.uuid);
      await approveMeeting(ctx, sessionOf(request).principal, request.params.uuid);
      return seeOther(reply, '/app?done=approved');
    });

    member.post<{ Params: { uuid: string }; Body: FormBody }>('/app/meetings/:uuid/decline', HIDE, async (request, reply) => {
      requireUuid(request.params.uuid);
      await declineMeeting(ctx, sessionOf(request).principal, request.params.uuid, field(request.body, 'reason').slice(0, 2000));
      return seeOther(reply, '/app?done=declined');
    });

    async function movePage(request: FastifyRequest<{ Params: { uuid: string }; Querystring: { week?: string } }>, reply: FastifyReply, error: string | null) {
      requireUuid(request.params.uuid);
      const session = sessionOf(request);
      const week = Number.parseInt(request.query.week ?? '0', 10);
      const offset = Number.isInteger(week) && week >= 0 && week <= 104 ? week * 7 : 0;
      const { meeting, schedule } = await scheduleForMove(ctx, session.principal, request.params.uuid, { timezone: session.user.timezone, offset });
      const topicName = (await listUpcomingOfHost(ctx, session.principal)).topicNames.get(meeting.topicUuid) ?? '—';
      const view = { meeting, topicName, days: schedule.days, timezone: session.user.timezone, offset, error };
      return send(reply, error ? 409 : 200, renderMovePage(frame(request, reply), view));
    }

    member.get<{ Params: { uuid: string }; Querystring: { week?: string } }>('/app/meetings/:uuid/move', HIDE, async (request, reply) => movePage(request, reply, null));

    member.post<{ Params: { uuid: string }; Querystring: { week?: string }; Body: FormBody }>('/app/meetings/:uuid/move', HIDE, async (request, reply) => {
      requireUuid(request.params.uuid);
      try {
        await rescheduleMeeting(ctx, sessionOf(request).principal, request.params.uuid, { start: field(request.body, 'start') });
      } catch (error) {
        if (error instanceof DomainError && (error.code === 'SLOT_UNAVAILABLE' || error.code === 'VALIDATION_FAILED')) return movePage(request, reply, error.message);
        throw error;
      }
      return seeOther(reply, '/app?done=moved');
    });

    // Availability
    async function availabilityPage(request: FastifyRequest, reply: FastifyReply, form: AvailabilityForm, errors: FieldError[], flash: string | null, ask?: WhyNotQuery) {
      const session = sessionOf(request);
      const preview = await previewOf(session, form.timezone);
      const whyNot = await whyNotOf(session, form.timezone, langOf(request, reply), ask);
      const view = { form, zones: Intl.supportedValuesOf('timeZone'), errors, flash, preview, whyNot };
      return send(reply, errors.length > 0 ? 400 : 200, renderAvailabilityPage(frame(request, reply), view));
    }

    async function previewOf(session: AppSession, timezone: string) {
      const topics = await listMeetingTopics(ctx, session.principal, { username: session.user.username });
      const topic = topics.find((candidate) => candidate.teamUuid === null) ?? topics[0];
      if (!topic) return null;
      try {
        const schedule = await calculateSchedule(ctx, session.principal, { username: session.user.username, meetingTopic: topic.uuid, timezone, offset: 7 });
        return { topicName: topic.name, days: schedule.days, timezone };
      } catch (error) {
        if (error instanceof DomainError) return null;
        throw error;
      }
    }

    /**
     * "Why is this time not offered?" for the member's own topics: the date and time read on
     * the clock of their hours, answered by the same use case as POST /explain-schedule.
     */
    async function whyNotOf(session: AppSession, timezone: string, lang: Lang, ask: WhyNotQuery | undefined): Promise<WhyNotView | null> {
      const topics = await listMeetingTopics(ctx, session.principal, { username: session.user.username });
      if (topics.length === 0) return null;
      const t = APP_STRINGS[lang];
      const view: WhyNotView = { topics, topic: ask?.why_topic ?? topics[0]!.uuid, date: ask?.why_date ?? '', time: ask?.why_time ?? '', timezone, answer: null, error: null };
      if (ask?.why_topic === undefined && ask?.why_date === undefined && ask?.why_time === undefined) return view;
      const topic = topics.find((candidate) => candidate.uuid === view.topic);
      const day = /^\d{4}-\d{2}-\d{2}$/.test(view.date) ? parseLocalDate(view.date) : Number.NaN;
      const clock = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(view.time);
      if (!topic || Number.isNaN(day) || !clock) return { ...view, error: t.whyNotInvalid };
      // A time the clocks skip or repeat is read as its first instant, as the hours are.
      const start = localToInstant(timezone, day, Number(clock[1]) * 60 + Number(clock[2]));
      const input = { username: session.user.username, meetingTopic: topic.uuid, start: new Date(start).toISOString(), team: topic.teamUuid ?? undefined };
      let explained: Awaited<ReturnType<typeof explainSchedule>>;
      try {
        explained = await explainSchedule(ctx, session.principal, input, lang);
      } catch (error) {
        if (error instanceof DomainError) return { ...view, error: error.message };
        throw error;
      }
      return { ...view, answer: { offered: explained.offered, reasons: explained.reasons.map((reason) => reason.detail) } };
    }

    member.get<{ Querystring: { done?: string } & WhyNotQuery }>('/app/availability', HIDE, async (request, reply) => {
      const session = sessionOf(request);
      const availability = await getAvailability(ctx, session.principal, session.user.uuid);
      const t = APP_STRINGS[langOf(request, reply)];
      const { why_topic, why_date, why_time } = request.query;
      const ask = { why_topic: oneOf(why_topic), why_date: oneOf(why_date), why_time: oneOf(why_time) };
      return availabilityPage(request, reply, toAvailabilityForm(availability), [], request.query.done === 'saved' ? t.saved : null, ask);
    });

    member.post<{ Body: FormBody }>('/app/availability', HIDE, async (request, reply) => {
      const session = sessionOf(request);
      const form = readAvailabilityForm(request.body);
      const op = field(request.body, 'op') || 'save';
      // Add and Remove work without a script: the form comes back with a row more or less, unsaved.
      if (op !== 'save') return availabilityPage(request, reply, applyAvailabilityOp(form, op), [], null);
      try {
        await setAvailability(ctx, session.principal, session.user.uuid, fromAvailabilityForm(form));
      } catch (error) {
        if (error instanceof ValidationError) return availabilityPage(request, reply, form, error.errors ?? [], null);
        throw error;
      }
      return seeOther(reply, '/app/availability?done=saved');
    });

    // Topics
    const publicLinkOf = (topic: MeetingTopic, username: string): string | null => {
      if (!topic.public) return null;
      return topic.teamUuid === null
        ? `${ctx.config.publicUrl}/book/${encodeURIComponent(username)}/${topic.uuid}`
        : `${ctx.config.publicUrl}/book/teams/${topic.teamUuid}/${topic.uuid}`;
    };

    member.get<{ Querystring: { done?: string } }>('/app/topics', HIDE, async (request, reply) => {
      const session = sessionOf(request);
      const topics = await listMeetingTopics(ctx, session.principal, { username: session.user.username });
      const links = new Map<string, string>();
      for (const topic of topics) {
        const link = publicLinkOf(topic, session.user.username);
        if (link) links.set(topic.uuid, link);
      }
      return send(reply, 200, renderTopicsPage(frame(request, reply), { topics, links, flash: null }));
    });

    member.get('/app/topics/new', HIDE, async (request, reply) => {
      const account = await getAccount(ctx, sessionOf(request).principal);
      const form: TopicForm = { name: '', durationMinutes: '30', places: account.places.slice(0, 1), price: '', currency: 'PLN', questions: '', public: true };
      return send(reply, 200, renderTopicFormPage(frame(request, reply), { uuid: null, form, accountPlaces: account.places, link: null, errors: [], flash: null }));
    });

    member.post<{ Body: FormBody }>('/app/topics', HIDE, async (request, reply) => {
      const session = sessionOf(request);
      const form = readTopicForm(request.body);
      const account = await getAccount(ctx, session.principal);
      try {
        const topic = await createMeetingTopic(ctx, session.principal, topicInputOf(form, []));
        return seeOther(reply, `/app/topics/${topic.uuid}?done=created`);
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        return send(
          reply,
          400,
          renderTopicFormPage(frame(request, reply), { uuid: null, form, accountPlaces: account.places, link: null, errors: error.errors ?? [], flash: null }),
        );
      }
    });

    member.get<{ Params: { uuid: string }; Querystring: { done?: string } }>('/app/topics/:uuid', HIDE, async (request, reply) => {
      requireUuid(request.params.uuid);
      const session = sessionOf(request);
      const topic = await getMeetingTopic(ctx, session.principal, request.params.uuid);
      const account = await getAccount(ctx, session.principal);
      const f = frame(request, reply);
      const flash = request.query.done === 'created' ? APP_STRINGS[f.lang].created : request.query.done === 'saved' ? APP_STRINGS[f.lang].saved : null;
      const view = { uuid: topic.uuid, form: toTopicForm(topic), accountPlaces: account.places, link: publicLinkOf(topic, session.user.username), errors: [], flash };
      return send(reply, 200, renderTopicFormPage(f, view));
    });

    member.post<{ Params: { uuid: string }; Body: FormBody }>('/app/topics/:uuid', HIDE, async (request, reply) => {
      requireUuid(request.params.uuid);
      const session = sessionOf(request);
      const current = await getMeetingTopic(ctx, session.principal, request.params.uuid);
      const form = readTopicForm(request.body);
      try {
        await updateMeetingTopic(ctx, session.principal, current.uuid, topicInputOf(form, current.form));
        return seeOther(reply, `/app/topics/${current.uuid}?done=saved`);
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        const account = await getAccount(ctx, session.principal);
        const view = { uuid: current.uuid, form, accountPlaces: account.places, link: publicLinkOf(current, session.user.username), errors: error.errors ?? [], flash: null };
        return send(reply, 400, renderTopicFormPage(frame(request, reply), view));
      }
    });

    // Team (admins of the team only: the use cases refuse anyone else)
    const NO_ADDITION = { firstName: '', lastName: '', email: '', admin: false };
    async function teamPage(
      request: FastifyRequest<{ Params: { teamUuid: string } }>,
      reply: FastifyReply,
      outcome: { flash?: string | null; error?: DomainError; added?: typeof NO_ADDITION } = {},
    ) {
      requireUuid(request.params.teamUuid);
      const session = sessionOf(request);
      const overview = await getTeamOverview(ctx, session.principal, request.params.teamUuid);
      const view = {
        ...overview,
        selfUuid: session.user.uuid,
        timezone: session.user.timezone,
        flash: outcome.flash ?? null,
        error: outcome.error?.message ?? null,
        added: outcome.added ?? NO_ADDITION,
      };
      return send(reply, outcome.error ? PROBLEM_KINDS[outcome.error.code].status : 200, renderTeamPage(frame(request, reply), view));
    }

    /** A refusal the admin can act on (a taken address, the last admin, the plan's limit) comes back on the page; the rest are error pages. */
    const isCorrectable = (error: unknown): error is DomainError => error instanceof DomainError && error.code !== 'NOT_FOUND' && error.code !== 'FORBIDDEN';

    member.get<{ Params: { teamUuid: string }; Querystring: { done?: string } }>('/app/team/:teamUuid', HIDE, async (request, reply) => {
      const t = APP_STRINGS[langOf(request, reply)];
      const done = request.query.done;
      const flash = done === 'added' ? t.memberAdded : done === 'saved' ? t.memberSaved : done === 'removed' ? t.memberRemoved : null;
      return teamPage(request, reply, { flash });
    });

    member.post<{ Params: { teamUuid: string }; Body: FormBody }>('/app/team/:teamUuid/members', HIDE, async (request, reply) => {
      requireUuid(request.params.teamUuid);
      const body = request.body;
      const added = {
        firstName: field(body, 'firstName').trim(),
        lastName: field(body, 'lastName').trim(),
        email: field(body, 'email').trim(),
        admin: field(body, 'admin') === 'on',
      };
      try {
        const missing = (['firstName', 'lastName', 'email'] as const).filter((name) => added[name] === '').map((name) => ({ path: `/${name}`, message: 'is required' }));
        if (missing.length > 0 || !/^[^\s@]+@[^\s@]+$/.test(added.email)) {
          throw new ValidationError(missing.length > 0 ? missing : [{ path: '/email', message: 'must be an e-mail address' }]);
        }
        await addTeamMember(ctx, sessionOf(request).principal, request.params.teamUuid, added);
      } catch (error) {
        if (isCorrectable(error)) return teamPage(request, reply, { error, added });
        throw error;
      }
      return seeOther(reply, `/app/team/${request.params.teamUuid}?done=added`);
    });

    member.post<{ Params: { teamUuid: string; userUuid: string }; Body: FormBody }>('/app/team/:teamUuid/members/:userUuid', HIDE, async (request, reply) => {
      requireUuid(request.params.teamUuid);
      requireUuid(request.params.userUuid);
      const body = request.body;
      try {
        const principal = sessionOf(request).principal;
        const current = await getTeamMember(ctx, principal, request.params.teamUuid, request.params.userUuid);
        // Only what changed is sent: an unchanged name is no rename (which only the owner may do to the owner).
        const firstName = field(body, 'firstName').trim();
        const lastName = field(body, 'lastName').trim();
        const empty = [firstName === '' ? '/firstName' : null, lastName === '' ? '/lastName' : null].filter((path) => path !== null);
        if (empty.length > 0) throw new ValidationError(empty.map((path) => ({ path, message: 'must not be empty' })));
        await updateTeamMember(ctx, principal, request.params.teamUuid, request.params.userUuid, {
          firstName: firstName === current.firstName ? undefined : firstName,
          lastName: lastName === current.lastName ? undefined : lastName,
          admin: field(body, 'admin') === 'on',
        });
      } catch (error) {
        if (isCorrectable(error)) return teamPage(request, reply, { error });
        throw error;
      }
      return seeOther(reply, `/app/team/${request.params.teamUuid}?done=saved`);
    });

    member.post<{ Params: { teamUuid: string; userUuid: string }; Body: FormBody }>('/app/team/:teamUuid/members/:userUuid/remove', HIDE, async (request, reply) => {
      requireUuid(request.params.teamUuid);
      requireUuid(request.params.userUuid);
      try {
        await removeTeamMember(ctx, sessionOf(request).principal, request.params.teamUuid, request.params.userUuid);
      } catch (error) {
        if (isCorrectable(error)) return teamPage(request, reply, { error });
        throw error;
      }
      return seeOther(reply, `/app/team/${request.params.teamUuid}?done=removed`);
    });
    // Connections: accounts (OAuth), calendars, the private feed, all the member's own
    async function connectionsPage(
      request: FastifyRequest,
      reply: FastifyReply,
      outcome: { flash?: string | null; error?: DomainError; authorize?: { label: string; url: string } },
    ) {
      const session = sessionOf(request);
      const [connections, calendars, feedUrl] = await Promise.all([
        listConnections(ctx, session.principal, session.user.uuid),
        listCalendars(ctx, session.principal, session.user.uuid),
        getFeedUrl(ctx, session.principal, session.user.uuid),
      ]);
      const providers = INTEGRATION_PROVIDERS.map((provider) => ({
        provider,
        label: ctx.integrations[provider].label,
        connection: connections.find((connection) => connection.provider === provider) ?? null,
      }));
      const view = { providers, calendars, feedUrl, flash: outcome.flash ?? null, error: outcome.error?.message ?? null, authorize: outcome.authorize ?? null };
      return send(reply, outcome.error ? PROBLEM_KINDS[outcome.error.code].status : 200, renderConnectionsPage(frame(request, reply), view));
    }

    member.get<{ Querystring: { done?: string } }>('/app/connections', HIDE, async (request, reply) => {
      const t = APP_STRINGS[langOf(request, reply)];
      const flashes: Record<string, string> = { 'calendar-added': t.calendarAdded, 'calendar-removed': t.calendarRemoved, feed: t.feedRotated, disconnected: t.disconnected };
      return connectionsPage(request, reply, { flash: flashes[request.query.done ?? ''] ?? null });
    });

    member.post<{ Body: FormBody }>('/app/connections/calendars', HIDE, async (request, reply) => {
      const session = sessionOf(request);
      const body = request.body;
      const type = field(body, 'type');
      try {
        if (type !== 'caldav' && type !== 'ics') throw new ValidationError([{ path: '/type', message: 'must be caldav or ics' }]);
        await addCalendar(ctx, session.principal, session.user.uuid, {
          type,
          url: field(body, 'url').trim(),
          username: field(body, 'username').trim() || undefined,
          password: field(body, 'password') || undefined,
          checkConflicts: field(body, 'checkConflicts') === 'on',
          writeMeetings: field(body, 'writeMeetings') === 'on',
        });
      } catch (error) {
        if (isCorrectable(error)) return connectionsPage(request, reply, { error });
        throw error;
      }
      return seeOther(reply, '/app/connections?done=calendar-added');
    });

    member.post<{ Params: { uuid: string }; Body: FormBody }>('/app/connections/calendars/:uuid/remove', HIDE, async (request, reply) => {
      requireUuid(request.params.uuid);
      const session = sessionOf(request);
      await removeCalendar(ctx, session.principal, session.user.uuid, request.params.uuid);
      return seeOther(reply, '/app/connections?done=calendar-removed');
    });

    member.post<{ Body: FormBody }>('/app/connections/feed', HIDE, async (request, reply) => {
      const session = sessionOf(request);
      await rotateFeed(ctx, session.principal, session.user.uuid);
      return seeOther(reply, '/app/connections?done=feed');
    });

    const providerOf = (value: string): IntegrationProvider => {
      const provider = INTEGRATION_PROVIDERS.find((candidate) => candidate === value);
      if (!provider) throw new NotFoundError(`provider ${value.slice(0, 40)}`);
      return provider;
    };

    // The provider's page is reached by a link the member follows (not a redirect from this
    // form post, which the pages' CSP form-action 'self' would stop in the browser).
    member.post<{ Params: { provider: string }; Body: FormBody }>('/app/connections/:provider', HIDE, async (request, reply) => {
      const provider = providerOf(request.params.provider);
      const session = sessionOf(request);
      try {
        const started = await startConnection(ctx, session.principal, session.user.uuid, provider);
        return connectionsPage(request, reply, { authorize: { label: ctx.integrations[provider].label, url: started.authorizeUrl } });
      } catch (error) {
        if (isCorrectable(error)) return connectionsPage(request, reply, { error });
        throw error;
      }
    });

    member.post<{ Params: { provider: string }; Body: FormBody }>('/app/connections/:provider/remove', HIDE, async (request, reply) => {
      const provider = providerOf(request.params.provider);
      const session = sessionOf(request);
      const connection = (await listConnections(ctx, session.principal, session.user.uuid)).find((candidate) => candidate.provider === provider);
      if (!connection) throw new NotFoundError('connection');
      await removeConnection(ctx, session.principal, session.user.uuid, connection.uuid);
      return seeOther(reply, '/app/connections?done=disconnected');
    });
  });
};

/** A malformed id in a path is bad input (a 400 page), never a database query. */
function requireUuid(value: string): void {
  if (!UUID.test(value)) throw new ValidationError([{ path: '/params/uuid', message: 'must be a UUID' }]);
}

// ── Availability form ⇄ domain ───────────────────────────────────────────────────────────

function toAvailabilityForm(availability: Availability): AvailabilityForm {
  const weekly = {} as AvailabilityForm['weekly'];
  for (const day of WEEKDAYS) weekly[day] = availability.weekly[day].map((interval) => ({ start: interval.start, end: interval.end === '24:00' ? '23:59' : interval.end }));
  const overrides = availability.overrides.flatMap((override) =>
    override.intervals.length === 0
      ? [{ date: override.date, start: '', end: '' }]
      : override.intervals.map((interval) => ({ date: override.date, start: interval.start, end: interval.end })),
  );
  return { timezone: availability.timezone, weekly, overrides };
}

/** Rows are read by their indices in order, so a gap (a removed row) closes up. */
function indexedRows(body: FormBody, prefix: string, names: readonly string[]): Record<string, string>[] {
  const indices = new Set<number>();
  for (const key of Object.keys(body)) {
    const match = new RegExp(`^${prefix.replace('.', '\\.')}\\.(\\d{1,3})\\.`).exec(key);
    if (match) indices.add(Number(match[1]));
  }
  return [...indices].sort((a, b) => a - b).map((index) => Object.fromEntries(names.map((name) => [name, field(body, `${prefix}.${index}.${name}`).trim()])));
}

function readAvailabilityForm(body: FormBody): AvailabilityForm {
  const weekly = {} as AvailabilityForm['weekly'];
  for (const day of WEEKDAYS) weekly[day] = indexedRows(body, day, ['start', 'end']).map((row) => ({ start: row.start!, end: row.end! }));
  const overrides = indexedRows(body, 'override', ['date', 'start', 'end']).map((row) => ({ date: row.date!, start: row.start!, end: row.end! }));
  return { timezone: field(body, 'timezone').trim(), weekly, overrides };
}

function applyAvailabilityOp(form: AvailabilityForm, op: string): AvailabilityForm {
  const [action, day, index] = op.split(':');
  const weekday = WEEKDAYS.find((candidate) => candidate === day) as Weekday | undefined;
  if (action === 'add' && weekday) {
    const last = form.weekly[weekday].at(-1);
    // A new interval after the last one by default: a morning and an afternoon are the common case.
    const next = last
      ? { start: last.end, end: last.end < '23:00' ? `${String(Number(last.end.slice(0, 2)) + 1).padStart(2, '0')}${last.end.slice(2)}` : '23:59' }
      : { start: '09:00', end: '17:00' };
    return { ...form, weekly: { ...form.weekly, [weekday]: [...form.weekly[weekday], next] } };
  }
  if (action === 'remove' && weekday) return { ...form, weekly: { ...form.weekly, [weekday]: form.weekly[weekday].filter((_, i) => i !== Number(index)) } };
  if (action === 'add-override') return { ...form, overrides: [...form.overrides, { date: '', start: '', end: '' }] };
  if (action === 'remove-override') return { ...form, overrides: form.overrides.filter((_, i) => i !== Number(day)) };
  return form;
}

/** Empty rows are dropped; an override row without times is that date off. */
function fromAvailabilityForm(form: AvailabilityForm): Availability {
  const weekly = {} as Availability['weekly'];
  for (const day of WEEKDAYS) weekly[day] = form.weekly[day].filter((row) => row.start !== '' || row.end !== '').map((row) => ({ start: row.start, end: row.end }));
  const byDate = new Map<string, { start: string; end: string }[]>();
  for (const row of form.overrides) {
    if (row.date === '') continue;
    const intervals = byDate.get(row.date) ?? [];
    if (row.start !== '' || row.end !== '') intervals.push({ start: row.start, end: row.end });
    byDate.set(row.date, intervals);
  }
  return { timezone: form.timezone, weekly, overrides: [...byDate].map(([date, intervals]) => ({ date, intervals })) };
}

// ── Topic form ⇄ domain ──────────────────────────────────────────────────────────────────

function toTopicForm(topic: MeetingTopic): TopicForm {
  return {
    name: topic.name,
    durationMinutes: String(topic.durationMinutes),
    places: [...topic.places],
    price: topic.price ? formatMinorUnits(topic.price.amount, topic.price.currency) : '',
    currency: topic.price?.currency ?? 'PLN',
    questions: topic.form.map((question) => `${question.label}${question.required ? ' *' : ''}`).join('\n'),
    public: topic.public,
  };
}

function readTopicForm(body: FormBody): TopicForm {
  return {
    name: field(body, 'name').trim(),
    durationMinutes: field(body, 'durationMinutes').trim(),
    places: fields(body, 'places').filter((place): place is Place => isPlace(place) && PLACES.includes(place)),
    price: field(body, 'price').trim(),
    currency: field(body, 'currency').trim().toUpperCase(),
    questions: field(body, 'questions'),
    public: field(body, 'public') === 'on',
  };
}

/**
 * The form as the topic use cases take it. Questions are one per line (`*` at the end:
 * required); a line whose label a current question has keeps that question (its key, type and
 * choices), so editing the list never turns a choice into free text.
 */
function topicInputOf(form: TopicForm, current: readonly FormFieldInput[]) {
  const errors: FieldError[] = [];
  const duration = /^\d{1,4}$/.test(form.durationMinutes) ? Number(form.durationMinutes) : Number.NaN;
  if (Number.isNaN(duration)) errors.push({ path: '/durationMinutes', message: 'must be a whole number of minutes' });
  let price: { amount: number; currency: string } | null = null;
  if (form.price !== '') {
    try {
      price = { amount: parseDecimalAmount(form.price.replace(',', '.'), form.currency), currency: form.currency };
    } catch (error) {
      if (!(error instanceof MoneyFormatError)) throw error;
      errors.push({ path: '/price', message: error.message });
    }
  }
  if (form.places.length === 0) errors.push({ path: '/places', message: 'choose at least one place' });
  if (errors.length > 0) throw new ValidationError(errors);
  const used = new Set(current.map((question) => question.key));
  let next = 1;
  const questions: FormFieldInput[] = form.questions
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .slice(0, 50)
    .map((line) => {
      const required = line.endsWith('*');
      const label = required ? line.slice(0, -1).trim() : line;
      const existing = current.find((question) => question.label === label);
      if (existing) return { ...existing, required };
      while (used.has(`q${next}`)) next += 1;
      used.add(`q${next}`);
      return { key: `q${next}`, label, required, type: 'text' as const };
    });
  return { name: form.name, durationMinutes: duration, places: form.places, price, form: questions, public: form.public };
}
