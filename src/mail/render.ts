import ical, { ICalAlarmType, ICalAttendeeRole, ICalAttendeeStatus, ICalCalendarMethod, ICalEventStatus } from 'ical-generator';
import type { Lang } from '../domain/meeting.js';
import type { AnsweredQuestion } from '../domain/form.js';
import { escapeHtml, linkifyText, toParameterValue, toSingleLine, toTextLines } from '../domain/text.js';
import { buildForEachLang } from '../i18n/catalogue.js';
import { CALENDAR_LINK_LABELS } from '../i18n/calendar-link-labels.js';
import { PLACE_LABELS } from '../i18n/place-labels.js';
import type { BookingMessagePayload, PaymentMessagePayload } from './booking-message.js';
import { NO_INVITATION, type MessageBranding, type RenderedMessage } from './message.js';
import { accentOnDark, DEFAULT_ACCENT } from '../domain/branding.js';
import { calendarLinks } from '../domain/calendar-links.js';
import { formatDateTime, formatMoney, formatSpan, type FormatLocale } from '../domain/formats.js';

interface Vars {
  topic: string;
  other: string;
  date: string;
}

/** One kind of booking message: its subjects and first lines for either side, and what its attached invitation does. */
interface KindStrings {
  subject: (v: Vars) => string;
  hostSubject: (v: Vars) => string;
  lead: string;
  hostLead: string;
  invitation: string;
}

/**
 * The words of the booking and payment messages, in every language (locales/<lang>/mail.json):
 * one kind per event, the labels of their lines, the buttons and the payment messages.
 */
const STRINGS = buildForEachLang('mail', (t) => {
  const kind = (name: string): KindStrings => ({
    subject: (v) => t(`${name}.subject`, { ...v }),
    hostSubject: (v) => t(`${name}.hostSubject`, { ...v }),
    lead: t(`${name}.lead`),
    hostLead: t(`${name}.hostLead`),
    invitation: t(`${name}.invitation`),
  });
  return {
    greeting: (name: string) => t('greeting', { name }),
    signature: (account: string) => t('signature', { account }),
    /** `What` → "What:" (fr "Quoi :"); a label that ends in its own ? or : keeps it. */
    labelled: (label: string) => (/[?:!.]$/.test(label) ? label : t('labelled', { label })),
    confirmed: kind('confirmed'),
    cancelled: kind('cancelled'),
    /** A moved meeting: where it was, beside the new time. */
    rescheduled: { ...kind('rescheduled'), previously: t('rescheduled.previously') },
    /** The link of the meeting's own room, arrived after the confirmation; and the notes that it will. */
    located: { ...kind('located'), follows: t('located.follows'), fromHost: (host: string) => t('located.fromHost', { host }), hostSends: t('located.hostSends') },
    what: t('labels.what'),
    when: t('labels.when'),
    withWhom: t('labels.withWhom'),
    where: t('labels.where'),
    participant: t('labels.participant'),
    /** The participant's guests (their addresses), and who invited a guest. */
    guests: t('labels.guests'),
    invitedBy: t('labels.invitedBy'),
    phone: t('labels.phone'),
    note: t('labels.note'),
    reason: t('labels.reason'),
    /** The location's detail: an address, a meeting-room link, a number to call. */
    address: t('labels.address'),
    link: t('labels.link'),
    conferenceId: t('labels.conferenceId'),
    password: t('labels.password'),
    phoneNumber: t('labels.phoneNumber'),
    /** The participant's answers to the topic's questions (the host's message). */
    answers: t('answers.heading'),
    yes: t('answers.yes'),
    no: t('answers.no'),
    /** Buttons: the meeting's link, and the private manage page (and how the text part says it). */
    join: t('actions.join'),
    manageButton: t('actions.manage'),
    manageText: t('actions.manageText'),
    addToCalendar: t('actions.addToCalendar'),
  };
});
type Strings = (typeof STRINGS)[Lang];

/**
 * A value a client gave (a name, a phone, a topic's name), as it may be shown on one line.
 * The API refuses control characters in these fields, but rows stored before it did, or
 * written by other paths, are rendered too: a CR/LF must never start a line of its own
 * in a message (a forged `Where:` line, or a header if a transport ever copies it).
 */
const one = (value: string) => toSingleLine(value);

