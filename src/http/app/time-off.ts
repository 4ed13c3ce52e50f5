import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { ValidationError, type FieldError } from '../../domain/errors.js';
import { formatDateTime } from '../../domain/formats.js';
import { localToInstant, parseLocalDate } from '../../domain/time-zones.js';
import { parseLocalTime } from '../../domain/availability.js';
import { addTimeOff, listTimeOff, removeTimeOff, type TimeOffView } from '../../scheduling/topics/time-off.js';
import { type SafeHtml, html, sendHtml } from '../pages/html.js';
import { type FormProblems, NO_PROBLEMS, fieldProblem, formProblems, invalidAttributes, problemSummary } from './form-problems.js';
import { OptionalField, PAGE_ROUTE, TextField, field, formErrorsOf, formRoute, formSchema, requireValidForm, type FormBody } from './forms.js';
import { type AppFrame, type AppPageOptions, csrfField, notice, renderPage, requireUuid, seeOther, sessionOf } from './frame.js';
import { APP_STRINGS } from './strings.js';

const AddFormSchema = formSchema({ start: TextField, end: TextField, reason: OptionalField, delegate: OptionalField });
const ButtonFormSchema = formSchema({});
const FIELD_IDS: Record<string, string> = { '/start': 'f-start', '/end': 'f-end', '/reason': 'f-reason', '/delegate': 'f-delegate' };

/** `2027-01-12T09:00` (an `<input type="datetime-local">`) in `zone` → the instant; NaN when malformed. */
export function parseLocalDateTime(value: string, zone: string): number {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})$/.exec(value);
  if (!match) return Number.NaN;
  const day = parseLocalDate(match[1]!);
  const minutes = parseLocalTime(match[2]!);
  return Number.isNaN(day) || Number.isNaN(minutes) ? Number.NaN : localToInstant(zone, day, minutes);
}

/**
 * `/app/time-off` ("Time off"): the signed-in member's own time off, as
 * `POST|GET|DELETE /users/{uuid}/time-off` with the member as the caller. Times are entered
 * and shown on the member's clock; meetings already booked in a new span are listed after
 * adding it (they stay booked).
 */
export const timeOffPages: FastifyPluginAsync<AppPageOptions> = async (app, { ctx, frames }) => {
  async function timeOffPage(request: FastifyRequest, reply: FastifyReply, outcome: Partial<TimeOffPageView> & { status?: number } = {}) {
    const session = sessionOf(request);
    const entries = await listTimeOff(ctx, session.principal, session.user.uuid);
    const view: TimeOffPageView = {
      entries,
      timezone: session.user.timezone,
      flash: outcome.flash ?? null,
      conflicts: outcome.conflicts ?? null,
      values: outcome.values ?? { start: '', end: '', reason: '', delegate: '' },
      problems: outcome.problems ?? NO_PROBLEMS,
    };
    return sendHtml(reply, outcome.status ?? 200, renderTimeOffPage(frames.memberFrameOf(request, reply), view));
  }

  app.get<{ Querystring: { done?: string } }>('/app/time-off', PAGE_ROUTE, async (request, reply) => {
    const t = APP_STRINGS[frames.langOf(request, reply)];
    return timeOffPage(request, reply, { flash: request.query.done === 'removed' ? t.timeOff.removed : null });
  });

  app.post<{ Body: FormBody }>('/app/time-off', formRoute(AddFormSchema), async (request, reply) => {
    const t = APP_STRINGS[frames.langOf(request, reply)];
    const session = sessionOf(request);
    const values = {
      start: field(request.body, 'start'),
      end: field(request.body, 'end'),
      reason: field(request.body, 'reason'),
      delegate: field(request.body, 'delegate').trim(),
    };
    const errors: FieldError[] = formErrorsOf(request);
    const start = parseLocalDateTime(values.start, session.user.timezone);
    const end = parseLocalDateTime(values.end, session.user.timezone);
    if (Number.isNaN(start)) errors.push({ path: '/start', message: 'must be a date and time' });
    if (Number.isNaN(end)) errors.push({ path: '/end', message: 'must be a date and time' });
    try {
      if (errors.length > 0) throw new ValidationError(errors);
      const added = await addTimeOff(ctx, session.principal, session.user.uuid, { start, end, reason: values.reason, delegate: values.delegate || null });
      return timeOffPage(request, reply, { status: 201, flash: t.timeOff.added, conflicts: added.conflicts });
    } catch (error) {
      if (error instanceof ValidationError) {
        return timeOffPage(request, reply, {
          status: 400,
          values,
          problems: formProblems(t, error.errors ?? [], (path) => FIELD_IDS[path] ?? null, {
            'f-start': t.timeOff.startError,
            'f-end': t.timeOff.endError,
            'f-reason': t.timeOff.reasonError,
            'f-delegate': t.timeOff.delegateError,
          }),
        });
      }
      throw error;
    }
  });

  app.post<{ Params: { uuid: string }; Body: FormBody }>('/app/time-off/:uuid/remove', formRoute(ButtonFormSchema), async (request, reply) => {
    requireUuid(request.params.uuid);
    requireValidForm(request);
    const session = sessionOf(request);
    await removeTimeOff(ctx, session.principal, session.user.uuid, request.params.uuid);
    return seeOther(reply, '/app/time-off?done=removed');
  });
};

