import { WEEKDAYS, type Weekday } from '../../domain/availability.js';
import type { Place } from '../../domain/account.js';
import type { FieldError } from '../../domain/errors.js';
import { formatDate, formatMoney, formatRange, formatTime, type FormatLocale } from '../../domain/formats.js';
import type { Lang, Meeting } from '../../domain/meeting.js';
import type { MeetingTopic } from '../../domain/meeting-topic.js';
import { PLACE_LABELS } from '../../domain/place-labels.js';
import type { DaySlots } from '../../domain/slots.js';
import type { ConnectedCalendar } from '../../domain/calendar.js';
import type { Connection } from '../../domain/integrations.js';
import type { Team } from '../../domain/team.js';
import type { Member } from '../../domain/user.js';
import { SafeHtml, html, htmlDocument } from '../pages/html.js';
import { APP_STRINGS, WEEKDAY_NAMES, hoursLabel, type AppStrings } from './strings.js';

/** What every page of the app shares: language, assets, the signed-in member and the form token. */
export interface AppFrame {
  lang: Lang;
  locale: FormatLocale;
  /** The current path, for the language switch and the navigation's current page. */
  path: string;
  stylesheets: readonly string[];
  script: string;
  csrf: string;
  /** Null on the sign-in pages. */
  member: { name: string; email: string } | null;
  /** The teams the member administers: each has a page. */
  teams: readonly { uuid: string; name: string }[];
}

type Section = 'upcoming' | 'availability' | 'topics' | 'connections' | `team:${string}` | null;

function langSwitch(frame: AppFrame, t: AppStrings): SafeHtml {
  const other = frame.lang === 'en' ? 'pl' : 'en';
  return html`<p class="lang"><a href="${frame.path}?lang=${other}" lang="${other}" hreflang="${other}">${t.language}</a></p>`;
}

/** Hidden fields every form carries: the CSRF token. */
export function csrfField(frame: Pick<AppFrame, 'csrf'>): SafeHtml {
  return html`<input type="hidden" name="csrf" value="${frame.csrf}">`;
}

function page(frame: AppFrame, title: string, section: Section, body: SafeHtml): SafeHtml {
  const t = APP_STRINGS[frame.lang];
  const link = (href: string, label: string, name: Section) => html`<li><a href="${href}"${section === name ? html` aria-current="page"` : ''}>${label}</a></li>`;
  const header = html`<header class="app-head">
<p class="brand">${t.appName}</p>
${
  frame.member
    ? html`<nav aria-label="${t.navLabel}"><ul class="app-nav">${link('/app', t.upcoming, 'upcoming')}${link('/app/availability', t.availability, 'availability')}${link('/app/topics', t.topics, 'topics')}${link('/app/connections', t.connections, 'connections')}${frame.teams.map(
        (team) => link(`/app/team/${team.uuid}`, `${t.teamNav}: ${team.name}`, `team:${team.uuid}`),
      )}</ul></nav>
<form method="post" action="/app/logout" class="sign-out">${csrfField(frame)}<span class="who">${t.signedInAs} ${frame.member.name}</span> <button type="submit" class="link">${t.signOut}</button></form>`
    : ''
}
${langSwitch(frame, t)}
</header>`;
  return htmlDocument({
    lang: frame.lang,
    title: `${title} · ${t.appName}`,
    body: html`${header}<main id="main" class="page app">
<h1>${title}</h1>
${body}
</main>`,
    stylesheets: frame.stylesheets,
    scripts: [frame.script],
  });
}

function notice(message: string | null): SafeHtml {
  return message ? html`<p class="notice" role="status">${message}</p>` : html``;
}

function errorList(t: AppStrings, errors: readonly FieldError[]): SafeHtml {
  if (errors.length === 0) return html``;
  return html`<div class="alert" role="alert"><p>${t.fixErrors}</p><ul>${errors.map((error) => html`<li>${error.path ? `${error.path}: ` : ''}${error.message}</li>`)}</ul></div>`;
}

// ── Sign-in ──────────────────────────────────────────────────────────────────────────────