/** An address as shown and as put after `mailto:`: one line, no white space at all. */
const address = (email: string) => toSingleLine(email).replace(/\s+/g, '');

/** A line of the message: `label: value`, or a sentence of its own. */
interface Line {
  label?: string;
  /** A single-line value; `lines` instead for text that may span lines (a note, a reason). */
  value: string;
  lines?: string[];
  /** The value is this link (shown as a link in HTML). */
  href?: string;
  /** Plain text whose http(s) links become links in HTML (a business's own message). */
  linkify?: boolean;
}

/**
 * A button of the HTML part (a link drawn as a button), and how the text part says it:
 * `text` is the line's label there, or undefined when a line of the message already
 * carries the same link (the meeting's `Link:`).
 */
interface Action {
  label: string;
  url: string;
  text?: string | undefined;
}

/** Everything of one message before it becomes text and HTML. */
interface MessageParts {
  paragraphs: Line[][];
  actions: Action[];
  /** Links under `calendarHeading` ("Add to your calendar", both parts); empty for a cancellation. */
  calendar: { label: string; url: string }[];
  calendarHeading?: string;
  /** The closing paragraphs, after the buttons: the invitation note and the signature. */
  closing: Line[][];
  /** The business's look; absent: termin's. */
  branding?: MessageBranding | undefined;
}

/** Subject, plain text, HTML and iCalendar invitation of one booking message, in its language and zone. */
export function renderBookingMessage(payload: BookingMessagePayload): RenderedMessage {
  const s = STRINGS[payload.lang];
  const { meeting } = payload;
  const toHost = payload.recipient === 'host';
  const cancelled = payload.event === 'cancelled';
  const topic = one(meeting.topicName);
  const attendee = { name: one(payload.attendee.name), email: address(payload.attendee.email) };
  const organizer = { name: one(payload.organizer.name), email: address(payload.organizer.email) };
  const vars: Vars = { topic, other: toHost ? attendee.name : organizer.name, date: formatDateTime(meeting.start, payload.timezone, payload.locale ?? payload.lang) };
  const kind: KindStrings = s[payload.event];
  const subject = one((toHost ? kind.hostSubject : kind.subject)(vars));
  const lead = toHost ? kind.hostLead : kind.lead;
  const span = (from: number, to: number) => formatSpan(from, to, one(payload.timezone), payload.locale ?? payload.lang);
  const when = span(meeting.start, meeting.end);
  const details: Line[] = [
    { label: s.what, value: topic },
    { label: s.when, value: when },
    toHost ? { label: s.participant, value: attendee.email === '' ? attendee.name : `${attendee.name} <${attendee.email}>` } : { label: s.withWhom, value: organizer.name },
    { label: s.where, value: PLACE_LABELS[payload.lang][meeting.place] },
  ];
  // Everyone reads who else comes: the host and the participant the guests, a guest who brought them.
  const guests = (payload.guests ?? []).map(address).filter((guest) => guest !== '');
  if (payload.recipient === 'guest') details.splice(3, 0, { label: s.invitedBy, value: attendee.name });
  if (guests.length > 0) details.splice(3, 0, { label: s.guests, value: guests.join(', ') });
  const location = meeting.location ?? null;
  if (location?.address) details.push({ label: s.address, value: one(location.address) });
  if (location?.url) details.push({ label: s.link, value: one(location.url), href: one(location.url) });
  if (location?.conferenceId) details.push({ label: s.conferenceId, value: one(location.conferenceId) });
  if (location?.password) details.push({ label: s.password, value: one(location.password) });
  if (location?.phone) details.push({ label: s.phoneNumber, value: one(location.phone) });
  if (!cancelled && !location?.url && payload.linkFollows) details.push({ value: s.located.follows });
  if (!cancelled && !location?.url && payload.linkFromHost) {
    details.push({ value: toHost ? s.located.hostSends : s.located.fromHost(organizer.name) });
  }
  // The participant's phone, unless the location already shows it (a phone call to them).
  if (toHost && meeting.phone && location?.phone !== meeting.phone.trim()) details.push({ label: s.phone, value: one(meeting.phone) });
  if (toHost && meeting.note) details.push(multiLine(s.note, meeting.note));
  if (cancelled && meeting.cancelReason) details.push(multiLine(s.reason, meeting.cancelReason));
  if (!cancelled) details.push(...paidLines(payload));
  if (payload.event === 'rescheduled' && payload.previous) {
    details.splice(2, 0, { label: s.rescheduled.previously, value: span(payload.previous.start, payload.previous.end) });
  }
  const manage = payload.manageUrl && !cancelled ? one(payload.manageUrl) : null;
  const actions: Action[] = [];
  if (!cancelled && location?.url) actions.push({ label: s.join, url: one(location.url) });
  if (manage) actions.push({ label: s.manageButton, url: manage, text: s.manageText });
  const links = cancelled
    ? null
    : calendarLinks({
        title: `${topic}: ${toHost ? attendee.name : organizer.name}`,
        start: meeting.start,
        end: meeting.end,
        location: location?.url ?? location?.text ?? PLACE_LABELS[payload.lang][meeting.place],
        details: manage ? `${s.labelled(s.manageButton)} ${manage}` : null,
      });
  return renderParts(payload.lang, subject, payload.to, {
    paragraphs: [
      [{ value: s.greeting(one(payload.to.name)) }],
      [{ value: lead }],
      details,
      ...(toHost && payload.answers && payload.answers.length > 0 ? [answerLines(payload.answers, s)] : []),
      // The business's own words after booking (what to bring, how to prepare): the participant's confirmation only.
      ...(!toHost && payload.event === 'confirmed' && payload.confirmationMessage?.trim() ? [[confirmationLine(payload.confirmationMessage)]] : []),
    ],
    branding: payload.branding,
    actions,
    calendar: links
      ? [
          { label: CALENDAR_LINK_LABELS[payload.lang].google, url: links.google },
          { label: CALENDAR_LINK_LABELS[payload.lang].outlook, url: links.outlook },
        ]
      : [],
    calendarHeading: s.addToCalendar,
    closing: [[{ value: kind.invitation }], [{ value: s.signature(one(payload.accountName)) }]],
    ics: renderInvitation(payload, PLACE_LABELS[payload.lang][meeting.place]),
  });
}

