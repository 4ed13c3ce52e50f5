import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { type DomainError, UsernameTakenError, ValidationError } from '../../domain/errors.js';
import type { Meeting } from '../../domain/meeting.js';
import type { MeetingTopic } from '../../domain/meeting-topic.js';
import type { Team } from '../../domain/team.js';
import type { Member } from '../../domain/user.js';
import { getTeamOverview } from '../../scheduling/host-app/overview.js';
import { getTeamMember, updateTeamMember } from '../../scheduling/account/members.js';
import { updateUserProfile } from '../../scheduling/account/profile.js';
import { addTeamMember, removeTeamMember } from '../../scheduling/account/teams.js';
import { type SafeHtml, html, sendHtml } from '../pages/html.js';
import { PROBLEM_KINDS } from '../problems.js';
import { Checkbox, OptionalField, PAGE_ROUTE, TextField, field, formRoute, formSchema, isCorrectable, requireValidForm, type FormBody } from './forms.js';
import { type AppFrame, type AppPageOptions, csrfField, notice, renderPage, requireUuid, seeOther, sessionOf } from './frame.js';
import { APP_STRINGS, type AppStrings } from './strings.js';
import { renderMeetingItem } from './upcoming.js';

/** Adding a member: names and address (blank ones are refused on the page), and the admin flag. */
const AddMemberFormSchema = formSchema({ firstName: TextField, lastName: TextField, email: TextField, admin: Checkbox });
/** Editing one: names and the admin flag (an unticked box takes it away). */
const EditMemberFormSchema = formSchema({ firstName: TextField, lastName: TextField, username: OptionalField, admin: Checkbox });
const RemoveMemberFormSchema = formSchema({});

const NO_ADDITION = { firstName: '', lastName: '', email: '', admin: false };