export function renderLoginPage(frame: AppFrame): SafeHtml {
  const t = APP_STRINGS[frame.lang];
  return page(
    frame,
    t.signInTitle,
    null,
    html`<p>${t.signInIntro}</p>
<form method="post" action="/app/login" class="stack">
${csrfField(frame)}<input type="hidden" name="lang" value="${frame.lang}">
<div class="field"><label for="f-email">${t.email}</label><input type="email" id="f-email" name="email" autocomplete="email" required maxlength="320"></div>
<button type="submit" class="primary">${t.sendLink}</button>
</form>`,
  );
}

export function renderMessagePage(frame: AppFrame, title: string, text: string, link?: { href: string; label: string }): SafeHtml {
  return page(frame, title, null, html`<p id="message">${text}</p>${link ? html`<p><a href="${link.href}">${link.label}</a></p>` : ''}`);
}

// ── Upcoming ─────────────────────────────────────────────────────────────────────────────

export interface UpcomingView {
  meetings: readonly Meeting[];
  topicNames: ReadonlyMap<string, string>;
  timezone: string;
  flash: string | null;
}

function placeOf(lang: Lang, t: AppStrings, meeting: Meeting): SafeHtml {
  const { url, address, phone } = meeting.location;
  return html`${PLACE_LABELS[lang][meeting.place]}${url ? html`<br><a href="${url}" rel="noopener" target="_blank">${t.join}</a>` : ''}${
    address ? html`<br>${address}` : ''
  }${phone && !url ? html`<br>${phone}` : ''}`;
}

