import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { DomainError } from '../../domain/errors.js';
import { formatDateTime, formatMoney, formatRange } from '../../domain/formats.js';
import type { Lang, Meeting } from '../../domain/meeting.js';
import { PLACE_LABELS } from '../../i18n/place-labels.js';
import { getMeetingDetails, listPastOfHost, type MeetingDetails, type MeetingHistoryEntry } from '../../scheduling/host-app/meeting-page.js';
import { approveMeeting, declineMeeting } from '../../scheduling/meetings/approval.js';
import { cancelMeeting } from '../../scheduling/meetings/meetings.js';
import { setNoShow } from '../../scheduling/meetings/no-show.js';
import { type SafeHtml, html, sendHtml } from '../pages/html.js';
import { PROBLEM_KINDS } from '../problems.js';
import { OptionalField, PAGE_ROUTE, field, formRoute, formSchema, isCorrectable, requireValidForm, type FormBody } from './forms.js';
import { type AppFrame, type AppPageOptions, csrfField, notice, renderPage, requireUuid, seeOther, sessionOf } from './frame.js';
import { APP_STRINGS, type AppStrings } from './strings.js';

/**
 * Where a meeting's form sends the browser back to: the meeting's page (`back=meeting`), else
 * Upcoming, where its row was.
 */
const BackField = Type.Optional(Type.Literal('meeting'));
/** Cancel and decline take an optional reason for the participant; approve takes nothing but the token. */
const ReasonFormSchema = formSchema({ reason: OptionalField, back: BackField });
const ApproveFormSchema = formSchema({ back: BackField });
/** Who did not come; `none` clears it (DELETE …/no-show in the API). */
const NoShowFormSchema = formSchema({ who: Type.Union([Type.Literal('participant'), Type.Literal('host'), Type.Literal('none')]) });

type MeetingAction = 'cancel' | 'approve' | 'decline' | 'no-show';

/** What `?done=` on a meeting's page may say happened. */
type Done = 'cancelled' | 'approved' | 'declined' | 'no-show-marked' | 'no-show-cleared';
const DONE: readonly string[] = ['cancelled', 'approved', 'declined', 'no-show-marked', 'no-show-cleared'] satisfies Done[];

/** An action the use case refused, for the page to say in its language. */
interface Refusal {
  action: MeetingAction;
  code: DomainError['code'];
}

/**
 * A meeting's own page (`/app/meetings/{uuid}`), the member's past meetings (`/app/past`), and
 * the actions on one meeting, from its page or from its row in Upcoming: cancel, approve,
 * decline, no-show, each the API's use case with the member as the caller. A refusal the member
 * can act on (a request decided meanwhile, a no-show before the start) comes back on the
 * meeting's page in the page's language; a meeting the member may not manage is not found.
 */
