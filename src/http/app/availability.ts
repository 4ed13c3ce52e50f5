import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { WEEKDAYS, type Availability, type Weekday } from '../../domain/availability.js';
import { DomainError, ValidationError, type FieldError } from '../../domain/errors.js';
import { formatDate, formatRange, formatTime } from '../../domain/formats.js';
import type { Lang } from '../../domain/meeting.js';
import type { DaySlots } from '../../domain/slots.js';
import { localToInstant, parseLocalDate } from '../../domain/time-zones.js';
import type { AppSession } from '../../scheduling/host-app/sign-in.js';
import { getAvailability, setAvailability } from '../../scheduling/topics/availability.js';
import { getMeeting } from '../../scheduling/meetings/meetings.js';
import { calculateSchedule } from '../../scheduling/booking/calculate.js';
import { explainSchedule } from '../../scheduling/booking/explain.js';
import { listMeetingTopics } from '../../scheduling/topics/meeting-topics.js';
import { type SafeHtml, html, sendHtml } from '../pages/html.js';
import { OptionalField, PAGE_ROUTE, TextField, field, formErrorsOf, formRoute, formSchema, type FormBody } from './forms.js';
import { type AppFrame, type AppPageOptions, csrfField, notice, renderPage, seeOther, sessionOf } from './frame.js';
import { type FieldPlace, type PlacedErrors, errorSummary, fieldErrorText, invalidAttributes, placeErrors } from './field-errors.js';
import { APP_STRINGS, WEEKDAY_NAMES, hoursLabel, type AppStrings } from './strings.js';

/**
 * The hours form: the zone, a pressed button's `op` (save, or add/remove a row without a
 * script), and numbered rows: `monday.0.start`, `monday.0.end`, `override.0.date`…
 */
const AvailabilityFormSchema = formSchema(
  { timezone: TextField, op: OptionalField },
  {
    patternProperties: {
      [`^(${WEEKDAYS.join('|')})\\.\\d{1,3}\\.(start|end)$`]: TextField,
      '^override\\.\\d{1,3}\\.(date|start|end)$': TextField,
    },
  },
);

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

