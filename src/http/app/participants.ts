import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { type FieldError, ValidationError } from '../../domain/errors.js';
import { formatDateTime, formatMoney, formatRange } from '../../domain/formats.js';
import { exportParticipantForApp, type ParticipantExportView } from '../../scheduling/host-app/privacy.js';
import { eraseParticipant, exportParticipant } from '../../scheduling/participants/participants.js';
import { type SafeHtml, html, sendHtml } from '../pages/html.js';
import { exportToJson } from '../representations.js';
import { type FormProblems, NO_PROBLEMS, fieldProblem, formProblems, invalidAttributes, problemSummary } from './form-problems.js';
import { Checkbox, OptionalField, PAGE_ROUTE, TextField, field, formErrorsOf, formRoute, formSchema, type FormBody } from './forms.js';
import { type AppFrame, type AppPageOptions, csrfField, notice, renderPage, sessionOf } from './frame.js';
import { APP_STRINGS, type AppStrings } from './strings.js';

const EmailFormSchema = formSchema({ email: TextField });
const EraseFormSchema = formSchema({ email: TextField, confirm: OptionalField, understand: Checkbox });

/**
 * `/app/participants` ("Participants' data", admins): a participant's data exported (shown, or
 * downloaded as `POST /participants/export` answers it) and erased, by the same use cases as the
 * API with the member as the caller. The e-mail travels in form bodies only, never in a URL
 * (URLs are logged), and every answer is `Cache-Control: no-store` (sendHtml; the download too).
 * Erasing asks for the address typed twice and a ticked box: it cannot be undone.
 */
export const participantPages: FastifyPluginAsync<AppPageOptions> = async (app, { ctx, frames }) => {
  function page(request: FastifyRequest, reply: FastifyReply, view: Partial<ParticipantsView> & { status?: number } = {}) {
    const full: ParticipantsView = {
      email: view.email ?? '',
      exported: view.exported ?? null,
      erased: view.erased ?? null,
      timezone: sessionOf(request).user.timezone,
      exportProblems: view.exportProblems ?? NO_PROBLEMS,
      eraseProblems: view.eraseProblems ?? NO_PROBLEMS,
    };
    return sendHtml(reply, view.status ?? 200, renderParticipantsPage(frames.memberFrameOf(request, reply), full));
  }

  function exportProblemsOf(t: AppStrings, error: ValidationError): FormProblems {
    return formProblems(t, error.errors ?? [], (path) => (path === '/email' ? 'f-pd-email' : null), { 'f-pd-email': t.participantEmailError });
  }

  app.get('/app/participants', PAGE_ROUTE, async (request, reply) => page(request, reply));

  app.post<{ Body: FormBody }>('/app/participants/export', formRoute(EmailFormSchema), async (request, reply) => {
    const t = APP_STRINGS[frames.langOf(request, reply)];
    const email = field(request.body, 'email').trim();
    try {
      const errors: FieldError[] = formErrorsOf(request);
      if (errors.length > 0) throw new ValidationError(errors);
      const exported = await exportParticipantForApp(ctx, sessionOf(request).principal, email);
      return page(request, reply, { email: exported.data.email, exported });
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return page(request, reply, { status: 400, email, exportProblems: exportProblemsOf(t, error) });
    }
  });

  // The export as a file: the API's body, as an attachment (a POST, so the address stays out of the URL).
  app.post<{ Body: FormBody }>('/app/participants/export.json', formRoute(EmailFormSchema), async (request, reply) => {
    const t = APP_STRINGS[frames.langOf(request, reply)];
    const email = field(request.body, 'email').trim();
    try {
      const errors: FieldError[] = formErrorsOf(request);
      if (errors.length > 0) throw new ValidationError(errors);
      const exported = exportToJson(await exportParticipant(ctx, sessionOf(request).principal, email));
      return reply
        .code(200)
        .type('application/json; charset=utf-8')
        .header('content-disposition', `attachment; filename="participant-export-${new Date(ctx.now()).toISOString().slice(0, 10)}.json"`)
        .header('cache-control', 'no-store')
        .header('x-content-type-options', 'nosniff')
        .send(JSON.stringify(exported, null, 2));
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return page(request, reply, { status: 400, email, exportProblems: exportProblemsOf(t, error) });
    }
  });

  app.post<{ Body: FormBody }>('/app/participants/erase', formRoute(EraseFormSchema), async (request, reply) => {
    const t = APP_STRINGS[frames.langOf(request, reply)];
    const email = field(request.body, 'email').trim();
    const confirm = field(request.body, 'confirm').trim();
    try {
      const errors: FieldError[] = formErrorsOf(request);
      if (email === '') errors.push({ path: '/email', message: 'must be an e-mail address' });
      else if (confirm.toLowerCase() !== email.toLowerCase()) errors.push({ path: '/confirm', message: 'must repeat the e-mail' });
      if (field(request.body, 'understand') !== 'on') errors.push({ path: '/understand', message: 'must be ticked' });
      if (errors.length > 0) throw new ValidationError(errors);
      const result = await eraseParticipant(ctx, sessionOf(request).principal, email);
      return page(request, reply, { erased: result.erased.length });
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      const ids: Record<string, string> = { '/email': 'f-pe-email', '/confirm': 'f-pe-confirm', '/understand': 'f-pe-understand' };
      const eraseProblems = formProblems(t, error.errors ?? [], (path) => ids[path] ?? null, {
        'f-pe-email': t.participantEmailError,
        'f-pe-confirm': t.eraseConfirmError,
        'f-pe-understand': t.eraseUnderstandError,
      });
      return page(request, reply, { status: 400, email, eraseProblems });
    }
  });
};