/** One meeting with its actions (move, cancel with a reason); `hostName` on the team page. */
function meetingItem(frame: AppFrame, t: AppStrings, meeting: Meeting, topicName: string, timezone: string, hostName: string | null): SafeHtml {
  // Under the page's h1 on Upcoming, under the section's h2 on the team page.
  const heading = hostName ? 'h3' : 'h2';
  const id = meeting.uuid;
  const movable = meeting.status === 'confirmed' || meeting.status === 'pending_payment';
  return html`<li class="meeting" id="m-${id}">
${new SafeHtml(`<${heading} id="h-${id}">`)}${formatRange(meeting.start, meeting.end, timezone, frame.locale)}${new SafeHtml(`</${heading}>`)}
<dl class="summary">
${hostName ? html`<dt>${t.host}</dt><dd class="host">${hostName}</dd>` : ''}
<dt>${t.topic}</dt><dd>${topicName}</dd>
<dt>${t.participant}</dt><dd class="participant">${meeting.participant.name} &lt;${meeting.participant.email}&gt;</dd>
<dt>${t.place}</dt><dd>${placeOf(frame.lang, t, meeting)}</dd>
<dt>${t.status}</dt><dd class="status">${t[`status_${meeting.status}`]}</dd>
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
  const items = view.meetings.map((meeting) => meetingItem(frame, t, meeting, view.topicNames.get(meeting.topicUuid) ?? '—', view.timezone, null));
  return page(
    frame,
    t.upcoming,
    'upcoming',
    html`${notice(view.flash)}
${view.meetings.length === 0 ? html`<p id="no-upcoming">${t.noUpcoming}</p>` : html`<ul class="meetings">${items}</ul>`}`,
  );
}

export interface MoveView {
  meeting: Meeting;
  topicName: string;
  days: readonly DaySlots[];
  timezone: string;
  offset: number;
  error: string | null;
}

export function renderMovePage(frame: AppFrame, view: MoveView): SafeHtml {
  const t = APP_STRINGS[frame.lang];
  const { meeting } = view;
  const days = view.days.filter((day) => day.slots.length > 0);
  const base = `/app/meetings/${meeting.uuid}/move`;
  return page(
    frame,
    t.moveTitle,
    'upcoming',
    html`${view.error ? html`<div class="alert" role="alert">${view.error}</div>` : ''}
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

// ── Availability ─────────────────────────────────────────────────────────────────────────

/** The availability form as the page holds it: possibly invalid, possibly unsaved. */
export interface AvailabilityForm {
  timezone: string;
  weekly: Record<Weekday, { start: string; end: string }[]>;
  /** One row per interval; a row without times is the date off. */
  overrides: { date: string; start: string; end: string }[];
}

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
  return page(
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

// ── Topics ───────────────────────────────────────────────────────────────────────────────

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
  return page(
    frame,
    t.topics,
    'topics',
    html`${notice(view.flash)}
<p><a class="primary" href="/app/topics/new">${t.newTopic}</a></p>
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

/** The topic form's fields as typed (strings), so an invalid form comes back as it was sent. */
export interface TopicForm {
  name: string;
  durationMinutes: string;
  places: Place[];
  price: string;
  currency: string;
  questions: string;
  public: boolean;
}

export interface TopicFormView {
  /** Null for a new topic. */
  uuid: string | null;
  form: TopicForm;
  accountPlaces: readonly Place[];
  link: string | null;
  errors: readonly FieldError[];
  flash: string | null;
}

export function renderTopicFormPage(frame: AppFrame, view: TopicFormView): SafeHtml {
  const t = APP_STRINGS[frame.lang];
  const { form } = view;
  const title = view.uuid === null ? t.newTopic : `${t.editTopic}: ${form.name}`;
  return page(
    frame,
    title,
    'topics',
    html`${notice(view.flash)}${errorList(t, view.errors)}
${
  view.link
    ? html`<div class="field copy"><label for="public-link">${t.publicLink}</label><input type="text" id="public-link" value="${view.link}" readonly>
<button type="button" class="copy-link" data-copy="public-link" hidden>${t.copyLink}</button> <a id="open-link" href="${view.link}">${view.link}</a></div>`
    : ''
}
<form method="post" action="${view.uuid === null ? '/app/topics' : `/app/topics/${view.uuid}`}" class="topic-form">
${csrfField(frame)}
<div class="field"><label for="f-name">${t.name}</label><input type="text" id="f-name" name="name" value="${form.name}" required maxlength="200"></div>
<div class="field"><label for="f-duration">${t.duration}</label><input type="number" id="f-duration" name="durationMinutes" value="${form.durationMinutes}" min="5" max="720" step="5" required></div>
<fieldset class="choices"><legend>${t.places}</legend>
${view.accountPlaces.map(
  (place) =>
    html`<label class="choice"><input type="checkbox" name="places" value="${place}"${form.places.includes(place) ? html` checked` : ''}> ${PLACE_LABELS[frame.lang][place]}</label>`,
)}
</fieldset>
<div class="field"><label for="f-price">${t.price}</label><input type="text" id="f-price" name="price" value="${form.price}" inputmode="decimal" aria-describedby="f-price-hint"><p class="hint" id="f-price-hint">${t.priceHint}</p></div>
<div class="field"><label for="f-currency">${t.currency}</label><input type="text" id="f-currency" name="currency" value="${form.currency}" maxlength="3"></div>
<div class="field"><label for="f-questions">${t.questions}</label><textarea id="f-questions" name="questions" rows="4" aria-describedby="f-questions-hint">${form.questions}</textarea><p class="hint" id="f-questions-hint">${t.questionsHint}</p></div>
<label class="choice"><input type="checkbox" name="public" value="on"${form.public ? html` checked` : ''}> ${t.public}</label>
<p><button type="submit" class="primary">${view.uuid === null ? t.create : t.save}</button></p>
</form>
<p><a href="/app/topics">${t.back}</a></p>`,
  );
}

// ── Team (admins) ────────────────────────────────────────────────────────────────────────

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
  return page(
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
        meetingItem(frame, t, meeting, view.upcoming.topicNames.get(meeting.topicUuid) ?? '—', view.timezone, hostNames.get(meeting.hostUuid) ?? meeting.hostUsername),
      )}</ul>`
}
</section>`,
  );
}

// ── Connections ──────────────────────────────────────────────────────────────────────────

export interface ConnectionsView {
  /** One row per provider the service supports, with the member's connection when there is one. */
  providers: readonly { provider: string; label: string; connection: Connection | null }[];
  calendars: readonly ConnectedCalendar[];
  feedUrl: string;
  flash: string | null;
  error: string | null;
  /** Set after "Connect": the provider's authorization page to continue to. */
  authorize: { label: string; url: string } | null;
}

export function renderConnectionsPage(frame: AppFrame, view: ConnectionsView): SafeHtml {
  const t = APP_STRINGS[frame.lang];
  const statusOf = (connection: Connection | null) =>
    connection === null
      ? t.notConnected
      : connection.status === 'connected'
        ? `${t.connectedAs}${connection.accountEmail ? `: ${connection.accountEmail}` : ''}`
        : connection.status === 'pending'
          ? t.pending
          : `${t.failedStatus}${connection.lastError ? `: ${connection.lastError}` : ''}`;
  return page(
    frame,
    t.connections,
    'connections',
    html`${notice(view.flash)}${view.error ? html`<div class="alert" role="alert">${view.error}</div>` : ''}
${
  view.authorize
    ? html`<p class="notice" role="status"><a id="authorize" class="primary" href="${view.authorize.url}" rel="noopener" target="_blank">${t.continueTo} ${view.authorize.label}</a> ${t.continueHint}</p>`
    : ''
}
<section aria-labelledby="h-accounts"><h2 id="h-accounts">${t.roomsAndCalendars}</h2>
<p class="hint">${t.roomsHint}</p>
<ul class="topics">
${view.providers.map(
  (row) => html`<li class="topic" id="p-${row.provider}">
<h3 id="hp-${row.provider}">${row.label}</h3>
<p class="status">${statusOf(row.connection)}</p>
<div class="actions">
<form method="post" action="/app/connections/${row.provider}">${csrfField(frame)}<button type="submit" aria-describedby="hp-${row.provider}">${row.connection ? t.reconnect : t.connect}</button></form>
${
  row.connection
    ? html`<form method="post" action="/app/connections/${row.provider}/remove">${csrfField(frame)}<button type="submit" class="link" aria-describedby="hp-${row.provider}">${t.disconnect}</button></form>`
    : ''
}
</div>
</li>`,
)}
</ul>
</section>
<section aria-labelledby="h-calendars"><h2 id="h-calendars">${t.calendars}</h2>
<p class="hint">${t.calendarsHint}</p>
${
  view.calendars.length === 0
    ? html`<p>${t.noCalendars}</p>`
    : html`<ul class="topics">${view.calendars.map(
        (calendar) => html`<li class="topic" id="c-${calendar.uuid}">
<h3 id="hc-${calendar.uuid}">${calendar.type.toUpperCase()}: ${calendar.displayUrl}</h3>
<p class="status">${calendar.status}${calendar.lastError ? `: ${calendar.lastError}` : ''}</p>
<form method="post" action="/app/connections/calendars/${calendar.uuid}/remove">${csrfField(frame)}<button type="submit" class="link" aria-describedby="hc-${calendar.uuid}">${t.removeCalendar}</button></form>
</li>`,
      )}</ul>`
}
<h3 id="h-add-calendar">${t.addCalendar}</h3>
<form method="post" action="/app/connections/calendars" aria-labelledby="h-add-calendar">
${csrfField(frame)}
<div class="field"><label for="f-cal-type">${t.calendarType}</label><select id="f-cal-type" name="type"><option value="caldav">CalDAV</option><option value="ics">ICS (iCalendar URL)</option></select></div>
<div class="field"><label for="f-cal-url">${t.calendarUrl}</label><input type="url" id="f-cal-url" name="url" required maxlength="2000"></div>
<div class="field"><label for="f-cal-user">${t.calendarUser} <span class="opt">${t.optional}</span></label><input type="text" id="f-cal-user" name="username" maxlength="200" autocomplete="off"></div>
<div class="field"><label for="f-cal-password">${t.calendarPassword} <span class="opt">${t.optional}</span></label><input type="password" id="f-cal-password" name="password" maxlength="500" autocomplete="new-password"></div>
<label class="choice"><input type="checkbox" name="checkConflicts" value="on" checked> ${t.checkConflicts}</label>
<label class="choice"><input type="checkbox" name="writeMeetings" value="on"> ${t.writeMeetings}</label>
<p><button type="submit" class="primary">${t.addCalendar}</button></p>
</form>
</section>
<section aria-labelledby="h-feed"><h2 id="h-feed">${t.feed}</h2>
<p class="hint" id="feed-hint">${t.feedHint}</p>
<div class="field copy"><label for="feed-url">${t.feed}</label><input type="text" id="feed-url" value="${view.feedUrl}" readonly aria-describedby="feed-hint">
<button type="button" class="copy-link" data-copy="feed-url" hidden>${t.copyLink}</button></div>
<form method="post" action="/app/connections/feed">${csrfField(frame)}<button type="submit">${t.newFeedLink}</button></form>
</section>`,
  );
}