/** Availability: weekly hours and date overrides, a preview of next week, and "why is this time not offered?". */
export const availabilityPages: FastifyPluginAsync<AppPageOptions> = async (app, { ctx, frames }) => {
  async function availabilityPage(request: FastifyRequest, reply: FastifyReply, form: AvailabilityForm, errors: FieldError[], flash: string | null, ask?: WhyNotQuery) {
    const session = sessionOf(request);
    const preview = await previewOf(session, form.timezone);
    const whyNot = await whyNotOf(session, form.timezone, frames.langOf(request, reply), ask);
    const view = { form, zones: Intl.supportedValuesOf('timeZone'), errors, flash, preview, whyNot };
    return sendHtml(reply, errors.length > 0 ? 400 : 200, renderAvailabilityPage(frames.memberFrameOf(request, reply), view));
  }

  async function previewOf(session: AppSession, timezone: string) {
    const topics = await listMeetingTopics(ctx, session.principal, { username: session.user.username });
    const topic = topics.find((candidate) => candidate.teamUuid === null) ?? topics[0];
    if (!topic) return null;
    try {
      // offset 0: today and the 6 dates after it on the host's clock (the range is local dates, so a DST week has 7 days too).
      const schedule = await calculateSchedule(ctx, session.principal, { username: session.user.username, meetingTopic: topic.uuid, timezone, offset: 0 });
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
    const reasons = await Promise.all(explained.reasons.map((reason) => whyNotReasonOf(session, topics, topic, reason)));
    return { ...view, answer: { offered: explained.offered, reasons } };
  }

  /** A reason with what the page links it to: the setting behind it, or the meeting in the way (its time and topic). */
  async function whyNotReasonOf(
    session: AppSession,
    topics: readonly { uuid: string; name: string }[],
    topic: { uuid: string },
    reason: Awaited<ReturnType<typeof explainSchedule>>['reasons'][number],
  ): Promise<WhyNotReason> {
    const base: WhyNotReason = { code: reason.code, detail: reason.detail, topicUuid: topic.uuid, date: null, schedule: null, calendarUuid: null, meeting: null };
    if (reason.code === 'OUTSIDE_HOURS' || reason.code === 'DAY_OFF' || reason.code === 'HOLIDAY')
      return { ...base, date: typeof reason.date === 'string' ? reason.date : null, schedule: typeof reason.schedule === 'string' ? reason.schedule : null };
    if (reason.code === 'CALENDAR_EVENT') return { ...base, calendarUuid: typeof reason.calendarUuid === 'string' ? reason.calendarUuid : null };
    if ((reason.code === 'MEETING' || reason.code === 'BUFFER') && typeof reason.meetingUuid === 'string') {
      // Only a meeting the member may look up carries its uuid (explainSchedule hides the others').
      const meeting = await getMeeting(ctx, session.principal, reason.meetingUuid).catch((error: unknown) => {
        if (error instanceof DomainError) return null;
        throw error;
      });
      if (meeting)
        return {
          ...base,
          meeting: { uuid: meeting.uuid, start: meeting.start, end: meeting.end, topicName: topics.find((candidate) => candidate.uuid === meeting.topicUuid)?.name ?? null },
        };
    }
    return base;
  }

  app.get<{ Querystring: { done?: string } & WhyNotQuery }>('/app/availability', PAGE_ROUTE, async (request, reply) => {
    const session = sessionOf(request);
    const availability = await getAvailability(ctx, session.principal, session.user.uuid);
    const t = APP_STRINGS[frames.langOf(request, reply)];
    const { why_topic, why_date, why_time } = request.query;
    const ask = { why_topic: oneOf(why_topic), why_date: oneOf(why_date), why_time: oneOf(why_time) };
    return availabilityPage(request, reply, toAvailabilityForm(availability), [], request.query.done === 'saved' ? t.saved : null, ask);
  });

  app.post<{ Body: FormBody }>('/app/availability', formRoute(AvailabilityFormSchema), async (request, reply) => {
    const session = sessionOf(request);
    const form = readAvailabilityForm(request.body);
    const invalid = formErrorsOf(request);
    if (invalid.length > 0) return availabilityPage(request, reply, form, invalid, null);
    const op = field(request.body, 'op') || 'save';
    const t = APP_STRINGS[frames.langOf(request, reply)];
    // Add, Remove and Copy work without a script: the form comes back changed, unsaved.
    if (op !== 'save') return availabilityPage(request, reply, applyAvailabilityOp(form, op), [], op === 'copy-monday' ? t.copiedMonday : null);
    // Empty rows go before saving, so the use case's paths (/weekly/monday/1) are the rows shown again.
    const kept = withoutEmptyRows(form);
    try {
      // The page does not edit public holidays (yet): a save keeps those set through the API.
      const current = await getAvailability(ctx, session.principal, session.user.uuid);
      await setAvailability(ctx, session.principal, session.user.uuid, {
        ...fromAvailabilityForm(kept),
        holidays: current.holidays ?? null,
        holidayExceptions: current.holidayExceptions ?? [],
      });
    } catch (error) {
      if (error instanceof ValidationError) return availabilityPage(request, reply, kept, error.errors ?? [], null);
      throw error;
    }
    return seeOther(reply, '/app/availability?done=saved');
  });
};

// ── The form ⇄ the domain ────────────────────────────────────────────────────────────────

/** The availability form as the page holds it: possibly invalid, possibly unsaved. */
export interface AvailabilityForm {
  timezone: string;
  weekly: Record<Weekday, { start: string; end: string }[]>;
  /** One row per interval; a row without times is the date off. */
  overrides: { date: string; start: string; end: string }[];
}

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
  if (action === 'copy-monday') {
    const monday = form.weekly.monday.map((row) => ({ ...row }));
    return {
      ...form,
      weekly: {
        ...form.weekly,
        tuesday: monday,
        wednesday: monday.map((row) => ({ ...row })),
        thursday: monday.map((row) => ({ ...row })),
        friday: monday.map((row) => ({ ...row })),
      },
    };
  }
  if (action === 'add-override') return { ...form, overrides: [...form.overrides, { date: '', start: '', end: '' }] };
  if (action === 'remove-override') return { ...form, overrides: form.overrides.filter((_, i) => i !== Number(day)) };
  return form;
}

/** The weekly rows with a time in them; override rows stay (one without times is the date off). */
function withoutEmptyRows(form: AvailabilityForm): AvailabilityForm {
  const weekly = {} as AvailabilityForm['weekly'];
  for (const day of WEEKDAYS) weekly[day] = form.weekly[day].filter((row) => row.start !== '' || row.end !== '');
  return { ...form, weekly };
}