/**
 * "Answers to the booking questions:" and one `Label: answer` line each, under a heading of
 * their own; a multi-line answer's continuation lines are indented like a note's, so no
 * line a participant wrote can pass for one of ours.
 */
function answerLines(answers: readonly AnsweredQuestion[], s: Strings): Line[] {
  return [
    { value: s.labelled(s.answers) },
    ...answers.map((answered): Line => {
      const label = one(answered.label);
      if (typeof answered.answer === 'boolean') return { label, value: answered.answer ? s.yes : s.no };
      return answered.type === 'textarea' ? multiLine(label, answered.answer) : { label, value: one(answered.answer) };
    }),
  ];
}

function confirmationLine(message: string): Line {
  const lines = toTextLines(message);
  return { value: lines[0] ?? '', lines, linkify: true };
}

function multiLine(label: string, value: string): Line {
  const lines = toTextLines(value);
  return { label, value: lines[0] ?? '', lines };
}

/** The message's text and HTML parts from the same parts, with its subject and recipient. */
/**
 * A notice written in full when queued (an operator's warning, an approval message) in the
 * same layout as the booking messages: its paragraphs as paragraphs, a `Label: value` line
 * as a labelled row, a link (alone or after a label) as a link. The text part is the text
 * as written. Nothing in it is trusted: every value is escaped, only http(s) links link.
 */
export function renderNoticeMessage(lang: Lang, to: { name: string; email: string }, subject: string, text: string, branding?: MessageBranding): RenderedMessage {
  const paragraphs = text
    .split(/\n{2,}/)
    .map((paragraph) => paragraph.split('\n').filter((line) => line.trim() !== ''))
    .filter((lines) => lines.length > 0)
    .map((lines) => lines.map(noticeLine));
  const html = renderHtml({ paragraphs, actions: [], calendar: [], closing: [], branding }, lang, subject);
  return { to: { name: one(to.name), email: address(to.email) }, subject, text: text.endsWith('\n') ? text : `${text}\n`, html, ics: NO_INVITATION };
}

function noticeLine(line: string): Line {
  const labelled = /^([^:]{1,60}): (.+)$/.exec(line);
  const link = (value: string) => (/^https?:\/\/\S+$/.test(value) ? { href: value } : {});
  if (labelled && !/^https?$/.test(labelled[1]!)) return { label: labelled[1]!, value: labelled[2]!, ...link(labelled[2]!) };
  return { value: line, ...link(line) };
}

