import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../../domain/errors.js';
import { formatDate, formatDateTime, formatRange, formatTime } from '../../domain/formats.js';
import type { Lang, Meeting } from '../../domain/meeting.js';
import { PLACE_LABELS } from '../../i18n/place-labels.js';
import type { DaySlots } from '../../domain/slots.js';
import { listUpcomingOfHost, scheduleForMove } from '../../scheduling/host-app/overview.js';
import { getSetupChecklist, type HostChecklist } from '../../scheduling/host-app/checklist.js';
import { rescheduleMeeting } from '../../scheduling/booking/reschedule.js';
import { SafeHtml, html, sendHtml } from '../pages/html.js';
import { PAGE_ROUTE, TextField, field, formRoute, formSchema, requireValidForm, type FormBody } from './forms.js';
import { telHref } from './meetings.js';
import { type AppFrame, type AppPageOptions, csrfField, notice, renderPage, requireUuid, seeOther, sessionOf } from './frame.js';
import { APP_STRINGS, type AppStrings } from './strings.js';
import { renderChecklist } from './checklist.js';

/** The move form: the chosen slot's start (a radio: absent when none was chosen, which the move page then says). */
const MoveFormSchema = formSchema({ start: TextField });

/** Upcoming: the member's meetings, each cancelled, moved, approved or declined from here. */
export const upcomingPages: FastifyPluginAsync<AppPageOptions> = async (app, { ctx, frames }) => {
  app.get<{ Querystring: { done?: string; lang?: string } }>('/app', PAGE_ROUTE, async (request, reply) => {
    const session = sessionOf(request);
    const f = frames.memberFrameOf(request, reply);
    const t = APP_STRINGS[f.lang];
    const [upcoming, checklist] = await Promise.all([listUpcomingOfHost(ctx, session.principal), getSetupChecklist(ctx, session.principal)]);
    const done = request.query.done;
    const flashes: Record<string, string> = { cancelled: t.cancelled, moved: t.moved, approved: t.approved, declined: t.declined, shared: t.linkShared };
    const flash = done !== undefined && Object.hasOwn(flashes, done) ? flashes[done]! : null;
    return sendHtml(reply, 200, renderUpcomingPage(f, { ...upcoming, timezone: session.user.timezone, flash, checklist }));
  });

  // Cancel, approve and decline post to the meeting's actions (meetings.ts), shared with its own page.

  async function movePage(request: FastifyRequest<{ Params: { uuid: string }; Querystring: { week?: string } }>, reply: FastifyReply, error: MoveView['error']) {
    requireUuid(request.params.uuid);
    const session = sessionOf(request);
    const week = Number.parseInt(request.query.week ?? '0', 10);
    const offset = Number.isInteger(week) && week >= 0 && week <= 104 ? week * 7 : 0;
    const { meeting, schedule } = await scheduleForMove(ctx, session.principal, request.params.uuid, { timezone: session.user.timezone, offset });
    const topicName = (await listUpcomingOfHost(ctx, session.principal)).topicNames.get(meeting.topicUuid) ?? '—';
    const view = { meeting, topicName, days: schedule.days, timezone: session.user.timezone, offset, error };
    return sendHtml(reply, error ? 409 : 200, renderMovePage(frames.memberFrameOf(request, reply), view));
  }

  app.get<{ Params: { uuid: string }; Querystring: { week?: string } }>('/app/meetings/:uuid/move', PAGE_ROUTE, async (request, reply) => movePage(request, reply, null));

  app.post<{ Params: { uuid: string }; Querystring: { week?: string }; Body: FormBody }>('/app/meetings/:uuid/move', formRoute(MoveFormSchema), async (request, reply) => {
    requireUuid(request.params.uuid);
    try {
      requireValidForm(request);
      await rescheduleMeeting(ctx, sessionOf(request).principal, request.params.uuid, { start: field(request.body, 'start') });
    } catch (error) {
      if (error instanceof DomainError && (error.code === 'SLOT_UNAVAILABLE' || error.code === 'VALIDATION_FAILED')) return movePage(request, reply, error.code);
      throw error;
    }
    return seeOther(reply, '/app?done=moved');
  });
};

