import type { FastifyPluginAsync } from 'fastify';
import { AUDIT_ACTIONS, type AuditAction, type AuditDetails, type AuditEvent, isAuditAction } from '../../domain/audit.js';
import type { FieldError } from '../../domain/errors.js';
import { formatDateTime } from '../../domain/formats.js';
import { localToInstant, parseLocalDate } from '../../domain/time-zones.js';
import { type AuditLogView, getAuditLog } from '../../scheduling/host-app/privacy.js';
import { type SafeHtml, html, sendHtml } from '../pages/html.js';
import { type FormProblems, NO_PROBLEMS, fieldProblem, formProblems, invalidAttributes, problemSummary } from './form-problems.js';
import { PAGE_ROUTE } from './forms.js';
import { type AppFrame, type AppPageOptions, renderPage, sessionOf } from './frame.js';
import { APP_STRINGS, type AppStrings } from './strings.js';

/** A page of the log: as many as `GET /audit-events` gives by default would be a long page on a phone. */
const AUDIT_PAGE_SIZE = 25;

/**
 * `/app/audit` ("Audit log", admins): `GET /audit-events` as a page, newest first, filtered by
 * action and by a date (from that day's midnight in the member's zone), a page at a time
 * ("Older" carries the API's cursor). A filter it cannot read comes back next to its field.
 */
export const auditPages: FastifyPluginAsync<AppPageOptions> = async (app, { ctx, frames }) => {
  app.get<{ Querystring: { action?: string; since?: string; cursor?: string } }>('/app/audit', PAGE_ROUTE, async (request, reply) => {
    const t = APP_STRINGS[frames.langOf(request, reply)];
    const session = sessionOf(request);
    const action = request.query.action?.trim() ?? '';
    const since = request.query.since?.trim() ?? '';
    const cursor = request.query.cursor?.trim() || undefined;
    const errors: FieldError[] = [];
    if (action !== '' && !isAuditAction(action)) errors.push({ path: '/action', message: 'must be an action of the log' });
    const sinceDay = since === '' ? null : parseLocalDate(since);
    if (sinceDay !== null && Number.isNaN(sinceDay)) errors.push({ path: '/since', message: 'must be a date' });
    const filter: AuditFilter = { action, since };
    if (errors.length > 0) {
      const problems = formProblems(t, errors, (path) => (path === '/action' ? 'f-audit-action' : path === '/since' ? 'f-audit-since' : null), {
        'f-audit-action': t.fieldInvalid,
        'f-audit-since': t.auditSinceError,
      });
      return sendHtml(reply, 400, renderAuditPage(frames.memberFrameOf(request, reply), { filter, log: null, timezone: session.user.timezone, problems, paged: false }));
    }
    const log = await getAuditLog(ctx, session.principal, {
      action: action === '' ? undefined : (action as AuditAction),
      since: sinceDay === null ? undefined : new Date(localToInstant(session.user.timezone, sinceDay, 0)).toISOString(),
      limit: AUDIT_PAGE_SIZE,
      cursor,
    });
    return sendHtml(
      reply,
      200,
      renderAuditPage(frames.memberFrameOf(request, reply), { filter, log, timezone: session.user.timezone, problems: NO_PROBLEMS, paged: cursor !== undefined }),
    );
  });
};

// ── Rendering ────────────────────────────────────────────────────────────────────────────

interface AuditFilter {
  action: string;
  since: string;
}

export interface AuditPageView {
  filter: AuditFilter;
  /** Null when the filter could not be read. */
  log: AuditLogView | null;
  timezone: string;
  problems: FormProblems;
  /** Showing an older page: a link back to the newest. */
  paged: boolean;
}

function who(t: AppStrings, event: AuditEvent, names: ReadonlyMap<string, string>): string {
  const { actor } = event;
  if (actor.type !== 'user') return t.auditActors[actor.type];
  const name = actor.userUuid === undefined ? undefined : names.get(actor.userUuid);
  return `${name ?? t.auditFormerMember} (${t.auditVia[actor.via]})`;
}

function detailsText(details: AuditDetails): string {
  return Object.entries(details)
    .map(([name, value]) => `${name}: ${Array.isArray(value) ? (value.length === 0 ? '—' : value.join(', ')) : String(value)}`)
    .join('; ');
}

function filterQuery(filter: AuditFilter, cursor: string | null): string {
  const query = new URLSearchParams();
  if (filter.action !== '') query.set('action', filter.action);
  if (filter.since !== '') query.set('since', filter.since);
  if (cursor !== null) query.set('cursor', cursor);
  const text = query.toString();
  return text === '' ? '/app/audit' : `/app/audit?${text}`;
}

export function renderAuditPage(frame: AppFrame, view: AuditPageView): SafeHtml {
  const t = APP_STRINGS[frame.lang];
  const { filter, log, problems } = view;
  return renderPage(
    frame,
    t.auditTitle,
    'audit',
    html`<p class="hint">${t.auditHint}</p>
${problemSummary(t, problems, { 'f-audit-action': t.auditAction, 'f-audit-since': t.auditSince })}
<form method="get" action="/app/audit" class="audit-filter">
<div class="hours-row">
<div class="field"><label for="f-audit-action">${t.auditAction}</label><select id="f-audit-action" name="action"${invalidAttributes(problems, 'f-audit-action')}>
<option value="">${t.auditAnyAction}</option>
${AUDIT_ACTIONS.map((action) => html`<option value="${action}"${action === filter.action ? html` selected` : ''}>${t.auditActions[action]}</option>`)}
</select>${fieldProblem(problems, 'f-audit-action')}</div>
<div class="field"><label for="f-audit-since">${t.auditSince}</label><input type="date" id="f-audit-since" name="since" value="${filter.since}"${invalidAttributes(problems, 'f-audit-since')}>${fieldProblem(problems, 'f-audit-since')}</div>
</div>
<p><button type="submit">${t.auditFilter}</button></p>
</form>
${
  log === null
    ? ''
    : log.page.items.length === 0
      ? html`<p>${t.auditNothing}</p>`
      : html`<ol class="topics audit-events">${log.page.items.map(
          (event) => html`<li class="topic audit-event" id="a-${event.uuid}" data-action="${event.action}">
<h2 class="audit-action">${t.auditActions[event.action]}</h2>
<p><time datetime="${new Date(event.at).toISOString()}">${formatDateTime(event.at, view.timezone, frame.locale)}</time></p>
<dl class="stacked">
<dt>${t.auditWho}</dt><dd class="audit-who">${who(t, event, log.memberNames)}</dd>
<dt>${t.auditWhat}</dt><dd>${t.auditTargets[event.target.type]} <code>${event.target.uuid}</code></dd>
</dl>
${Object.keys(event.details).length > 0 ? html`<p class="hint audit-details"><small>${detailsText(event.details)}</small></p>` : ''}
</li>`,
        )}</ol>`
}
<p class="paging">${view.paged ? html`<a href="${filterQuery(filter, null)}">${t.auditNewest}</a> ` : ''}${
      log?.page.nextCursor ? html`<a href="${filterQuery(filter, log.page.nextCursor)}" rel="next">${t.older}</a>` : ''
    }</p>`,
  );
}
