import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Place } from '../../domain/account.js';
import { DomainError, ForbiddenError, SlugTakenError, ValidationError, type FieldError } from '../../domain/errors.js';
import { formatMoney, type FormatLocale } from '../../domain/formats.js';
import { providerOfPlace } from '../../domain/integrations.js';
import type { Lang } from '../../domain/meeting.js';
import type { MeetingTopic } from '../../domain/meeting-topic.js';
import type { PlaceDetails } from '../../domain/place-details.js';
import type { Team } from '../../domain/team.js';
import { PLACE_LABELS } from '../../i18n/place-labels.js';
import type { AppSession } from '../../scheduling/host-app/sign-in.js';
import { getAccount } from '../../scheduling/account/account.js';
import { listTeamMembers } from '../../scheduling/account/teams.js';
import { listConnections } from '../../scheduling/integrations/connections.js';
import { createMeetingTopic, getMeetingTopic, listMeetingTopics, updateMeetingTopic } from '../../scheduling/topics/meeting-topics.js';
import { getUserPlaceDetails } from '../../scheduling/topics/place-details.js';
import { listSchedules } from '../../scheduling/topics/schedules.js';
import { type SafeHtml, html, sendHtml } from '../pages/html.js';
import { PAGE_ROUTE, field, formErrorsOf, formRoute, type FormBody } from './forms.js';
import { type AppFrame, type AppPageOptions, notice, renderPage, requireUuid, seeOther, sessionOf } from './frame.js';
import { APP_STRINGS, type AppStrings } from './strings.js';
import { TopicFormSchema, applyTopicOp, newTopicForm, readTopicForm, rowOriginsOf, toTopicForm, topicInputOf, type TopicForm } from './topic-form.js';
import { showErrors } from './topic-errors.js';
import { type ScheduleChoice, type TeamOfTopic, renderTopicFormPage } from './topic-page.js';
import { TOPIC_STRINGS } from './topic-strings.js';

/** What the topic's page needs besides the form: the account's places, the schedules to choose from, the team, and what to warn about. */
interface TopicPageContext {
  accountPlaces: Place[];
  schedules: ScheduleChoice[];
  team: TeamOfTopic | null;
  teamName: string | null;
  readOnly: boolean;
  /** The topic's hosts (uuid, username), or the member for a new individual topic. */
  hosts: readonly { uuid: string; username: string }[];
}