// ── Rendering ────────────────────────────────────────────────────────────────────────────

export interface ParticipantsView {
  /** The address as typed (or as exported), to fill the forms again. */
  email: string;
  exported: ParticipantExportView | null;
  /** How many meetings the erasure just erased. */
  erased: number | null;
  /** The member's zone, for the meetings' times. */
  timezone: string;
  exportProblems: FormProblems;
  eraseProblems: FormProblems;
}

function renderAnswer(t: AppStrings, value: unknown): string {
  if (typeof value === 'boolean') return value ? t.yes : t.no;
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  return JSON.stringify(value);
}

function renderExport(frame: AppFrame, t: AppStrings, view: ParticipantsView, exported: ParticipantExportView): SafeHtml {
  const { data } = exported;
  const when = (instant: number) => formatDateTime(instant, view.timezone, frame.locale);
  return html`<section aria-labelledby="h-pd-result" id="export-result"><h2 id="h-pd-result">${t.exportOf(data.email)}</h2>
${data.meetings.length === 0 ? html`<p>${t.exportNothing}</p>` : html`<p>${t.exportCount(data.meetings.length)}</p>`}
<ul class="topics exported">${data.meetings.map(({ meeting, payment, messages }) => {
    const answers = Object.entries(meeting.form);
    return html`<li class="topic" id="m-${meeting.uuid}">
<h3>${formatRange(meeting.start, meeting.end, view.timezone, frame.locale)}</h3>
<dl class="stacked">
<dt>${t.topic}</dt><dd>${exported.topicNames.get(meeting.topicUuid) ?? '—'}</dd>
<dt>${t.status}</dt><dd class="status">${t[`status_${meeting.status}`]}</dd>
<dt>${t.host}</dt><dd>${meeting.hostUsername}</dd>
<dt>${t.participantName}</dt><dd>${meeting.participant.name}</dd>
${meeting.participant.phone ? html`<dt>${t.phone}</dt><dd>${meeting.participant.phone}</dd>` : ''}
<dt>${t.answers}</dt><dd>${answers.length === 0 ? t.noAnswers : html`<ul>${answers.map(([name, value]) => html`<li>${name}: ${renderAnswer(t, value)}</li>`)}</ul>`}</dd>
<dt>${t.payment}</dt><dd>${
      payment
        ? html`${formatMoney(payment.amount, payment.currency, frame.locale)}, ${t[`paymentStatus_${payment.status}`]}${payment.paidAt !== null ? html` (${when(payment.paidAt)})` : ''}`
        : t.noPayment
    }</dd>
<dt>${t.sentMessages}</dt><dd>${
      messages.length === 0
        ? t.noMessages
        : html`<ul>${messages.map((message) => html`<li>${when(message.sentAt)}: ${t.messageKinds[message.kind] ?? message.kind} (${t[`channel_${message.channel}`]})</li>`)}</ul>`
    }</dd>
</dl>
</li>`;
  })}</ul>
<form method="post" action="/app/participants/export.json">
${csrfField(frame)}<input type="hidden" name="email" value="${data.email}">
<p><button type="submit" aria-describedby="pd-download-hint">${t.downloadJson}</button></p>
<p class="hint" id="pd-download-hint">${t.downloadJsonHint}</p>
</form>
</section>`;
}