// ── Rendering ────────────────────────────────────────────────────────────────────────────

export interface UpcomingView {
  meetings: readonly Meeting[];
  topicNames: ReadonlyMap<string, string>;
  timezone: string;
  flash: string | null;
  /** The first-run checklist, shown above the meetings until it is complete. */
  checklist?: HostChecklist;
}

function placeOf(lang: Lang, t: AppStrings, meeting: Meeting): SafeHtml {
  const { url, address, phone } = meeting.location;
  return html`${PLACE_LABELS[lang][meeting.place]}${url ? html`<br><a href="${url}" rel="noopener" target="_blank">${t.join}</a>` : ''}${
    address ? html`<br>${address}` : ''
  }${phone && !url ? html`<br><a href="${telHref(phone)}">${phone}</a>` : ''}`;
}

/**
 * One meeting with its actions (move, cancel with a reason), its time linking to its page;
 * `hostName` on the team page, which lists meetings as Upcoming does.
 */
export function renderMeetingItem(
  frame: AppFrame,
  t: AppStrings,
  meeting: Meeting,
  topicName: string,
  timezone: string,
  hostName: string | null,
  options: { inSection?: boolean } = {},
): SafeHtml {
  // Under the page's h1 on Upcoming, under a section's h2 on the team page and in "Awaiting approval".
  const heading = hostName || options.inSection ? 'h3' : 'h2';
  const id = meeting.uuid;
  const movable = meeting.status === 'confirmed' || meeting.status === 'pending_payment';
  return html`<li class="meeting" id="m-${id}">
${new SafeHtml(`<${heading} id="h-${id}">`)}<a href="/app/meetings/${id}">${formatRange(meeting.start, meeting.end, timezone, frame.locale)}</a>${new SafeHtml(`</${heading}>`)}
<dl class="summary">
${hostName ? html`<dt>${t.host}</dt><dd class="host">${hostName}</dd>` : ''}
<dt>${t.topic}</dt><dd>${topicName}</dd>
<dt>${t.participant}</dt><dd class="participant">${meeting.participant.name} &lt;${meeting.participant.email}&gt;</dd>
<dt>${t.place}</dt><dd>${placeOf(frame.lang, t, meeting)}</dd>
<dt>${t.status}</dt><dd class="status">${t[`status_${meeting.status}`]}</dd>
${
  meeting.status === 'pending_approval' && meeting.holdExpiresAt !== null
    ? html`<dt>${t.decideBy}</dt><dd class="decide-by">${formatDateTime(meeting.holdExpiresAt, timezone, frame.locale)}</dd>`
    : ''
}
</dl>
<div class="actions">
${movable ? html`<p><a href="/app/meetings/${id}/move" aria-describedby="h-${id}">${t.moveMeeting}</a></p>` : ''}
${
  // A request awaiting approval is the host's to answer: approve, or decline with a reason for the participant.
  meeting.status === 'pending_approval'
    ? html`<form method="post" action="/app/meetings/${id}/approve" class="approve-form">
${csrfField(frame)}
<button type="submit" class="primary" aria-describedby="h-${id}">${t.approveRequest}</button>
</form>
<form method="post" action="/app/meetings/${id}/decline" class="cancel-form">
${csrfField(frame)}
<div class="field"><label for="reason-${id}">${t.reason} <span class="opt">${t.optional}</span></label><input type="text" id="reason-${id}" name="reason" maxlength="2000"></div>
<button type="submit" class="primary danger" aria-describedby="h-${id}">${t.declineRequest}</button>
</form>`
    : html`<form method="post" action="/app/meetings/${id}/cancel" class="cancel-form">
${csrfField(frame)}
<div class="field"><label for="reason-${id}">${t.reason} <span class="opt">${t.optional}</span></label><input type="text" id="reason-${id}" name="reason" maxlength="2000"></div>
<button type="submit" class="primary danger" aria-describedby="h-${id}">${t.cancelMeeting}</button>
</form>`
}
</div>
</li>`;
}