function renderParts(lang: Lang, subject: string, to: { name: string; email: string }, parts: MessageParts & { ics: RenderedMessage['ics'] }): RenderedMessage {
  return {
    to: { name: one(to.name), email: address(to.email) },
    subject,
    text: renderText(parts, lang),
    html: renderHtml(parts, lang, subject),
    ics: parts.ics,
  };
}

/**
 * Paragraphs separated by a blank line, one `Label: value` per line, then the buttons as
 * `Label: link` lines and the calendar links. The continuation lines of a note are
 * indented, so no line a participant wrote can pass for one of ours.
 */
function renderText(parts: MessageParts, lang: Lang): string {
  // `What` → "What:" (fr "Quoi :"), but "What would you like to discuss?" keeps its own question mark.
  const withColon = STRINGS[lang].labelled;
  const render = (line: Line) => {
    const [first = '', ...rest] = line.lines ?? [line.value];
    const head = line.label === undefined ? first : `${withColon(line.label)} ${first}`;
    return [head, ...rest.map((continued) => `  ${continued}`.trimEnd())].join('\n');
  };
  const actions = parts.actions.filter((action) => action.text !== undefined).map((action): Line => ({ label: action.text!, value: action.url }));
  const calendar: Line[] =
    parts.calendar.length > 0 ? [{ value: withColon(parts.calendarHeading ?? '') }, ...parts.calendar.map((link): Line => ({ label: `  ${link.label}`, value: link.url }))] : [];
  const paragraphs = [...parts.paragraphs, ...(actions.length > 0 ? [actions] : []), ...(calendar.length > 0 ? [calendar] : []), ...parts.closing];
  return `${paragraphs.map((paragraph) => paragraph.map(render).join('\n')).join('\n\n')}\n`;
}

/*
 * The HTML part is laid out the way mail programs render reliably: nested tables, every
 * style inline (Gmail drops <style> in many cases), a 600 px column that shrinks to the
 * screen, long values (links) allowed to break so nothing scrolls sideways at 360 px, and
 * buttons that are plain links with a coloured cell behind them (Outlook ignores padding
 * on links). Every value is escaped; a note's line breaks become <br>.
 */
const FONT = "font-family:-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";
const INK = '#1f2328';
const MUTED = '#57606a';
/** The dark-mode card, and its text: the `<style>` block's colours (mail programs that honour it). */
const DARK = { page: '#0f1115', card: '#1c1f26', border: '#30343c', ink: '#e6e8eb', muted: '#a9b0ba' } as const;

/**
 * Light by default, with every colour inline (what every mail program shows); a `<style>`
 * block turns it dark where the reader's program supports `prefers-color-scheme` (Apple
 * Mail, iOS, Outlook for Mac, Thunderbird). Programs that invert colours themselves (Gmail
 * apps, Outlook.com) get plain light colours they invert well. The accent stays the
 * business's (buttons keep white text on it at 4.5:1); links use a lighter tint in dark mode.
 */
function darkModeStyle(accent: string): string {
  const link = accentOnDark(accent, DARK.card);
  return `<style>
:root { color-scheme: light dark; supported-color-schemes: light dark; }
@media (prefers-color-scheme: dark) {
  .t-page { background: ${DARK.page} !important; }
  .t-card { background: ${DARK.card} !important; border-color: ${DARK.border} !important; }
  .t-ink { color: ${DARK.ink} !important; }
  .t-muted { color: ${DARK.muted} !important; }
  .t-link { color: ${link} !important; }
  .t-ghost { background: ${DARK.card} !important; }
  .t-ghost a { color: ${link} !important; }
}
</style>`;
}