// ── Rendering ────────────────────────────────────────────────────────────────────────────

export interface TimeOffPageView {
  entries: readonly TimeOffView[];
  timezone: string;
  flash: string | null;
  /** After adding: the meetings already booked in the span (null: nothing was just added). */
  conflicts: readonly { uuid: string; start: number; end: number }[] | null;
  values: { start: string; end: string; reason: string; delegate: string };
  problems: FormProblems;
}

export function renderTimeOffPage(frame: AppFrame, view: TimeOffPageView): SafeHtml {
  const t = APP_STRINGS[frame.lang];
  const s = t.timeOff;
  const when = (instant: number) => formatDateTime(instant, view.timezone, frame.locale);
  const labels = { 'f-start': s.start, 'f-end': s.end, 'f-reason': s.reason, 'f-delegate': s.delegate };
  return renderPage(
    frame,
    s.title,
    'time-off',
    html`${notice(view.flash)}
${
  view.conflicts !== null && view.conflicts.length > 0
    ? html`<section class="notice" aria-labelledby="h-conflicts"><h2 id="h-conflicts">${s.conflicts}</h2>
<ul>${view.conflicts.map((meeting) => html`<li><a href="/app/meetings/${meeting.uuid}">${when(meeting.start)} – ${when(meeting.end)}</a></li>`)}</ul></section>`
    : ''
}
<p class="hint">${s.hint(view.timezone)}</p>
<section aria-labelledby="h-add-time-off"><h2 id="h-add-time-off">${s.add}</h2>
${problemSummary(t, view.problems, labels)}
<form method="post" action="/app/time-off" aria-labelledby="h-add-time-off">
${csrfField(frame)}
<div class="field"><label for="f-start">${s.start}</label><input type="datetime-local" id="f-start" name="start" value="${view.values.start}" required${invalidAttributes(view.problems, 'f-start')}>${fieldProblem(view.problems, 'f-start')}</div>
<div class="field"><label for="f-end">${s.end}</label><input type="datetime-local" id="f-end" name="end" value="${view.values.end}" required${invalidAttributes(view.problems, 'f-end')}>${fieldProblem(view.problems, 'f-end')}</div>
<div class="field"><label for="f-reason">${s.reason}</label><input type="text" id="f-reason" name="reason" value="${view.values.reason}" maxlength="500"${invalidAttributes(view.problems, 'f-reason')}>${fieldProblem(view.problems, 'f-reason')}</div>
<div class="field"><label for="f-delegate">${s.delegate}</label><input type="text" id="f-delegate" name="delegate" value="${view.values.delegate}" autocomplete="off" spellcheck="false"${invalidAttributes(view.problems, 'f-delegate', 'f-delegate-hint')}>
<p class="hint" id="f-delegate-hint">${s.delegateHint}</p>${fieldProblem(view.problems, 'f-delegate')}</div>
<p><button type="submit" class="primary">${s.add}</button></p>
</form>
</section>
<section aria-labelledby="h-time-off"><h2 id="h-time-off">${s.list}</h2>
${
  view.entries.length === 0
    ? html`<p>${s.none}</p>`
    : html`<ul class="topics">${view.entries.map(
        (entry) => html`<li class="topic" id="t-${entry.uuid}">
<h3 id="ht-${entry.uuid}">${when(entry.start)} – ${when(entry.end)}</h3>
<dl class="facts">
${entry.reason ? html`<dt>${s.reason}</dt><dd>${entry.reason}</dd>` : ''}
<dt>${s.delegate}</dt><dd>${entry.delegate ?? s.noDelegate}</dd>
</dl>
<form method="post" action="/app/time-off/${entry.uuid}/remove">${csrfField(frame)}<button type="submit" aria-describedby="ht-${entry.uuid}">${s.remove}</button></form>
</li>`,
      )}</ul>`
}
</section>`,
  );
}