/** A team's page, for its admins only (the use cases refuse anyone else): members, team topics, everyone's meetings. */
export const teamPages: FastifyPluginAsync<AppPageOptions> = async (app, { ctx, frames }) => {
  async function teamPage(
    request: FastifyRequest<{ Params: { teamUuid: string } }>,
    reply: FastifyReply,
    outcome: { flash?: string | null; error?: DomainError; errorText?: string; added?: typeof NO_ADDITION } = {},
  ) {
    requireUuid(request.params.teamUuid);
    const session = sessionOf(request);
    const overview = await getTeamOverview(ctx, session.principal, request.params.teamUuid);
    const view = {
      ...overview,
      selfUuid: session.user.uuid,
      timezone: session.user.timezone,
      flash: outcome.flash ?? null,
      error: outcome.errorText ?? outcome.error?.message ?? null,
      added: outcome.added ?? NO_ADDITION,
    };
    return sendHtml(reply, outcome.error ? PROBLEM_KINDS[outcome.error.code].status : 200, renderTeamPage(frames.memberFrameOf(request, reply), view));
  }

  app.get<{ Params: { teamUuid: string }; Querystring: { done?: string } }>('/app/team/:teamUuid', PAGE_ROUTE, async (request, reply) => {
    const t = APP_STRINGS[frames.langOf(request, reply)];
    const done = request.query.done;
    const flash = done === 'added' ? t.memberAdded : done === 'saved' ? t.memberSaved : done === 'removed' ? t.memberRemoved : null;
    return teamPage(request, reply, { flash });
  });

  app.post<{ Params: { teamUuid: string }; Body: FormBody }>('/app/team/:teamUuid/members', formRoute(AddMemberFormSchema), async (request, reply) => {
    requireUuid(request.params.teamUuid);
    const body = request.body;
    const added = {
      firstName: field(body, 'firstName').trim(),
      lastName: field(body, 'lastName').trim(),
      email: field(body, 'email').trim(),
      admin: field(body, 'admin') === 'on',
    };
    try {
      requireValidForm(request);
      const missing = (['firstName', 'lastName', 'email'] as const).filter((name) => added[name] === '').map((name) => ({ path: `/${name}`, message: 'is required' }));
      if (missing.length > 0 || !/^[^\s@]+@[^\s@]+$/.test(added.email)) {
        throw new ValidationError(missing.length > 0 ? missing : [{ path: '/email', message: 'must be an e-mail address' }]);
      }
      await addTeamMember(ctx, sessionOf(request).principal, request.params.teamUuid, added, { lang: frames.langOf(request, reply) });
    } catch (error) {
      if (isCorrectable(error)) return teamPage(request, reply, { error, added });
      throw error;
    }
    return seeOther(reply, `/app/team/${request.params.teamUuid}?done=added`);
  });

  app.post<{ Params: { teamUuid: string; userUuid: string }; Body: FormBody }>('/app/team/:teamUuid/members/:userUuid', formRoute(EditMemberFormSchema), async (request, reply) => {
    requireUuid(request.params.teamUuid);
    requireUuid(request.params.userUuid);
    const body = request.body;
    try {
      requireValidForm(request);
      const principal = sessionOf(request).principal;
      const current = await getTeamMember(ctx, principal, request.params.teamUuid, request.params.userUuid);
      // Only what changed is sent: an unchanged name is no rename (which only the owner may do to the owner).
      const firstName = field(body, 'firstName').trim();
      const lastName = field(body, 'lastName').trim();
      const empty = [firstName === '' ? '/firstName' : null, lastName === '' ? '/lastName' : null].filter((path) => path !== null);
      if (empty.length > 0) throw new ValidationError(empty.map((path) => ({ path, message: 'must not be empty' })));
      // The username (the member's booking links) through the same use case as PATCH /users/{userUuid}; the old links redirect.
      const username = field(body, 'username').trim();
      if (username !== '' && username !== current.username) await updateUserProfile(ctx, principal, current.uuid, { username });
      await updateTeamMember(ctx, principal, request.params.teamUuid, request.params.userUuid, {
        firstName: firstName === current.firstName ? undefined : firstName,
        lastName: lastName === current.lastName ? undefined : lastName,
        admin: field(body, 'admin') === 'on',
      });
    } catch (error) {
      if (isCorrectable(error)) return teamPage(request, reply, { error, errorText: usernameErrorText(APP_STRINGS[frames.langOf(request, reply)], error) });
      throw error;
    }
    return seeOther(reply, `/app/team/${request.params.teamUuid}?done=saved`);
  });

  app.post<{ Params: { teamUuid: string; userUuid: string }; Body: FormBody }>(
    '/app/team/:teamUuid/members/:userUuid/remove',
    formRoute(RemoveMemberFormSchema),
    async (request, reply) => {
      requireUuid(request.params.teamUuid);
      requireUuid(request.params.userUuid);
      try {
        requireValidForm(request);
        await removeTeamMember(ctx, sessionOf(request).principal, request.params.teamUuid, request.params.userUuid);
      } catch (error) {
        if (isCorrectable(error)) return teamPage(request, reply, { error });
        throw error;
      }
      return seeOther(reply, `/app/team/${request.params.teamUuid}?done=removed`);
    },
  );
};

/** A refused username in the page's words (the rest of the page's refusals show as the use case words them). */
function usernameErrorText(t: AppStrings, error: DomainError): string | undefined {
  if (error instanceof UsernameTakenError) return t.err_usernameTaken;
  const username = error instanceof ValidationError ? error.errors?.find((one) => one.path === '/username') : undefined;
  if (!username) return undefined;
  if (username.message.startsWith('must be 1 to')) return t.err_usernameLength;
  return username.message.startsWith('is reserved') ? t.err_usernameReserved : t.err_usernameFormat;
}

// ── Rendering ────────────────────────────────────────────────────────────────────────────

export interface TeamView {
  team: Team;
  members: readonly Member[];
  topics: readonly MeetingTopic[];
  upcoming: { meetings: readonly Meeting[]; topicNames: ReadonlyMap<string, string> };
  /** The signed-in admin's own uuid, marked in the list. */
  selfUuid: string;
  timezone: string;
  flash: string | null;
  error: string | null;
  /** The add form as sent, when it failed. */
  added: { firstName: string; lastName: string; email: string; admin: boolean };
}

