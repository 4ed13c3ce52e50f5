import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { WEEKDAYS, type Availability, type Weekday } from '../../domain/availability.js';
import { DomainError, ValidationError, type FieldError } from '../../domain/errors.js';
import { formatDate, formatTime } from '../../domain/formats.js';
import type { Lang } from '../../domain/meeting.js';
import type { DaySlots } from '../../domain/slots.js';
import { localToInstant, parseLocalDate } from '../../domain/time-zones.js';
import type { AppSession } from '../../scheduling/host-app/sign-in.js';
import { getAvailability, setAvailability } from '../../scheduling/topics/availability.js';
import { calculateSchedule } from '../../scheduling/booking/calculate.js';
import { explainSchedule } from '../../scheduling/booking/explain.js';
import { listMeetingTopics } from '../../scheduling/topics/meeting-topics.js';
import { type SafeHtml, html, sendHtml } from '../pages/html.js';
import { OptionalField, PAGE_ROUTE, TextField, field, formErrorsOf, formRoute, formSchema, type FormBody } from './forms.js';
import { type AppFrame, type AppPageOptions, csrfField, errorList, notice, renderPage, seeOther, sessionOf } from './frame.js';
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
  answer: { offered: boolean; reasons: readonly string[] } | null;
  error: string | null;
}

/** "Why is [date] [time] not offered for [topic]?": a GET form (it changes nothing), then every reason in plain words. */
function whyNotSection(t: AppStrings, view: WhyNotView): SafeHtml {
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
${view.answer.reasons.length > 0 ? html`<ul class="reasons">${view.answer.reasons.map((reason) => html`<li>${reason}</li>`)}</ul>` : ''}</div>`
    : ''
}
</section>`;
}

export function renderAvailabilityPage(frame: AppFrame, view: AvailabilityView): SafeHtml {
  const t = APP_STRINGS[frame.lang];
  const { form } = view;
  const day = (weekday: Weekday) => {
    const name = WEEKDAY_NAMES[frame.lang][weekday];
    const rows = form.weekly[weekday];
    return html`<fieldset class="weekday" id="day-${weekday}"><legend>${name}</legend>
${rows.length === 0 ? html`<p class="hint">${t.noHours}</p>` : ''}
${rows.map(
  (row, i) => html`<div class="hours-row">
<label>${hoursLabel(frame.lang, weekday, 'from', i)}<input type="time" name="${weekday}.${i}.start" value="${row.start}" aria-label="${hoursLabel(frame.lang, weekday, 'from', i)}"></label>
<label>${hoursLabel(frame.lang, weekday, 'to', i)}<input type="time" name="${weekday}.${i}.end" value="${row.end}" aria-label="${hoursLabel(frame.lang, weekday, 'to', i)}"></label>
<button type="submit" name="op" value="remove:${weekday}:${i}" class="link">${t.remove}</button>
</div>`,
)}
<button type="submit" name="op" value="add:${weekday}">${t.addHoursOn} ${name}</button>
</fieldset>`;
  };
  const preview = view.preview;
  return renderPage(
    frame,
    t.availability,
    'availability',
    html`${notice(view.flash)}${errorList(t, view.errors)}
<form method="post" action="/app/availability" class="availability">
${csrfField(frame)}
<button type="submit" name="op" value="save" class="default-submit" tabindex="-1" aria-hidden="true">${t.save}</button>
<div class="field"><label for="f-timezone">${t.timezone}</label><select id="f-timezone" name="timezone">
${view.zones.map((zone) => html`<option value="${zone}"${zone === form.timezone ? html` selected` : ''}>${zone.replace(/_/g, ' ')}</option>`)}
</select></div>
<h2>${t.weeklyHours}</h2>
${WEEKDAYS.map(day)}
<h2>${t.overrides}</h2>
<p class="hint">${t.overridesHint}</p>
${form.overrides.map(
  (row, i) => html`<div class="hours-row override">
<label>${t.date} ${i + 1}<input type="date" name="override.${i}.date" value="${row.date}"></label>
<label>${t.date} ${i + 1} ${t.from}<input type="time" name="override.${i}.start" value="${row.start}"></label>
<label>${t.date} ${i + 1} ${t.to}<input type="time" name="override.${i}.end" value="${row.end}"></label>
<button type="submit" name="op" value="remove-override:${i}" class="link">${t.remove}</button>
</div>`,
)}
<p><button type="submit" name="op" value="add-override">${t.addOverride}</button></p>
<p><button type="submit" name="op" value="save" class="primary" id="save">${t.save}</button></p>
</form>
${
  preview
    ? html`<section aria-labelledby="h-preview"><h2 id="h-preview">${t.previewTitle} (${t.previewTopic} ${preview.topicName})</h2>
${
  preview.days.some((d) => d.slots.length > 0)
    ? html`<ul class="preview">${preview.days
        .filter((d) => d.slots.length > 0)
        .map(
          (d) =>
            html`<li><strong>${formatDate(Date.parse(d.slots[0]!.start), preview.timezone, frame.locale)}</strong>: ${d.slots
              .map((slot) => formatTime(Date.parse(slot.start), preview.timezone, frame.locale))
              .join(', ')}</li>`,
        )}</ul>`
    : html`<p>${t.noSlots}</p>`
}
</section>`
    : ''
}
${view.whyNot ? whyNotSection(t, view.whyNot) : ''}`,
  );
}
