import ical, { ICalAttendeeRole, ICalAttendeeStatus, ICalCalendarMethod, ICalEventStatus } from 'ical-generator';
import { DateTime } from 'luxon';
import type { Lang } from '../domain/meeting.js';
import type { AnsweredQuestion } from '../domain/form.js';
import { escapeHtml, toParameterValue, toSingleLine, toTextLines } from '../domain/text.js';
import { PLACE_LABELS } from '../domain/place-labels.js';
import type { BookingMessagePayload, PaymentMessagePayload } from './booking-message.js';
import { formatMinorUnits } from '../domain/money.js';

export interface RenderedMessage {
  to: { name: string; email: string };
  subject: string;
  text: string;
  /** The same message as HTML, every value escaped; for a transport that sends both. */
  html: string;
  ics: { method: 'REQUEST' | 'CANCEL'; content: string };
}

interface Strings {
  confirmedSubject: (p: Vars) => string;
  cancelledSubject: (p: Vars) => string;
  hostConfirmedSubject: (p: Vars) => string;
  hostCancelledSubject: (p: Vars) => string;
  greeting: (name: string) => string;
  confirmedLead: string;
  cancelledLead: string;
  hostConfirmedLead: string;
  hostCancelledLead: string;
  what: string;
  when: string;
  withWhom: string;
  where: string;
  participant: string;
  phone: string;
  note: string;
  reason: string;
  invitation: string;
  cancelInvitation: string;
  signature: (account: string) => string;
  /** The location's detail: an address, a meeting-room link, a number to call. */
  address: string;
  link: string;
  conferenceId: string;
  password: string;
  phoneNumber: string;
  /** The participant's answers to the topic's questions (the host's message). */
  answers: string;
  yes: string;
  no: string;
}

interface Vars {
  topic: string;
  other: string;
  date: string;
}

const STRINGS: Record<Lang, Strings> = {
  en: {
    confirmedSubject: (v) => `Confirmed: ${v.topic} with ${v.other}, ${v.date}`,
    cancelledSubject: (v) => `Cancelled: ${v.topic} with ${v.other}, ${v.date}`,
    hostConfirmedSubject: (v) => `New booking: ${v.topic} with ${v.other}, ${v.date}`,
    hostCancelledSubject: (v) => `Booking cancelled: ${v.topic} with ${v.other}, ${v.date}`,
    greeting: (name) => `Hello ${name},`,
    confirmedLead: 'your meeting is confirmed.',
    cancelledLead: 'your meeting has been cancelled.',
    hostConfirmedLead: 'a meeting has been booked with you.',
    hostCancelledLead: 'a meeting with you has been cancelled.',
    what: 'What',
    when: 'When',
    withWhom: 'With',
    where: 'Where',
    participant: 'Participant',
    phone: 'Phone',
    note: 'Note',
    reason: 'Reason',
    invitation: 'The calendar invitation is attached.',
    cancelInvitation: 'The attached calendar update removes the meeting from your calendar.',
    signature: (account) => `— ${account}, via termin`,
    address: 'Address',
    link: 'Link',
    conferenceId: 'Meeting ID',
    password: 'Passcode',
    phoneNumber: 'Phone number',
    answers: 'Answers to the booking questions',
    yes: 'Yes',
    no: 'No',
  },
  pl: {
    confirmedSubject: (v) => `Potwierdzenie: ${v.topic} – ${v.other}, ${v.date}`,
    cancelledSubject: (v) => `Odwołane: ${v.topic} – ${v.other}, ${v.date}`,
    hostConfirmedSubject: (v) => `Nowa rezerwacja: ${v.topic} – ${v.other}, ${v.date}`,
    hostCancelledSubject: (v) => `Rezerwacja odwołana: ${v.topic} – ${v.other}, ${v.date}`,
    greeting: (name) => `Dzień dobry ${name},`,
    confirmedLead: 'Twoje spotkanie zostało potwierdzone.',
    cancelledLead: 'Twoje spotkanie zostało odwołane.',
    hostConfirmedLead: 'zarezerwowano z Tobą spotkanie.',
    hostCancelledLead: 'spotkanie z Tobą zostało odwołane.',
    what: 'Temat',
    when: 'Termin',
    withWhom: 'Z kim',
    where: 'Miejsce',
    participant: 'Uczestnik',
    phone: 'Telefon',
    note: 'Notatka',
    reason: 'Powód',
    invitation: 'Zaproszenie do kalendarza znajduje się w załączniku.',
    cancelInvitation: 'Załączona aktualizacja usuwa spotkanie z Twojego kalendarza.',
    signature: (account) => `— ${account}, przez termin`,
    address: 'Adres',
    link: 'Link',
    conferenceId: 'Identyfikator spotkania',
    password: 'Kod dostępu',
    phoneNumber: 'Numer telefonu',
    answers: 'Odpowiedzi na pytania z rezerwacji',
    yes: 'Tak',
    no: 'Nie',
  },
};