export const meetingPages: FastifyPluginAsync<AppPageOptions> = async (app, { ctx, frames }) => {
  app.get<{ Querystring: { cursor?: string; lang?: string } }>('/app/past', PAGE_ROUTE, async (request, reply) => {
    const session = sessionOf(request);
    const cursor = request.query.cursor;
    const past = await listPastOfHost(ctx, session.principal, { cursor: cursor === '' ? undefined : cursor });
    return sendHtml(reply, 200, renderPastPage(frames.memberFrameOf(request, reply), { ...past, timezone: session.user.timezone, paged: cursor !== undefined }));
  });

  async function meetingPage(request: FastifyRequest<{ Params: { uuid: string } }>, reply: FastifyReply, outcome: { done: Done | null; refusal: Refusal | null; status: number }) {
    requireUuid(request.params.uuid);
    const session = sessionOf(request);
    // After a refusal, the meeting as it is now: the message reads against what the member sees.
    const details = await getMeetingDetails(ctx, session.principal, request.params.uuid);
    const view: MeetingPageView = { ...details, timezone: session.user.timezone, now: ctx.now(), done: outcome.done, refusal: outcome.refusal };
    return sendHtml(reply, outcome.status, renderMeetingPage(frames.memberFrameOf(request, reply), view));
  }

  app.get<{ Params: { uuid: string }; Querystring: { done?: string; lang?: string } }>('/app/meetings/:uuid', PAGE_ROUTE, async (request, reply) => {
    const done = request.query.done;
    return meetingPage(request, reply, { done: done !== undefined && DONE.includes(done) ? (done as Done) : null, refusal: null, status: 200 });
  });

  /** Runs one action; done, the browser goes back where the form was, with `done` saying what happened. */
  async function act(request: FastifyRequest<{ Params: { uuid: string }; Body: FormBody }>, reply: FastifyReply, action: MeetingAction, run: () => Promise<Done>) {
    requireUuid(request.params.uuid);
    let done: Done;
    try {
      requireValidForm(request);
      done = await run();
    } catch (error) {
      if (!isCorrectable(error)) throw error;
      return meetingPage(request, reply, { done: null, refusal: { action, code: error.code }, status: PROBLEM_KINDS[error.code].status });
    }
    const back = field(request.body, 'back') === 'meeting' || action === 'no-show';
    return seeOther(reply, back ? `/app/meetings/${request.params.uuid}?done=${done}` : `/app?done=${done}`);
  }

  const reasonOf = (body: FormBody) => field(body, 'reason').slice(0, 2000);

  app.post<{ Params: { uuid: string }; Body: FormBody }>('/app/meetings/:uuid/cancel', formRoute(ReasonFormSchema), async (request, reply) =>
    act(request, reply, 'cancel', async () => {
      await cancelMeeting(ctx, sessionOf(request).principal, request.params.uuid, reasonOf(request.body));
      return 'cancelled';
    }),
  );

  // A request awaiting approval: the same use cases as POST /meetings/{uuid}/approve and …/decline.
  app.post<{ Params: { uuid: string }; Body: FormBody }>('/app/meetings/:uuid/approve', formRoute(ApproveFormSchema), async (request, reply) =>
    act(request, reply, 'approve', async () => {
      await approveMeeting(ctx, sessionOf(request).principal, request.params.uuid);
      return 'approved';
    }),
  );

  app.post<{ Params: { uuid: string }; Body: FormBody }>('/app/meetings/:uuid/decline', formRoute(ReasonFormSchema), async (request, reply) =>
    act(request, reply, 'decline', async () => {
      await declineMeeting(ctx, sessionOf(request).principal, request.params.uuid, reasonOf(request.body));
      return 'declined';
    }),
  );

  // POST /meetings/{uuid}/no-show and its DELETE, as one form: who did not come, or nobody.
  app.post<{ Params: { uuid: string }; Body: FormBody }>('/app/meetings/:uuid/no-show', formRoute(NoShowFormSchema), async (request, reply) =>
    act(request, reply, 'no-show', async () => {
      const who = field(request.body, 'who');
      await setNoShow(ctx, sessionOf(request).principal, request.params.uuid, who === 'participant' || who === 'host' ? who : null);
      return who === 'none' ? 'no-show-cleared' : 'no-show-marked';
    }),
  );
};

/**
 * A refusal in the member's words, never the API's code or English detail: what the action
 * could not do given the meeting as it is now.
 */
export function refusalText(t: AppStrings, refusal: Refusal, meeting: Meeting, now: number): string {
  if (refusal.code === 'VALIDATION_FAILED') return t.error_invalidForm;
  if (refusal.code === 'MEETING_STATE_CONFLICT') {
    if (refusal.action === 'no-show') return meeting.start > now ? t.error_noShowTooEarly : t.error_noShowNotConfirmed;
    if (refusal.action === 'approve' || refusal.action === 'decline') return t.error_requestNotOpen;
  }
  if (refusal.code === 'SLOT_UNAVAILABLE') return t.error_slotTaken;
  return t.error_refused;
}

function doneText(t: AppStrings, done: Done): string {
  const texts: Record<Done, string> = {
    cancelled: t.cancelled,
    approved: t.approved,
    declined: t.declined,
    'no-show-marked': t.noShowMarked,
    'no-show-cleared': t.noShowCleared,
  };
  return texts[done];
}

// ── Rendering ────────────────────────────────────────────────────────────────────────────

/** `tel:` wants the number without its spaces and dashes: "+48 601 333 444" → "tel:+48601333444". */
export function telHref(phone: string): string {
  return `tel:${phone.replace(/[^\d+]/g, '')}`;
}

function placeDetails(lang: Lang, t: AppStrings, meeting: Meeting): SafeHtml {
  const { url, address, phone } = meeting.location;
  return html`${PLACE_LABELS[lang][meeting.place]}${url ? html`<br><a href="${url}" rel="noopener" target="_blank">${t.join}</a> <span class="url">${url}</span>` : ''}${
    address ? html`<br>${address}` : ''
  }${phone && !url ? html`<br><a href="${telHref(phone)}">${phone}</a>` : ''}`;
}