function renderHtml(parts: MessageParts, lang: Lang, title: string): string {
  const accent = parts.branding?.accent ?? DEFAULT_ACCENT;
  const linkStyle = `color:${accent};word-break:break-all;`;
  const value = (line: Line) => {
    if (line.linkify) return linkifyText((line.lines ?? [line.value]).join('\n'), linkStyle).replaceAll('<a href=', '<a class="t-link" href=');
    const text = (line.lines ?? [line.value]).map(escapeHtml).join('<br>\n');
    return line.href ? `<a href="${escapeHtml(line.href)}" class="t-link" style="${linkStyle}">${text}</a>` : text;
  };
  const paragraph = (lines: Line[]) => {
    // Labelled lines become a two-column table (label, value); sentences stay paragraphs.
    const out: string[] = [];
    let rows: string[] = [];
    const flush = () => {
      if (rows.length > 0)
        out.push(
          `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="border-collapse:collapse;margin:0 0 16px;">\n${rows.join('\n')}\n</table>`,
        );
      rows = [];
    };
    for (const line of lines) {
      if (line.label === undefined) {
        flush();
        // The business's own message stands apart: a bar in its colour beside it.
        const aside = line.linkify ? `border-left:4px solid ${accent};padding:4px 0 4px 12px;` : '';
        out.push(`<p style="margin:0 0 16px;${aside}">${value(line)}</p>`);
      } else {
        rows.push(
          `<tr><th scope="row" align="left" valign="top" class="t-muted" style="padding:4px 12px 4px 0;font-weight:600;color:${MUTED};width:30%;">${escapeHtml(line.label)}</th>` +
            `<td valign="top" style="padding:4px 0;overflow-wrap:anywhere;word-break:break-word;">${value(line)}</td></tr>`,
        );
      }
    }
    flush();
    return out.join('\n');
  };
  const buttons = parts.actions
    .map(
      (action, index) =>
        `<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="margin:0 0 12px;"><tr><td${index === 0 ? '' : ' class="t-ghost"'} style="border-radius:6px;background:${index === 0 ? accent : '#ffffff'};border:2px solid ${accent};">` +
        `<a href="${escapeHtml(action.url)}" class="button" style="display:inline-block;padding:12px 20px;${FONT};font-size:16px;font-weight:600;line-height:1.2;color:${index === 0 ? '#ffffff' : accent};text-decoration:none;border-radius:6px;">${escapeHtml(action.label)}</a></td></tr></table>`,
    )
    .join('\n');
  const calendar =
    parts.calendar.length > 0
      ? `<p class="t-muted" style="margin:4px 0 16px;color:${MUTED};">${escapeHtml(STRINGS[lang].labelled(parts.calendarHeading ?? ''))} ${parts.calendar
          .map((link) => `<a href="${escapeHtml(link.url)}" class="calendar t-link" style="color:${accent};">${escapeHtml(link.label)}</a>`)
          .join(' · ')}</p>`
      : '';
  const closing = parts.closing.map((lines) => `<p class="t-muted" style="margin:0 0 16px;color:${MUTED};font-size:14px;">${lines.map(value).join('<br>\n')}</p>`).join('\n');
  return `<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark"><meta name="supported-color-schemes" content="light dark"><title>${escapeHtml(title)}</title>
${darkModeStyle(accent)}</head>
<body class="t-page" style="margin:0;padding:0;background:#f4f5f7;">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" class="t-page" style="background:#f4f5f7;"><tr><td align="center" style="padding:24px 8px;">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" class="t-card" style="max-width:600px;width:100%;background:#ffffff;border:1px solid #e3e5e8;border-top:4px solid ${accent};border-radius:8px;">
${brandHeader(parts.branding)}<tr><td class="t-ink" style="padding:24px 20px;${FONT};font-size:16px;line-height:1.5;color:${INK};text-align:left;">
${parts.paragraphs.map(paragraph).join('\n')}
${buttons}
${calendar}
${closing}
</td></tr></table>
</td></tr></table>
</body></html>
`;
}

/**
 * The business's logo and name above the message. The logo is the one image a message
 * loads, from termin's own URL (never the business's server); its alt text is the name, so
 * a program that blocks images still shows who wrote.
 */
function brandHeader(branding: MessageBranding | undefined): string {
  if (!branding) return '';
  const name = escapeHtml(one(branding.name));
  const logo = branding.logo
    ? `<img src="${escapeHtml(branding.logo)}" alt="${name}" height="40" style="display:block;height:40px;max-height:40px;width:auto;max-width:200px;border:0;outline:none;text-decoration:none;">`
    : '';
  const title = `<span class="t-ink" style="${FONT};font-size:18px;font-weight:700;color:${INK};">${name}</span>`;
  return `<tr><td style="padding:20px 20px 0;"><table role="presentation" cellpadding="0" cellspacing="0" border="0"><tr>${logo ? `<td valign="middle" style="padding:0 12px 0 0;">${logo}</td>` : ''}<td valign="middle">${title}</td></tr></table></td></tr>\n`;
}