/** A moved meeting's messages, and the participant's manage link (booking pages and self-service). */
interface RescheduleStrings {
  subject: (v: Vars) => string;
  hostSubject: (v: Vars) => string;
  lead: string;
  hostLead: string;
  previously: string;
  invitation: string;
  manage: string;
}

/** The link of the meeting's own room, arrived after the confirmation; and the note that it will. */
const LOCATED_STRINGS: Record<Lang, Omit<RescheduleStrings, 'previously' | 'manage'> & { follows: string }> = {
  en: {
    subject: (v) => `Link to join: ${v.topic} with ${v.other}, ${v.date}`,
    hostSubject: (v) => `Link to join: ${v.topic} with ${v.other}, ${v.date}`,
    lead: 'your meeting has its own room now: the link to join is below.',
    hostLead: 'the meeting has its own room now: the link to join is below.',
    invitation: 'The attached calendar update adds the link to the meeting in your calendar.',
    follows: 'The link to join will follow in a separate e-mail.',
  },
  pl: {
    subject: (v) => `Link do spotkania: ${v.topic} – ${v.other}, ${v.date}`,
    hostSubject: (v) => `Link do spotkania: ${v.topic} – ${v.other}, ${v.date}`,
    lead: 'Twoje spotkanie ma już własny pokój: link do niego jest poniżej.',
    hostLead: 'spotkanie ma już własny pokój: link do niego jest poniżej.',
    invitation: 'Załączona aktualizacja dodaje link do spotkania w Twoim kalendarzu.',
    follows: 'Link do spotkania prześlemy w osobnej wiadomości.',
  },
};

const RESCHEDULE_STRINGS: Record<Lang, RescheduleStrings> = {
  en: {
    subject: (v) => `Moved: ${v.topic} with ${v.other}, now ${v.date}`,
    hostSubject: (v) => `Booking moved: ${v.topic} with ${v.other}, now ${v.date}`,
    lead: 'your meeting has been moved to a new time.',
    hostLead: 'a meeting with you has been moved to a new time.',
    previously: 'Previously',
    invitation: 'The attached calendar update moves the meeting in your calendar.',
    manage: 'To cancel or move the meeting',
  },
  pl: {
    subject: (v) => `Zmiana terminu: ${v.topic} – ${v.other}, teraz ${v.date}`,
    hostSubject: (v) => `Rezerwacja przeniesiona: ${v.topic} – ${v.other}, teraz ${v.date}`,
    lead: 'termin Twojego spotkania został zmieniony.',
    hostLead: 'termin spotkania z Tobą został zmieniony.',
    previously: 'Poprzednio',
    invitation: 'Załączona aktualizacja przenosi spotkanie w Twoim kalendarzu.',
    manage: 'Aby odwołać lub przenieść spotkanie',
  },
};

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
}