export function renderUpcomingPage(frame: AppFrame, view: UpcomingView): SafeHtml {
  const t = APP_STRINGS[frame.lang];
  // Requests come first, under a heading of their own: each waits for the host, until its decide-by time.
  const requests = view.meetings.filter((meeting) => meeting.status === 'pending_approval');
  const booked = view.meetings.filter((meeting) => meeting.status !== 'pending_approval');
  const inSection = requests.length > 0;
  const itemsOf = (meetings: readonly Meeting[]) =>
    meetings.map((meeting) => renderMeetingItem(frame, t, meeting, view.topicNames.get(meeting.topicUuid) ?? '—', view.timezone, null, { inSection }));
  return renderPage(
    frame,
    t.upcoming,
    'upcoming',
    html`${notice(view.flash)}
${view.checklist ? renderChecklist(frame, view.checklist) : ''}
${
  requests.length > 0
    ? html`<section aria-labelledby="awaiting-approval"><h2 id="awaiting-approval">${t.awaitingApproval}</h2>
<p class="hint">${t.decideByHint}</p>
<ul class="meetings awaiting">${itemsOf(requests)}</ul></section>
${booked.length > 0 ? html`<h2>${t.allUpcoming}</h2>` : ''}`
    : ''
}
${view.meetings.length === 0 ? html`<p id="no-upcoming">${t.noUpcoming}</p>` : booked.length > 0 ? html`<ul class="meetings">${itemsOf(booked)}</ul>` : ''}`,
  );
}

export interface MoveView {
  meeting: Meeting;
  topicName: string;
  days: readonly DaySlots[];
  timezone: string;
  offset: number;
  /** Why the move was refused, said in the page's language. */
  error: 'SLOT_UNAVAILABLE' | 'VALIDATION_FAILED' | null;
}

export function renderMovePage(frame: AppFrame, view: MoveView): SafeHtml {
  const t = APP_STRINGS[frame.lang];
  const { meeting } = view;
  const days = view.days.filter((day) => day.slots.length > 0);
  const base = `/app/meetings/${meeting.uuid}/move`;
  return renderPage(
    frame,
    t.moveTitle,
    'upcoming',
    html`${view.error ? html`<div class="alert" role="alert">${view.error === 'SLOT_UNAVAILABLE' ? t.error_slotTaken : t.error_invalidForm}</div>` : ''}
<p>${view.topicName}: ${meeting.participant.name}, ${formatRange(meeting.start, meeting.end, view.timezone, frame.locale)}</p>
<p class="week-nav">${view.offset > 0 ? html`<a href="${base}?week=${view.offset / 7 - 1}">${t.prevWeek}</a> ` : ''}<a href="${base}?week=${view.offset / 7 + 1}">${t.nextWeek}</a></p>
${
  days.length === 0
    ? html`<p>${t.noSlots}</p>`
    : html`<form method="post" action="${base}">
${csrfField(frame)}
<fieldset class="choices"><legend>${t.chooseSlot}</legend>
${days.map(
  (day) => html`<p class="day-label">${formatDate(Date.parse(day.slots[0]!.start), view.timezone, frame.locale)}</p>
${day.slots.map(
  (slot, i) =>
    html`<label class="choice"><input type="radio" name="start" value="${slot.start}" required${i === 0 && day === days[0] ? '' : ''}> ${formatTime(Date.parse(slot.start), view.timezone, frame.locale)}</label>`,
)}`,
)}
</fieldset>
<button type="submit" class="primary">${t.moveMeeting}</button>
</form>`
}
<p><a href="/app">${t.back}</a></p>`,
  );
}