export interface PastView {
  meetings: readonly Meeting[];
  topicNames: ReadonlyMap<string, string>;
  nextCursor: string | null;
  timezone: string;
  /** Showing an older page: a link back to the newest. */
  paged: boolean;
}

export function renderPastPage(frame: AppFrame, view: PastView): SafeHtml {
  const t = APP_STRINGS[frame.lang];
  const rows = view.meetings.map(
    (meeting) => html`<li class="meeting" id="m-${meeting.uuid}">
<h2 id="h-${meeting.uuid}"><a href="/app/meetings/${meeting.uuid}">${formatRange(meeting.start, meeting.end, view.timezone, frame.locale)}</a></h2>
<dl class="summary">
<dt>${t.topic}</dt><dd>${view.topicNames.get(meeting.topicUuid) ?? '—'}</dd>
<dt>${t.participant}</dt><dd class="participant">${meeting.participant.name}</dd>
<dt>${t.status}</dt><dd class="status">${meeting.noShow ? t[`noShow_${meeting.noShow}`] : t[`status_${meeting.status}`]}</dd>
</dl>
</li>`,
  );
  return renderPage(
    frame,
    t.past,
    'past',
    html`${view.meetings.length === 0 ? html`<p id="no-past">${t.noPast}</p>` : html`<ul class="meetings">${rows}</ul>`}
<p class="week-nav">${view.paged ? html`<a href="/app/past">${t.newest}</a> ` : ''}${
      view.nextCursor ? html`<a href="/app/past?cursor=${encodeURIComponent(view.nextCursor)}" rel="next">${t.older}</a>` : ''
    }</p>`,
  );
}

export interface MeetingPageView extends MeetingDetails {
  timezone: string;
  now: number;
  done: Done | null;
  refusal: Refusal | null;
}

function historyLine(frame: AppFrame, t: AppStrings, entry: MeetingHistoryEntry, timezone: string): SafeHtml | null {
  // A booking confirmed at once sent its confirmations then; one held for payment or approval did not.
  const key = `history_${entry.type.replace('.', '_')}${entry.type === 'meeting.scheduled' && entry.status === 'confirmed' ? '_confirmed' : ''}`;
  if (!Object.hasOwn(t, key)) return null;
  const what = t[key as keyof AppStrings] as string;
  const reminder = entry.reminder ? ` (${t[`channel_${entry.reminder.channel}`]} ${t[`to_${entry.reminder.to}`]}, ${t.minutesBeforeStart(entry.reminder.minutesBefore)})` : '';
  const at = new Date(entry.at).toISOString();
  return html`<li><time datetime="${at}">${formatDateTime(entry.at, timezone, frame.locale)}</time>: ${what}${reminder}</li>`;
}

function actionsOf(frame: AppFrame, t: AppStrings, view: MeetingPageView): SafeHtml {
  const { meeting } = view;
  const id = meeting.uuid;
  const reasonField = html`<div class="field"><label for="reason-${id}">${t.reason} <span class="opt">${t.optional}</span></label><input type="text" id="reason-${id}" name="reason" maxlength="2000"></div>`;
  const back = html`<input type="hidden" name="back" value="meeting">`;
  const parts: SafeHtml[] = [];
  if (meeting.status === 'pending_approval') {
    parts.push(html`<form method="post" action="/app/meetings/${id}/approve" class="approve-form">${csrfField(frame)}${back}
<button type="submit" class="primary">${t.approveRequest}</button>
</form>
<form method="post" action="/app/meetings/${id}/decline" class="cancel-form">${csrfField(frame)}${back}
${reasonField}
<button type="submit" class="primary danger">${t.declineRequest}</button>
</form>`);
  }
  const live = meeting.status === 'confirmed' || meeting.status === 'pending_payment';
  if (live && meeting.start > view.now) parts.push(html`<p><a href="/app/meetings/${id}/move">${t.moveMeeting}</a></p>`);
  if (live && meeting.start > view.now) {
    parts.push(html`<form method="post" action="/app/meetings/${id}/cancel" class="cancel-form">${csrfField(frame)}${back}
${reasonField}
<button type="submit" class="primary danger">${t.cancelMeeting}</button>
</form>`);
  }
  // Attendance: once the meeting has started (the use case refuses it before, and says so).
  if (meeting.status === 'confirmed' && meeting.start <= view.now) {
    parts.push(
      meeting.noShow === null
        ? html`<form method="post" action="/app/meetings/${id}/no-show" class="no-show-form">${csrfField(frame)}
<p class="hint" id="no-show-hint">${t.noShowHint}</p>
<button type="submit" name="who" value="participant" class="primary" aria-describedby="no-show-hint">${t.noShowButton}</button>
<button type="submit" name="who" value="host">${t.hostNoShowButton}</button>
</form>`
        : html`<form method="post" action="/app/meetings/${id}/no-show" class="no-show-form">${csrfField(frame)}
<button type="submit" name="who" value="none">${t.clearNoShow}</button>
</form>`,
    );
  }
  return parts.length === 0 ? html`` : html`<div class="actions">${parts}</div>`;
}