/** Subject, plain text, HTML and iCalendar invitation of one booking message, in its language and zone. */
export function renderBookingMessage(payload: BookingMessagePayload): RenderedMessage {
  const s = STRINGS[payload.lang];
  const { meeting } = payload;
  const start = DateTime.fromMillis(meeting.start, { zone: payload.timezone }).setLocale(payload.lang);
  const end = DateTime.fromMillis(meeting.end, { zone: payload.timezone }).setLocale(payload.lang);
  const toHost = payload.recipient === 'host';
  const cancelled = payload.event === 'cancelled';
  const topic = one(meeting.topicName);
  const attendee = { name: one(payload.attendee.name), email: address(payload.attendee.email) };
  const organizer = { name: one(payload.organizer.name), email: address(payload.organizer.email) };
  const vars: Vars = { topic, other: toHost ? attendee.name : organizer.name, date: start.toLocaleString(DateTime.DATETIME_MED) };
  const moved = payload.event === 'rescheduled' ? RESCHEDULE_STRINGS[payload.lang] : payload.event === 'located' ? { ...LOCATED_STRINGS[payload.lang], previously: '' } : null;
  const subject = one(
    moved
      ? (toHost ? moved.hostSubject : moved.subject)(vars)
      : toHost
        ? (cancelled ? s.hostCancelledSubject : s.hostConfirmedSubject)(vars)
        : (cancelled ? s.cancelledSubject : s.confirmedSubject)(vars),
  );
  const lead = moved ? (toHost ? moved.hostLead : moved.lead) : toHost ? (cancelled ? s.hostCancelledLead : s.hostConfirmedLead) : cancelled ? s.cancelledLead : s.confirmedLead;
  const span = (from: DateTime, to: DateTime) =>
    `${from.toLocaleString(DateTime.DATE_HUGE)}, ${from.toLocaleString(DateTime.TIME_SIMPLE)}–${to.toLocaleString(DateTime.TIME_SIMPLE)} (${one(payload.timezone)})`;
  const when = span(start, end);
  const details: Line[] = [
    { label: s.what, value: topic },
    { label: s.when, value: when },
    toHost ? { label: s.participant, value: `${attendee.name} <${attendee.email}>` } : { label: s.withWhom, value: organizer.name },
    { label: s.where, value: PLACE_LABELS[payload.lang][meeting.place] },
  ];
  const location = meeting.location ?? null;
  if (location?.address) details.push({ label: s.address, value: one(location.address) });
  if (location?.url) details.push({ label: s.link, value: one(location.url) });
  if (location?.conferenceId) details.push({ label: s.conferenceId, value: one(location.conferenceId) });
  if (location?.password) details.push({ label: s.password, value: one(location.password) });
  if (location?.phone) details.push({ label: s.phoneNumber, value: one(location.phone) });
  if (!cancelled && !location?.url && payload.linkFollows) details.push({ value: LOCATED_STRINGS[payload.lang].follows });
  // The participant's phone, unless the location already shows it (a phone call to them).
  if (toHost && meeting.phone && location?.phone !== meeting.phone.trim()) details.push({ label: s.phone, value: one(meeting.phone) });
  if (toHost && meeting.note) details.push(multiLine(s.note, meeting.note));
  if (cancelled && meeting.cancelReason) details.push(multiLine(s.reason, meeting.cancelReason));
  if (!cancelled) details.push(...paidLines(payload));
  if (moved && payload.previous) {
    const zone = { zone: payload.timezone };
    details.splice(2, 0, {
      label: moved.previously,
      value: span(DateTime.fromMillis(payload.previous.start, zone).setLocale(payload.lang), DateTime.fromMillis(payload.previous.end, zone).setLocale(payload.lang)),
    });
  }
  const paragraphs: Line[][] = [
    [{ value: s.greeting(one(payload.to.name)) }],
    [{ value: lead }],
    details,
    ...(toHost && payload.answers && payload.answers.length > 0 ? [answerLines(payload.answers, s)] : []),
    [{ value: cancelled ? s.cancelInvitation : moved ? moved.invitation : s.invitation }],
    ...(payload.manageUrl && !cancelled ? [[{ label: RESCHEDULE_STRINGS[payload.lang].manage, value: one(payload.manageUrl) }]] : []),
    [{ value: s.signature(one(payload.accountName)) }],
  ];
  return {
    to: { name: one(payload.to.name), email: address(payload.to.email) },
    subject,
    text: renderText(paragraphs),
    html: renderHtml(paragraphs, payload.lang, subject),
    ics: renderInvitation(payload, PLACE_LABELS[payload.lang][meeting.place]),
  };
}

/**
 * "Answers to the booking questions:" and one `Label: answer` line each, under a heading of
 * their own; a multi-line answer's continuation lines are indented like a note's, so no
 * line a participant wrote can pass for one of ours.
 */
function answerLines(answers: readonly AnsweredQuestion[], s: Strings): Line[] {
  return [
    { value: `${s.answers}:` },
    ...answers.map((answered): Line => {
      const label = one(answered.label);
      if (typeof answered.answer === 'boolean') return { label, value: answered.answer ? s.yes : s.no };
      return answered.type === 'textarea' ? multiLine(label, answered.answer) : { label, value: one(answered.answer) };
    }),
  ];
}