/**
 * One VEVENT whose UID is stable for the meeting, so a cancellation (METHOD:CANCEL, higher
 * SEQUENCE) replaces the original invitation in Google Calendar, Outlook and Apple Calendar.
 *
 * What ical-generator's escaping covers, and what it does not: TEXT values (SUMMARY,
 * LOCATION, DESCRIPTION) get `\\`, `;`, `,` and line breaks escaped as RFC 5545 says, which
 * is sufficient once other control characters are dropped (toSingleLine / toTextLines).
 * A parameter value (CN) it only wraps in quotes and escapes `"` as `\\"`, which RFC 5545
 * does not have: a `"` in a name closes the quotes, and `Eve";ROLE=CHAIR;X=":mailto:…`
 * becomes parameters of its own and another address. So names pass toParameterValue
 * first: no `"`, no backslash, no control character, nothing left for it to escape.
 */
export function renderInvitation(payload: BookingMessagePayload, placeLabel: string): RenderedMessage['ics'] {
  // A group meeting's host invitation stays while anyone holds a seat: one participant's cancel updates it.
  const group = payload.recipient === 'host' ? payload.group : undefined;
  const cancelled = group ? group.attendees.length === 0 : payload.event === 'cancelled';
  const method = cancelled ? ICalCalendarMethod.CANCEL : ICalCalendarMethod.REQUEST;
  const calendar = ical({ prodId: { company: 'termin', product: 'termin', language: 'EN' }, method });
  // The note is the participant's message to the host: only the host's invitation carries it.
  // Both carry the manage link, so it is at hand from the calendar entry too.
  const note = payload.meeting.note === null || payload.recipient !== 'host' ? [] : toTextLines(payload.meeting.note);
  const manage = payload.manageUrl && !cancelled ? [`${STRINGS[payload.lang].labelled(STRINGS[payload.lang].manageButton)} ${one(payload.manageUrl)}`] : [];
  const description = [...note, ...(note.length > 0 && manage.length > 0 ? [''] : []), ...manage];
  const event = calendar.createEvent({
    id: group ? group.uid : `${payload.meeting.uuid}@termin`,
    sequence: group ? group.sequence : payload.meeting.sequence,
    start: new Date(payload.meeting.start),
    end: new Date(payload.meeting.end),
    stamp: new Date(),
    summary: group
      ? `${one(payload.meeting.topicName)}: ${one(payload.organizer.name)} (${group.attendees.length})`
      : `${one(payload.meeting.topicName)}: ${one(payload.organizer.name)} / ${one(payload.attendee.name)}`,
    // What a calendar shows and can act on: the address (maps), the link, the number; else the place.
    location: one(payload.meeting.location?.text ?? placeLabel),
    url: payload.meeting.location?.url ? one(payload.meeting.location.url) : null,
    description: description.length > 0 ? description.join('\n') : undefined,
    status: cancelled ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
    organizer: { name: toParameterValue(payload.organizer.name), email: address(payload.organizer.email) },
    // An erased participant has no address left to list (and their seat is gone from the group's).
    // The participant's guests are attendees of the same invitation (a group's host invitation lists its seats).
    attendees: (group ? group.attendees : [payload.attendee, ...(payload.guests ?? []).map((guest) => ({ name: guest, email: guest }))])
      .filter((attendee) => attendee.email !== '')
      .map((attendee) => ({
        name: toParameterValue(attendee.name),
        email: address(attendee.email),
        rsvp: !cancelled,
        role: ICalAttendeeRole.REQ,
        status: ICalAttendeeStatus.NEEDSACTION,
      })),
  });
  // The reader's earliest reminder (the topic's `reminders`), so their calendar raises it too.
  if (payload.alarmMinutesBefore !== undefined && !cancelled) {
    event.createAlarm({ type: ICalAlarmType.display, trigger: payload.alarmMinutesBefore * 60, description: one(payload.meeting.topicName) });
  }
  return { method: cancelled ? 'CANCEL' : 'REQUEST', content: calendar.toString() };
}

/* ---------------------------------------------------------------------------------------
 * Payments: the amount paid and the invoice details in a paid booking's confirmation, and
 * the payment messages (pay link and deadline, slot released, refund), without invitation.
 * ------------------------------------------------------------------------------------- */