export function renderTeamPage(frame: AppFrame, view: TeamView): SafeHtml {
  const t = APP_STRINGS[frame.lang];
  const base = `/app/team/${view.team.uuid}`;
  const hostNames = new Map(view.members.map((member) => [member.uuid, `${member.firstName} ${member.lastName}`]));
  return renderPage(
    frame,
    `${t.teamNav}: ${view.team.name}`,
    `team:${view.team.uuid}`,
    html`${notice(view.flash)}${view.error ? html`<div class="alert" role="alert">${view.error}</div>` : ''}
<section aria-labelledby="h-members"><h2 id="h-members">${t.members}</h2>
<ul class="members">
${view.members.map((member) => {
  const id = member.uuid;
  const name = `${member.firstName} ${member.lastName}`;
  return html`<li class="member" id="u-${id}">
<h3 id="hu-${id}">${name} ${id === view.selfUuid ? t.you : ''}</h3>
<p class="facts">${member.email} · ${member.username}</p>
<form method="post" action="${base}/members/${id}" class="member-form">
${csrfField(frame)}
<div class="hours-row">
<label>${t.firstName}<input type="text" name="firstName" value="${member.firstName}" maxlength="100" required aria-describedby="hu-${id}"></label>
<label>${t.lastName}<input type="text" name="lastName" value="${member.lastName}" maxlength="100" required aria-describedby="hu-${id}"></label>
<label>${t.username}<input type="text" name="username" value="${member.username}" maxlength="64" required spellcheck="false" autocapitalize="none" aria-describedby="hu-${id}"></label>
<label class="choice"><input type="checkbox" name="admin" value="on"${member.admin ? html` checked` : ''} aria-describedby="hu-${id}"> ${t.admin}</label>
<button type="submit" aria-describedby="hu-${id}">${t.saveMember}</button>
</div>
</form>
<form method="post" action="${base}/members/${id}/remove">${csrfField(frame)}<button type="submit" class="link" aria-describedby="hu-${id}">${t.removeMember}</button></form>
</li>`;
})}
</ul>
<h3 id="h-add">${t.addMember}</h3>
<form method="post" action="${base}/members" aria-labelledby="h-add">
${csrfField(frame)}
<div class="hours-row">
<label>${t.firstName}<input type="text" name="firstName" value="${view.added.firstName}" maxlength="100" required></label>
<label>${t.lastName}<input type="text" name="lastName" value="${view.added.lastName}" maxlength="100" required></label>
<label>${t.email}<input type="email" name="email" value="${view.added.email}" maxlength="320" required></label>
<label class="choice"><input type="checkbox" name="admin" value="on"${view.added.admin ? html` checked` : ''}> ${t.admin}</label>
</div>
<p><button type="submit" class="primary">${t.addMember}</button></p>
</form>
</section>
<section aria-labelledby="h-team-topics"><h2 id="h-team-topics">${t.teamTopics}</h2>
${
  view.topics.length === 0
    ? html`<p>${t.noTeamTopics}</p>`
    : html`<ul>${view.topics.map((topic) => html`<li><a href="/app/topics/${topic.uuid}">${topic.name}</a> (${topic.durationMinutes} ${t.minutes})</li>`)}</ul>`
}
</section>
<section aria-labelledby="h-team-upcoming"><h2 id="h-team-upcoming">${t.everyonesUpcoming}</h2>
${
  view.upcoming.meetings.length === 0
    ? html`<p>${t.noUpcoming}</p>`
    : html`<ul class="meetings">${view.upcoming.meetings.map((meeting) =>
        renderMeetingItem(frame, t, meeting, view.upcoming.topicNames.get(meeting.topicUuid) ?? '—', view.timezone, hostNames.get(meeting.hostUuid) ?? meeting.hostUsername),
      )}</ul>`
}
</section>
<section aria-labelledby="h-team-privacy"><h2 id="h-team-privacy">${t.privacyLinks}</h2>
<ul><li><a href="/app/participants">${t.participantsTitle}</a></li><li><a href="/app/audit">${t.auditTitle}</a></li></ul>
</section>`,
  );
}