function multiLine(label: string, value: string): Line {
  const lines = toTextLines(value);
  return { label, value: lines[0] ?? '', lines };
}

/**
 * Paragraphs separated by a blank line, one `Label: value` per line. The continuation
 * lines of a note are indented, so no line a participant wrote can pass for one of ours.
 */
function renderText(paragraphs: Line[][]): string {
  const render = (line: Line) => {
    const [first = '', ...rest] = line.lines ?? [line.value];
    const head = line.label === undefined ? first : `${line.label}: ${first}`;
    return [head, ...rest.map((continued) => `  ${continued}`.trimEnd())].join('\n');
  };
  return `${paragraphs.map((paragraph) => paragraph.map(render).join('\n')).join('\n\n')}\n`;
}

/** The same paragraphs as HTML; every value is escaped, line breaks of a note become `<br>`. */
function renderHtml(paragraphs: Line[][], lang: Lang, title: string): string {
  const render = (line: Line) => {
    const value = (line.lines ?? [line.value]).map(escapeHtml).join('<br>\n');
    return line.label === undefined ? value : `<strong>${escapeHtml(line.label)}:</strong> ${value}`;
  };
  const body = paragraphs.map((paragraph) => `<p>${paragraph.map(render).join('<br>\n')}</p>`).join('\n');
  return `<!doctype html>\n<html lang="${lang}"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body>\n${body}\n</body></html>\n`;
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
  const cancelled = payload.event === 'cancelled';
  const method = cancelled ? ICalCalendarMethod.CANCEL : ICalCalendarMethod.REQUEST;
  const calendar = ical({ prodId: { company: 'termin', product: 'termin', language: 'EN' }, method });
  const note = payload.meeting.note === null ? [] : toTextLines(payload.meeting.note);
  calendar.createEvent({
    id: `${payload.meeting.uuid}@termin`,
    sequence: payload.meeting.sequence,
    start: new Date(payload.meeting.start),
    end: new Date(payload.meeting.end),
    stamp: new Date(),
    summary: `${one(payload.meeting.topicName)}: ${one(payload.organizer.name)} / ${one(payload.attendee.name)}`,
    // What a calendar shows and can act on: the address (maps), the link, the number; else the place.
    location: one(payload.meeting.location?.text ?? placeLabel),
    url: payload.meeting.location?.url ? one(payload.meeting.location.url) : null,
    description: note.length > 0 ? note.join('\n') : undefined,
    status: cancelled ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
    organizer: { name: toParameterValue(payload.organizer.name), email: address(payload.organizer.email) },
    attendees: [
      {
        name: toParameterValue(payload.attendee.name),
        email: address(payload.attendee.email),
        rsvp: !cancelled,
        role: ICalAttendeeRole.REQ,
        status: ICalAttendeeStatus.NEEDSACTION,
      },
    ],
  });
  return { method: cancelled ? 'CANCEL' : 'REQUEST', content: calendar.toString() };
}

/* ---------------------------------------------------------------------------------------
 * Payments: the amount paid and the invoice details in a paid booking's confirmation, and
 * the payment messages (pay link and deadline, slot released, refund), without invitation.
 * ------------------------------------------------------------------------------------- */

interface PaymentStrings {
  paid: string;
  invoice: string;
  amount: string;
  payBy: string;
  payLink: string;
  pendingSubject: (topic: string) => string;
  pendingLead: string;
  releasedSubject: (topic: string) => string;
  releasedLead: string;
  refundedSubject: (topic: string) => string;
  refundedLead: Record<'cancelled' | 'slot_taken', string>;
  refundNote: string;
}