/** The payment lines of a paid booking's confirmation and the payment messages, in every language (locales/<lang>/mail.json, `payment`). */
const PAYMENT_STRINGS = buildForEachLang('mail', (t) => ({
  paid: t('payment.paid'),
  invoice: t('payment.invoice'),
  amount: t('payment.amount'),
  payBy: t('payment.payBy'),
  payLink: t('payment.payLink'),
  payButton: (amount: string) => t('payment.payButton', { amount }),
  pendingSubject: (topic: string) => t('payment.pendingSubject', { topic }),
  pendingLead: t('payment.pendingLead'),
  releasedSubject: (topic: string) => t('payment.releasedSubject', { topic }),
  releasedLead: t('payment.releasedLead'),
  refundedSubject: (topic: string) => t('payment.refundedSubject', { topic }),
  refundedLead: { cancelled: t('payment.refundedLeadCancelled'), slot_taken: t('payment.refundedLeadSlotTaken') } satisfies Record<'cancelled' | 'slot_taken', string>,
  refundNote: t('payment.refundNote'),
}));

/** 15000 PLN → "PLN 150.00" (en), "150,00 zł" (pl): the formats module's money, as on the pages. */
export function formatAmount(amount: number, currency: string, locale: FormatLocale): string {
  return formatMoney(amount, one(currency), locale);
}

/** "Paid: PLN 150.00" and the invoice fields, one line (the address may span lines). */
function paidLines(payload: BookingMessagePayload): Line[] {
  const s = PAYMENT_STRINGS[payload.lang];
  const lines: Line[] = [];
  if (payload.paid) lines.push({ label: s.paid, value: formatAmount(payload.paid.amount, payload.paid.currency, payload.locale ?? payload.lang) });
  const invoice = payload.invoice;
  if (invoice) {
    const parts = [invoice.invoiceName, invoice.invoiceAddress, [invoice.invoicePostalCode, invoice.invoiceCity].filter(Boolean).join(' '), invoice.invoiceTaxNumber]
      .filter((part): part is string => typeof part === 'string' && part.trim() !== '')
      .flatMap((part) => toTextLines(part));
    if (parts.length > 0) lines.push({ label: s.invoice, value: parts[0]!, lines: parts });
  }
  return lines;
}

/** A payment message: subject, text and HTML in the participant's language and zone; no invitation. */
export function renderPaymentMessage(payload: PaymentMessagePayload): RenderedMessage {
  const s = STRINGS[payload.lang];
  const p = PAYMENT_STRINGS[payload.lang];
  const topic = one(payload.topicName);
  const when = payload.meetings.map((meeting) => formatSpan(meeting.start, meeting.end, one(payload.timezone), payload.locale ?? payload.lang));
  const details: Line[] = [
    { label: s.what, value: topic },
    ...when.map((value) => ({ label: s.when, value })),
    { label: p.amount, value: formatAmount(payload.amount, payload.currency, payload.locale ?? payload.lang) },
  ];
  let subject: string;
  let lead: string;
  const extra: Line[][] = [];
  const actions: Action[] = [];
  if (payload.event === 'pending') {
    subject = p.pendingSubject(topic);
    lead = p.pendingLead;
    if (payload.deadline !== undefined)
      details.push({ label: p.payBy, value: `${formatDateTime(payload.deadline, one(payload.timezone), payload.locale ?? payload.lang)} (${one(payload.timezone)})` });
    if (payload.payUrl)
      actions.push({ label: p.payButton(formatAmount(payload.amount, payload.currency, payload.locale ?? payload.lang)), url: one(payload.payUrl), text: p.payLink });
  } else if (payload.event === 'released') {
    subject = p.releasedSubject(topic);
    lead = p.releasedLead;
  } else {
    subject = p.refundedSubject(topic);
    lead = p.refundedLead[payload.refundReason ?? 'cancelled'];
    extra.push([{ value: p.refundNote }]);
  }
  const title = one(subject);
  return renderParts(payload.lang, title, payload.to, {
    paragraphs: [[{ value: s.greeting(one(payload.to.name)) }], [{ value: lead }], details, ...extra],
    actions,
    calendar: [],
    closing: [[{ value: s.signature(one(payload.accountName)) }]],
    branding: payload.branding,
    // No calendar part: the transport attaches nothing for an empty invitation (see NO_INVITATION).
    ics: { method: 'REQUEST', content: '' },
  });
}