/** Topics: the member's topics with their public links; create and edit one with every setting of the API's topic. */
export const topicPages: FastifyPluginAsync<AppPageOptions> = async (app, { ctx, frames }) => {
  const publicLinkOf = (topic: MeetingTopic, username: string): string | null => {
    if (!topic.public) return null;
    return topic.teamUuid === null
      ? `${ctx.config.publicUrl}/book/${encodeURIComponent(username)}/${topic.slug ?? topic.uuid}`
      : `${ctx.config.publicUrl}/book/teams/${topic.teamUuid}/${topic.slug ?? topic.uuid}`;
  };

  /** A use case the member may not call for someone (another's schedules, a team they do not run) gives nothing to show, not an error page. */
  async function orNothing<T>(read: Promise<T>, nothing: T): Promise<T> {
    try {
      return await read;
    } catch (error) {
      if (error instanceof DomainError) return nothing;
      throw error;
    }
  }

  async function pageContext(session: AppSession, adminTeams: readonly Team[], teamUuid: string | null, topic: MeetingTopic | null): Promise<TopicPageContext> {
    const account = await getAccount(ctx, session.principal);
    const hosts = topic?.hosts ?? [{ uuid: session.user.uuid, username: session.user.username }];
    if (teamUuid === null) {
      const owner = hosts[0]?.uuid ?? session.user.uuid;
      const schedules = await orNothing(listSchedules(ctx, session.principal, owner), []);
      return { accountPlaces: account.places, schedules: schedules.map(({ uuid, name }) => ({ uuid, name })), team: null, teamName: null, readOnly: false, hosts };
    }
    const adminOf = adminTeams.find((team) => team.uuid === teamUuid);
    if (!adminOf) return { accountPlaces: account.places, schedules: [], team: null, teamName: null, readOnly: true, hosts };
    const members = (await listTeamMembers(ctx, session.principal, teamUuid)).filter((member) => member.deactivatedAt === null);
    const team: TeamOfTopic = {
      uuid: teamUuid,
      name: adminOf.name,
      members: await Promise.all(
        members.map(async (member) => ({
          username: member.username,
          name: `${member.firstName} ${member.lastName}`,
          schedules: (await orNothing(listSchedules(ctx, session.principal, member.uuid), [])).map(({ uuid, name }) => ({ uuid, name })),
        })),
      ),
    };
    return {
      accountPlaces: account.places,
      schedules: [],
      team,
      teamName: adminOf.name,
      readOnly: false,
      hosts: topic?.hosts ?? members.map(({ uuid, username }) => ({ uuid, username })),
    };
  }

  /**
   * The offered places a participant could not attend as set up: no address for "In person",
   * nothing to call for a phone call the participant need not give a number for, and for an
   * online place neither a room link (the topic's or the host's own) nor the host's working
   * connection. The API books them all the same; the page says what is missing.
   */
  async function warningsOf(session: AppSession, lang: Lang, form: TopicForm, hosts: readonly { uuid: string; username: string }[]): Promise<string[]> {
    const s = TOPIC_STRINGS[lang];
    const facts = await Promise.all(
      hosts.map(async (host) => ({
        host,
        details: await orNothing<PlaceDetails | null>(getUserPlaceDetails(ctx, session.principal, host.uuid), null),
        connected: (await orNothing(listConnections(ctx, session.principal, host.uuid), [])).filter((c) => c.status === 'connected').map((c) => c.provider),
      })),
    );
    // Hosts whose facts the member may not read are not guessed about.
    const known = facts.filter((fact) => fact.details !== null);
    const warnings: string[] = [];
    for (const place of form.places) {
      if (form.placeDetails[place]) continue;
      const label = PLACE_LABELS[lang][place];
      const provider = providerOfPlace(place);
      const lacking = known.filter((fact) => !fact.details![place] && (provider === null || !fact.connected.includes(provider)));
      if (lacking.length === 0) continue;
      if (place === 'offline') warnings.push(s.warnNoAddress(label));
      else if (place === 'phone-call') {
        if (!form.phoneRequired) warnings.push(s.warnNoPhone(label));
      } else if (provider === null) warnings.push(s.warnNoLink(label));
      else {
        const onlyMe = lacking.length === 1 && lacking[0]!.host.uuid === session.user.uuid;
        warnings.push(s.warnNoRoom(label, onlyMe ? s.youHave : s.theyHave(lacking.map((fact) => fact.host.username))));
      }
    }
    return warnings;
  }

  async function topicPage(
    request: FastifyRequest,
    reply: FastifyReply,
    state: { topic: MeetingTopic | null; teamUuid: string | null; form: TopicForm; errors?: readonly FieldError[]; flash?: string | null },
  ) {
    const session = sessionOf(request);
    const frame = frames.memberFrameOf(request, reply);
    const page = await pageContext(session, request.appTeams, state.teamUuid, state.topic);
    const errors = state.errors ?? [];
    const members = page.team?.members.map((member) => member.username) ?? [];
    const view = {
      uuid: state.topic?.uuid ?? null,
      form: state.form,
      accountPlaces: page.accountPlaces,
      link: state.topic ? publicLinkOf(state.topic, session.user.username) : null,
      errors: showErrors(frame.lang, errors, rowOriginsOf(state.form), members),
      flash: state.flash ?? null,
      warnings: page.readOnly ? [] : await warningsOf(session, frame.lang, state.form, page.hosts),
      schedules: page.schedules,
      team: page.team,
      readOnly: page.readOnly,
      teamName: page.teamName,
    };
    return sendHtml(reply, errors.length > 0 ? 400 : 200, renderTopicFormPage(frame, view));
  }

  /**
   * A posted topic form: a row added or removed comes back unsaved; otherwise `save` (the
   * use case's refusals come back next to their fields).
   */
  async function submitTopic(request: FastifyRequest<{ Body: FormBody }>, reply: FastifyReply, topic: MeetingTopic | null, teamUuid: string | null) {
    const form = readTopicForm(request.body, teamUuid);
    const invalid = formErrorsOf(request);
    if (invalid.length > 0) return topicPage(request, reply, { topic, teamUuid, form, errors: invalid });
    const changed = applyTopicOp(form, field(request.body, 'op') || 'save');
    if (changed) return topicPage(request, reply, { topic, teamUuid, form: changed });
    const session = sessionOf(request);
    const members =
      teamUuid === null ? [] : (await orNothing(listTeamMembers(ctx, session.principal, teamUuid), [])).filter((m) => m.deactivatedAt === null).map((m) => m.username);
    try {
      const input = topicInputOf(form, members, topic?.translations ?? {});
      if (topic === null) {
        const created = await createMeetingTopic(ctx, session.principal, { ...input, team: teamUuid });
        return seeOther(reply, `/app/topics/${created.uuid}?done=created`);
      }
      await updateMeetingTopic(ctx, session.principal, topic.uuid, input);
      return seeOther(reply, `/app/topics/${topic.uuid}?done=saved`);
    } catch (error) {
      // A taken slug is refused like a field: next to the custom link field.
      if (!(error instanceof ValidationError) && !(error instanceof SlugTakenError)) throw error;
      return topicPage(request, reply, { topic, teamUuid, form, errors: error.errors ?? [] });
    }
  }

  /** A team the member administers, by the uuid a page or form names (anyone else's is refused). */
  function requireOwnTeam(request: FastifyRequest, teamUuid: string): void {
    requireUuid(teamUuid);
    if (!request.appTeams.some((team) => team.uuid === teamUuid)) throw new ForbiddenError('Only an admin of the team may manage its topics');
  }

  app.get('/app/topics', PAGE_ROUTE, async (request, reply) => {
    const session = sessionOf(request);
    const topics = await listMeetingTopics(ctx, session.principal, { username: session.user.username });
    const links = new Map<string, string>();
    for (const topic of topics) {
      const link = publicLinkOf(topic, session.user.username);
      if (link) links.set(topic.uuid, link);
    }
    return sendHtml(reply, 200, renderTopicsPage(frames.memberFrameOf(request, reply), { topics, links, flash: null }));
  });

  app.get<{ Querystring: { team?: string } }>('/app/topics/new', PAGE_ROUTE, async (request, reply) => {
    const teamUuid = typeof request.query.team === 'string' && request.query.team !== '' ? request.query.team : null;
    if (teamUuid !== null) requireOwnTeam(request, teamUuid);
    const account = await getAccount(ctx, sessionOf(request).principal);
    return topicPage(request, reply, { topic: null, teamUuid, form: newTopicForm(account.places, teamUuid) });
  });

  app.post<{ Body: FormBody }>('/app/topics', formRoute(TopicFormSchema), async (request, reply) => {
    const team = field(request.body, 'team');
    if (team !== '') requireOwnTeam(request, team);
    return submitTopic(request, reply, null, team === '' ? null : team);
  });

  app.get<{ Params: { uuid: string }; Querystring: { done?: string } }>('/app/topics/:uuid', PAGE_ROUTE, async (request, reply) => {
    requireUuid(request.params.uuid);
    const topic = await getMeetingTopic(ctx, sessionOf(request).principal, request.params.uuid);
    const t = APP_STRINGS[frames.langOf(request, reply)];
    const flash = request.query.done === 'created' ? t.created : request.query.done === 'saved' ? t.saved : null;
    return topicPage(request, reply, { topic, teamUuid: topic.teamUuid, form: toTopicForm(topic), flash });
  });

  app.post<{ Params: { uuid: string }; Body: FormBody }>('/app/topics/:uuid', formRoute(TopicFormSchema), async (request, reply) => {
    requireUuid(request.params.uuid);
    const topic = await getMeetingTopic(ctx, sessionOf(request).principal, request.params.uuid);
    // A topic's team is chosen once: the one it has, whatever the form says.
    return submitTopic(request, reply, topic, topic.teamUuid);
  });
};