export function renderParticipantsPage(frame: AppFrame, view: ParticipantsView): SafeHtml {
  const t = APP_STRINGS[frame.lang];
  const exportLabels = { 'f-pd-email': t.email };
  const eraseLabels = { 'f-pe-email': t.email, 'f-pe-confirm': t.eraseConfirm, 'f-pe-understand': t.eraseUnderstand };
  const { eraseProblems, exportProblems } = view;
  return renderPage(
    frame,
    t.participantsTitle,
    'participants',
    html`${notice(view.erased === null ? null : t.erasedCount(view.erased))}
<p class="hint">${t.participantsHint}</p>
<section aria-labelledby="h-pd-export"><h2 id="h-pd-export">${t.exportTitle}</h2>
${problemSummary(t, exportProblems, exportLabels)}
<form method="post" action="/app/participants/export" aria-labelledby="h-pd-export">
${csrfField(frame)}
<div class="field"><label for="f-pd-email">${t.email}</label><input type="email" id="f-pd-email" name="email" value="${view.email}" required maxlength="320" autocomplete="off"${invalidAttributes(exportProblems, 'f-pd-email', 'f-pd-email-hint')}>
<p class="hint" id="f-pd-email-hint">${t.exportHint}</p>${fieldProblem(exportProblems, 'f-pd-email')}</div>
<p><button type="submit" class="primary">${t.exportButton}</button></p>
</form>
</section>
${view.exported ? renderExport(frame, t, view, view.exported) : ''}
<section aria-labelledby="h-pd-erase"><h2 id="h-pd-erase">${t.eraseTitle}</h2>
<p class="alert" role="note" id="pd-erase-hint">${t.eraseHint}</p>
${problemSummary(t, eraseProblems, eraseLabels)}
<form method="post" action="/app/participants/erase" aria-labelledby="h-pd-erase">
${csrfField(frame)}
<div class="field"><label for="f-pe-email">${t.email}</label><input type="email" id="f-pe-email" name="email" value="${view.email}" required maxlength="320" autocomplete="off"${invalidAttributes(eraseProblems, 'f-pe-email')}>${fieldProblem(eraseProblems, 'f-pe-email')}</div>
<div class="field"><label for="f-pe-confirm">${t.eraseConfirm}</label><input type="email" id="f-pe-confirm" name="confirm" value="" required maxlength="320" autocomplete="off"${invalidAttributes(eraseProblems, 'f-pe-confirm')}>${fieldProblem(eraseProblems, 'f-pe-confirm')}</div>
<div class="field"><label class="choice"><input type="checkbox" id="f-pe-understand" name="understand" value="on" required${invalidAttributes(eraseProblems, 'f-pe-understand')}> ${t.eraseUnderstand}</label>${fieldProblem(eraseProblems, 'f-pe-understand')}</div>
<p><button type="submit" class="primary" aria-describedby="pd-erase-hint">${t.eraseButton}</button></p>
</form>
</section>`,
  );
}