const PAYMENT_STRINGS: Record<Lang, PaymentStrings> = {
  en: {
    paid: 'Paid',
    invoice: 'Invoice details',
    amount: 'Amount',
    payBy: 'Pay by',
    payLink: 'Pay here',
    pendingSubject: (topic) => `Payment needed: ${topic}`,
    pendingLead: 'your meeting is reserved until you pay. Once the payment is received, you get the confirmation with the calendar invitation.',
    releasedSubject: (topic) => `Slot released: ${topic}`,
    releasedLead: 'the payment for your meeting was not received in time, so the slot was released. You are welcome to book again.',
    refundedSubject: (topic) => `Refund: ${topic}`,
    refundedLead: {
      cancelled: 'your meeting was cancelled and your payment for it is being refunded.',
      slot_taken: 'your payment arrived after the reservation had lapsed and the slot was no longer free, so the payment is being refunded in full.',
    },
    refundNote: 'The money goes back the way it was paid; how soon it shows depends on your bank or card issuer.',
  },
  pl: {
    paid: 'Zapłacono',
    invoice: 'Dane do faktury',
    amount: 'Kwota',
    payBy: 'Termin płatności',
    payLink: 'Zapłać tutaj',
    pendingSubject: (topic) => `Oczekuje na płatność: ${topic}`,
    pendingLead: 'Twoje spotkanie jest zarezerwowane do czasu płatności. Po jej otrzymaniu wyślemy potwierdzenie z zaproszeniem do kalendarza.',
    releasedSubject: (topic) => `Termin zwolniony: ${topic}`,
    releasedLead: 'płatność za spotkanie nie dotarła na czas, więc termin został zwolniony. Zapraszamy do ponownej rezerwacji.',
    refundedSubject: (topic) => `Zwrot płatności: ${topic}`,
    refundedLead: {
      cancelled: 'Twoje spotkanie zostało odwołane, a płatność za nie zostanie zwrócona.',
      slot_taken: 'Twoja płatność dotarła po wygaśnięciu rezerwacji, a termin był już zajęty, więc zwracamy całą kwotę.',
    },
    refundNote: 'Pieniądze wrócą tą samą drogą, którą zapłacono; czas zależy od banku lub wystawcy karty.',
  },
};

/** 15000 PLN → "150.00 PLN" (en), "150,00 PLN" (pl). */
export function formatAmount(amount: number, currency: string, lang: Lang): string {
  const decimal = formatMinorUnits(amount, currency);
  return `${lang === 'pl' ? decimal.replace('.', ',') : decimal} ${one(currency)}`;
}

/** "Paid: 150.00 PLN" and the invoice fields, one line (the address may span lines). */
function paidLines(payload: BookingMessagePayload): Line[] {
  const s = PAYMENT_STRINGS[payload.lang];
  const lines: Line[] = [];
  if (payload.paid) lines.push({ label: s.paid, value: formatAmount(payload.paid.amount, payload.paid.currency, payload.lang) });
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
  const zone = { zone: payload.timezone };
  const when = payload.meetings.map((meeting) => {
    const start = DateTime.fromMillis(meeting.start, zone).setLocale(payload.lang);
    const end = DateTime.fromMillis(meeting.end, zone).setLocale(payload.lang);
    return `${start.toLocaleString(DateTime.DATE_HUGE)}, ${start.toLocaleString(DateTime.TIME_SIMPLE)}–${end.toLocaleString(DateTime.TIME_SIMPLE)} (${one(payload.timezone)})`;
  });
  const details: Line[] = [
    { label: s.what, value: topic },
    ...when.map((value) => ({ label: s.when, value })),
    { label: p.amount, value: formatAmount(payload.amount, payload.currency, payload.lang) },
  ];
  let subject: string;
  let lead: string;
  const extra: Line[][] = [];
  if (payload.event === 'pending') {
    subject = p.pendingSubject(topic);
    lead = p.pendingLead;
    if (payload.deadline !== undefined)
      details.push({ label: p.payBy, value: DateTime.fromMillis(payload.deadline, zone).setLocale(payload.lang).toLocaleString(DateTime.DATETIME_FULL) });
    if (payload.payUrl) extra.push([{ label: p.payLink, value: one(payload.payUrl) }]);
  } else if (payload.event === 'released') {
    subject = p.releasedSubject(topic);
    lead = p.releasedLead;
  } else {
    subject = p.refundedSubject(topic);
    lead = p.refundedLead[payload.refundReason ?? 'cancelled'];
    extra.push([{ value: p.refundNote }]);
  }
  const paragraphs: Line[][] = [[{ value: s.greeting(one(payload.to.name)) }], [{ value: lead }], details, ...extra, [{ value: s.signature(one(payload.accountName)) }]];
  const title = one(subject);
  return {
    to: { name: one(payload.to.name), email: address(payload.to.email) },
    subject: title,
    text: renderText(paragraphs),
    html: renderHtml(paragraphs, payload.lang, title),
    // No calendar part: the transport attaches nothing for an empty invitation (see NO_INVITATION).
    ics: { method: 'REQUEST', content: '' },
  };
}