export function renderMeetingPage(frame: AppFrame, view: MeetingPageView): SafeHtml {
  const t = APP_STRINGS[frame.lang];
  const { meeting, payment } = view;
  const { participant } = meeting;
  const started = meeting.start <= view.now;
  const history = view.history.flatMap((entry) => historyLine(frame, t, entry, view.timezone) ?? []);
  const answer = (value: string | boolean) => (typeof value === 'boolean' ? (value ? t.yes : t.no) : value);
  return renderPage(
    frame,
    `${t.meetingTitle}: ${view.topicName ?? '—'}`,
    started ? 'past' : 'upcoming',
    html`${notice(view.done ? doneText(t, view.done) : null)}${view.refusal ? html`<div class="alert" role="alert">${refusalText(t, view.refusal, meeting, view.now)}</div>` : ''}
<p class="when"><strong>${formatRange(meeting.start, meeting.end, view.timezone, frame.locale)}</strong></p>
<dl class="summary">
<dt>${t.status}</dt><dd class="status">${t[`status_${meeting.status}`]}${meeting.noShow ? html`<br><span class="no-show">${t[`noShow_${meeting.noShow}`]}</span>` : ''}</dd>
${
  meeting.status === 'pending_approval' && meeting.holdExpiresAt !== null
    ? html`<dt>${t.decideBy}</dt><dd class="decide-by">${formatDateTime(meeting.holdExpiresAt, view.timezone, frame.locale)}</dd>`
    : ''
}
${meeting.cancelReason ? html`<dt>${t.cancelReason}</dt><dd>${meeting.cancelReason}</dd>` : ''}
${meeting.declineReason ? html`<dt>${t.declineReason}</dt><dd>${meeting.declineReason}</dd>` : ''}
<dt>${t.host}</dt><dd class="host">${view.hostNames.join(', ')}</dd>
<dt>${t.place}</dt><dd class="place">${placeDetails(frame.lang, t, meeting)}</dd>
</dl>
<h2>${t.participant}</h2>
<dl class="summary participant-details">
<dt>${t.participantName}</dt><dd class="participant">${participant.name}</dd>
<dt>${t.email}</dt><dd><a href="mailto:${participant.email}">${participant.email}</a></dd>
${participant.phone ? html`<dt>${t.phone}</dt><dd><a href="${telHref(participant.phone)}">${participant.phone}</a></dd>` : ''}
<dt>${t.timezone}</dt><dd>${participant.timezone}</dd>
</dl>
${
  view.answers.length > 0
    ? html`<h2>${t.answers}</h2>
<dl class="summary answers">${view.answers.map((entry) => html`<dt>${entry.label}</dt><dd>${answer(entry.answer)}</dd>`)}</dl>`
    : ''
}
${meeting.note ? html`<p class="note">${meeting.note}</p>` : ''}
<h2>${t.payment}</h2>
${
  payment
    ? html`<dl class="summary payment">
<dt>${t.amount}</dt><dd>${formatMoney(payment.amount, payment.currency, frame.locale)} (${payment.currency})${
        payment.refundedAmount > 0 ? html`, ${t.refunded} ${formatMoney(payment.refundedAmount, payment.currency, frame.locale)}` : ''
      }</dd>
<dt>${t.status}</dt><dd class="payment-status">${t[`paymentStatus_${payment.status}`]}</dd>
</dl>`
    : html`<p>${t.noPayment}</p>`
}
<h2>${t.messages}</h2>
${history.length > 0 ? html`<ul class="history">${history}</ul>` : html`<p>${t.noMessages}</p>`}
${actionsOf(frame, t, view)}
<p><a href="${started ? '/app/past' : '/app'}">${t.back}</a></p>`,
  );
}