/**
 * Where a path of the use case's errors is on the page: `/weekly/monday/1` is Monday's second
 * row; `/overrides/2/intervals/1` is the second row of the third date (rows grouped by date
 * as fromAvailabilityForm groups them).
 */
function placeOfPath(lang: Lang, form: AvailabilityForm): (path: string) => FieldPlace | null {
  const t = APP_STRINGS[lang];
  const groups = new Map<string, number[]>();
  form.overrides.forEach((row, index) => {
    if (row.date === '') return;
    const rows = groups.get(row.date) ?? [];
    rows.push(index);
    groups.set(row.date, rows);
  });
  const dates = [...groups.values()];
  return (path) => {
    if (path === '/timezone') return { id: 'f-timezone', label: t.timezone };
    const weekly = /^\/weekly\/([a-z]+)\/(\d+)(?:\/(?:start|end))?$/.exec(path);
    const weekday = WEEKDAYS.find((day) => day === weekly?.[1]);
    if (weekly && weekday) return { id: `row-${weekday}-${weekly[2]}`, label: hoursLabel(lang, weekday, 'from', Number(weekly[2])) };
    const override = /^\/overrides\/(\d+)\/(?:date|intervals\/(\d+))/.exec(path);
    const rows = override ? dates[Number(override[1])] : undefined;
    if (!override || !rows) return null;
    // A date's intervals are its rows that have times: the date alone (a day off) has none.
    const timed = rows.filter((index) => form.overrides[index]!.start !== '' || form.overrides[index]!.end !== '');
    const row = override[2] === undefined ? rows[0] : timed[Number(override[2])];
    return row === undefined ? null : { id: `override-${row}`, label: `${t.date} ${row + 1}` };
  };
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

// ── Rendering ────────────────────────────────────────────────────────────────────────────

export interface AvailabilityView {
  form: AvailabilityForm;
  zones: readonly string[];
  errors: readonly FieldError[];
  flash: string | null;
  /** Next week's free slots for one of the host's topics, when they have one. */
  preview: { topicName: string; days: readonly DaySlots[]; timezone: string } | null;
  /** The "why not?" form (POST /explain-schedule for the member's own topics), with its answer once asked. */
  whyNot: WhyNotView | null;
}

export interface WhyNotView {
  topics: readonly { uuid: string; name: string }[];
  topic: string;
  date: string;
  time: string;
  /** The host's zone the date and time are read in. */
  timezone: string;
  answer: { offered: boolean; reasons: readonly WhyNotReason[] } | null;
  error: string | null;
}

/** One reason of an answer, with what it links to. */
export interface WhyNotReason {
  code: string;
  /** The sentence of POST /explain-schedule, in the page's language. */
  detail: string;
  /** The topic asked about: its page holds the notice, window, limits, grid, buffers and seats. */
  topicUuid: string;
  /** OUTSIDE_HOURS, DAY_OFF: the host's local date. */
  date: string | null;
  /** OUTSIDE_HOURS: "default" (the host's own hours) or the topic's schedule. */
  schedule: string | null;
  calendarUuid: string | null;
  /** MEETING, BUFFER: the meeting in the way, when the member may see it. */
  meeting: { uuid: string; start: number; end: number; topicName: string | null } | null;
}

/** The setting behind a reason, as a link to the field that sets it ("Change the hours on Monday"). */
function fixOf(t: AppStrings, lang: Lang, reason: WhyNotReason): { href: string; label: string } | null {
  const topicField = (anchor: string, label: string) => ({ href: `/app/topics/${reason.topicUuid}#${anchor}`, label });
  switch (reason.code) {
    case 'OUTSIDE_HOURS': {
      if (reason.schedule !== null && reason.schedule !== 'default') return topicField('f-schedule', t.whyFix.schedule);
      const day = reason.date === null ? Number.NaN : parseLocalDate(reason.date);
      // Epoch day 0 (1970-01-01) was a Thursday: WEEKDAYS counts from Monday.
      const weekday = Number.isNaN(day) ? undefined : WEEKDAYS[(((day + 3) % 7) + 7) % 7];
      return weekday
        ? { href: `/app/availability#day-${weekday}`, label: t.whyFix.hours(WEEKDAY_NAMES[lang][weekday]) }
        : { href: '/app/availability#weekly-hours', label: t.weeklyHours };
    }
    case 'DAY_OFF':
    case 'HOLIDAY':
      return { href: '/app/availability#overrides', label: t.whyFix.overrides };
    case 'TIME_OFF':
      return { href: '/app/time-off', label: t.whyFix.timeOff };
    case 'MINIMUM_NOTICE':
      return topicField('f-minimumNoticeMinutes', t.whyFix.notice);
    case 'BOOKING_WINDOW':
      return topicField('f-bookingWindowDays', t.whyFix.window);
    case 'DAILY_LIMIT':
    case 'WEEKLY_LIMIT':
    case 'MONTHLY_LIMIT':
      return topicField('f-dailyLimit', t.whyFix.limits);
    case 'OFF_GRID':
      return topicField('f-slotIntervalMinutes', t.whyFix.grid);
    case 'BUFFER':
      return topicField('f-bufferBeforeMinutes', t.whyFix.buffers);
    case 'SEATS_FULL':
      return topicField('f-seats', t.whyFix.seats);
    case 'CALENDAR_EVENT':
      return { href: reason.calendarUuid ? `/app/connections#c-${reason.calendarUuid}` : '/app/connections', label: t.whyFix.calendar };
    default:
      return null;
  }
}

function whyNotReasonItem(frame: AppFrame, t: AppStrings, reason: WhyNotReason, timezone: string): SafeHtml {
  const fix = fixOf(t, frame.lang, reason);
  const meeting = reason.meeting;
  return html`<li>${reason.detail}${
    meeting
      ? html` <a href="/app/meetings/${meeting.uuid}">${t.meetingReason(formatRange(meeting.start, meeting.end, timezone, frame.locale), meeting.topicName ?? t.aMeeting)}</a>`
      : ''
  }${fix ? html` <a href="${fix.href}">${fix.label}</a>` : ''}</li>`;
}

/** "Why is [date] [time] not offered for [topic]?": a GET form (it changes nothing), then every reason in plain words. */
function whyNotSection(frame: AppFrame, t: AppStrings, view: WhyNotView): SafeHtml {
  const topicName = view.topics.find((topic) => topic.uuid === view.topic)?.name ?? '';
  return html`<section aria-labelledby="h-why-not" id="why-not"><h2 id="h-why-not">${t.whyNotTitle}</h2>
<p class="hint" id="why-not-hint">${t.whyNotHint} (${view.timezone})</p>
<form method="get" action="/app/availability#why-not" class="why-not" aria-describedby="why-not-hint">
<span>${t.whyNotIs}</span>
<label for="why-date">${t.date}</label><input type="date" id="why-date" name="why_date" value="${view.date}" required>
<label for="why-time">${t.time}</label><input type="time" id="why-time" name="why_time" value="${view.time}" required>
<span>${t.whyNotFor}</span>
<label for="why-topic">${t.topic}</label><select id="why-topic" name="why_topic" required>
${view.topics.map((topic) => html`<option value="${topic.uuid}"${topic.uuid === view.topic ? html` selected` : ''}>${topic.name}</option>`)}
</select><span>?</span>
<button type="submit" id="why-submit">${t.whyNotAsk}</button>
</form>
${view.error ? html`<p class="alert" role="alert">${view.error}</p>` : ''}
${
  view.answer
    ? html`<div id="why-not-answer" role="status"><p><strong>${view.date} ${view.time}, ${topicName}:</strong> ${view.answer.offered ? t.whyNotOffered : t.whyNotBecause}</p>
${view.answer.reasons.length > 0 ? html`<ul class="reasons">${view.answer.reasons.map((reason) => whyNotReasonItem(frame, t, reason, view.timezone))}</ul>` : ''}</div>`
    : ''
}
</section>`;
}

export function renderAvailabilityPage(frame: AppFrame, view: AvailabilityView): SafeHtml {
  const t = APP_STRINGS[frame.lang];
  const { form } = view;
  const placed: PlacedErrors = placeErrors(frame.lang, view.errors, placeOfPath(frame.lang, form));
  // app.js adds, removes and copies rows in the page; the data attributes give it the rows' accessible names.
  const day = (weekday: Weekday) => {
    const name = WEEKDAY_NAMES[frame.lang][weekday];
    const rows = form.weekly[weekday];
    return html`<fieldset class="weekday" id="day-${weekday}" data-day="${weekday}" data-from="${hoursLabel(frame.lang, weekday, 'from', 0)}" data-to="${hoursLabel(frame.lang, weekday, 'to', 0)}"><legend>${name}</legend>
<p class="hint no-hours"${rows.length === 0 ? '' : html` hidden`}>${t.noHours}</p>
${rows.map((row, i) => {
  const id = `row-${weekday}-${i}`;
  return html`<div class="hours-row" id="${id}">
<label>${hoursLabel(frame.lang, weekday, 'from', i)}<input type="time" name="${weekday}.${i}.start" value="${row.start}" aria-label="${hoursLabel(frame.lang, weekday, 'from', i)}"${invalidAttributes(placed, id)}></label>
<label>${hoursLabel(frame.lang, weekday, 'to', i)}<input type="time" name="${weekday}.${i}.end" value="${row.end}" aria-label="${hoursLabel(frame.lang, weekday, 'to', i)}"${invalidAttributes(placed, id)}></label>
<button type="submit" name="op" value="remove:${weekday}:${i}" class="link">${t.remove}</button>
${fieldErrorText(placed, id)}</div>`;
})}
<button type="submit" name="op" value="add:${weekday}" class="add-hours">${t.addHoursOn} ${name}</button>
${weekday === 'monday' ? html`<button type="submit" name="op" value="copy-monday" id="copy-monday">${t.copyMonday}</button>` : ''}
</fieldset>`;
  };
  const preview = view.preview;
  return renderPage(
    frame,
    t.availability,
    'availability',
    html`${notice(view.flash)}${errorSummary(frame.lang, placed)}
<form method="post" action="/app/availability" class="availability" id="availability-form" data-remove="${t.remove}" data-copied="${t.copiedMonday}">
${csrfField(frame)}
<button type="submit" name="op" value="save" class="default-submit" tabindex="-1" aria-hidden="true">${t.save}</button>
<div class="field"><label for="f-timezone">${t.timezone}</label><select id="f-timezone" name="timezone"${invalidAttributes(placed, 'f-timezone')}>
${view.zones.map((zone) => html`<option value="${zone}"${zone === form.timezone ? html` selected` : ''}>${zone.replace(/_/g, ' ')}</option>`)}
</select>${fieldErrorText(placed, 'f-timezone')}</div>
<h2 id="weekly-hours">${t.weeklyHours}</h2>
${WEEKDAYS.map(day)}
<h2 id="overrides">${t.overrides}</h2>
<p class="hint">${t.overridesHint}</p>
${form.overrides.map((row, i) => {
  const id = `override-${i}`;
  return html`<div class="hours-row override" id="${id}">
<label>${t.date} ${i + 1}<input type="date" name="override.${i}.date" value="${row.date}"${invalidAttributes(placed, id)}></label>
<label>${t.date} ${i + 1} ${t.from}<input type="time" name="override.${i}.start" value="${row.start}"${invalidAttributes(placed, id)}></label>
<label>${t.date} ${i + 1} ${t.to}<input type="time" name="override.${i}.end" value="${row.end}"${invalidAttributes(placed, id)}></label>
<button type="submit" name="op" value="remove-override:${i}" class="link">${t.remove}</button>
${fieldErrorText(placed, id)}</div>`;
})}
<p><button type="submit" name="op" value="add-override">${t.addOverride}</button></p>
<p><button type="submit" name="op" value="save" class="primary" id="save">${t.save}</button></p>
</form>
${
  preview
    ? html`<section aria-labelledby="h-preview"><h2 id="h-preview">${t.previewComing} (${t.previewTopic} ${preview.topicName})</h2>
<ul class="preview">${preview.days.map(
        // Each of the 7 local dates, named at its noon (a date is never skipped by a clock change at noon).
        (d) =>
          html`<li data-date="${d.date}"><strong>${formatDate(localToInstant(preview.timezone, parseLocalDate(d.date), 12 * 60), preview.timezone, frame.locale)}</strong>: ${
            d.slots.length > 0 ? d.slots.map((slot) => formatTime(Date.parse(slot.start), preview.timezone, frame.locale)).join(', ') : t.previewNone
          }</li>`,
      )}</ul>
</section>`
    : ''
}
${view.whyNot ? whyNotSection(frame, t, view.whyNot) : ''}`,
  );
}