// ── Rendering ────────────────────────────────────────────────────────────────────────────

export interface TopicsView {
  topics: readonly MeetingTopic[];
  /** The public booking page of each topic the member hosts, by uuid. */
  links: ReadonlyMap<string, string>;
  flash: string | null;
}

function priceLabel(t: AppStrings, topic: MeetingTopic, locale: FormatLocale): string {
  return topic.price ? formatMoney(topic.price.amount, topic.price.currency, locale) : t.free;
}

export function renderTopicsPage(frame: AppFrame, view: TopicsView): SafeHtml {
  const t = APP_STRINGS[frame.lang];
  return renderPage(
    frame,
    t.topics,
    'topics',
    html`${notice(view.flash)}
<p><a class="primary" href="/app/topics/new">${t.newTopic}</a></p>
${frame.teams.map((team) => html`<p><a href="/app/topics/new?team=${team.uuid}">${TOPIC_STRINGS[frame.lang].newTeamTopic(team.name)}</a></p>`)}
${
  view.topics.length === 0
    ? html`<p>${t.noTopicsYet}</p>`
    : html`<ul class="topics">${view.topics.map((topic) => {
        const link = view.links.get(topic.uuid);
        return html`<li class="topic" id="t-${topic.uuid}">
<h2 id="h-${topic.uuid}">${topic.name}</h2>
<p class="facts">${topic.durationMinutes} ${t.minutes} · ${topic.places.map((place) => PLACE_LABELS[frame.lang][place]).join(', ')} · ${priceLabel(t, topic, frame.locale)}${topic.teamUuid ? ` · ${t.team}` : ''}</p>
${
  link
    ? html`<div class="field copy"><label for="link-${topic.uuid}">${t.publicLink}</label><input type="text" id="link-${topic.uuid}" value="${link}" readonly>
<button type="button" class="copy-link" data-copy="link-${topic.uuid}" hidden>${t.copyLink}</button> <a href="${link}">${link}</a></div>`
    : ''
}
<p><a href="/app/topics/${topic.uuid}" aria-describedby="h-${topic.uuid}">${t.edit}</a></p>
</li>`;
      })}</ul>`
}`,
  );
}
