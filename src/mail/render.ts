import ical, { ICalAttendeeRole, ICalAttendeeStatus, ICalCalendarMethod, ICalEventStatus } from 'ical-generator';
import { DateTime } from 'luxon';
import type { Place } from '../domain/account.js';
import type { Lang } from '../domain/meeting.js';
import type { BookingMessagePayload } from './booking-message.js';

export interface RenderedMessage {
  to: { name: string; email: string };
  subject: string;
  text: string;
  ics: { method: 'REQUEST' | 'CANCEL'; content: string };
}

interface Strings {
  places: Record<Place, string>;
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
}

interface Vars {
  topic: string;
  other: string;
  date: string;
}

const STRINGS: Record<Lang, Strings> = {
  en: {
    places: {
      offline: 'In person',
      'phone-call': 'Phone call',
      'google-meet': 'Google Meet',
      teamsForBusiness: 'Microsoft Teams',
      skypeForBusiness: 'Skype for Business',
      skypeForConsumer: 'Skype',
      zoom: 'Zoom',
      webex: 'Webex',
    },
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
  },
  pl: {
    places: {
      offline: 'Spotkanie osobiste',
      'phone-call': 'Rozmowa telefoniczna',
      'google-meet': 'Google Meet',
      teamsForBusiness: 'Microsoft Teams',
      skypeForBusiness: 'Skype dla firm',
      skypeForConsumer: 'Skype',
      zoom: 'Zoom',
      webex: 'Webex',
    },
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
  },
};

/** Subject, plain text and iCalendar invitation of one booking message, in its language and zone. */
export function renderBookingMessage(payload: BookingMessagePayload): RenderedMessage {
  const s = STRINGS[payload.lang];
  const { meeting } = payload;
  const start = DateTime.fromMillis(meeting.start, { zone: payload.timezone }).setLocale(payload.lang);
  const end = DateTime.fromMillis(meeting.end, { zone: payload.timezone }).setLocale(payload.lang);
  const toHost = payload.recipient === 'host';
  const cancelled = payload.event === 'cancelled';
  const other = toHost ? payload.attendee.name : payload.organizer.name;
  const vars: Vars = { topic: meeting.topicName, other, date: start.toLocaleString(DateTime.DATETIME_MED) };
  const subject = toHost
    ? (cancelled ? s.hostCancelledSubject : s.hostConfirmedSubject)(vars)
    : (cancelled ? s.cancelledSubject : s.confirmedSubject)(vars);
  const lead = toHost ? (cancelled ? s.hostCancelledLead : s.hostConfirmedLead) : cancelled ? s.cancelledLead : s.confirmedLead;
  const when = `${start.toLocaleString(DateTime.DATE_HUGE)}, ${start.toLocaleString(DateTime.TIME_SIMPLE)}–${end.toLocaleString(DateTime.TIME_SIMPLE)} (${payload.timezone})`;
  const lines = [
    s.greeting(payload.to.name),
    '',
    lead,
    '',
    `${s.what}: ${meeting.topicName}`,
    `${s.when}: ${when}`,
    toHost ? `${s.participant}: ${payload.attendee.name} <${payload.attendee.email}>` : `${s.withWhom}: ${payload.organizer.name}`,
    `${s.where}: ${s.places[meeting.place]}`,
  ];
  if (toHost && meeting.phone) lines.push(`${s.phone}: ${meeting.phone}`);
  if (toHost && meeting.note) lines.push(`${s.note}: ${meeting.note}`);
  if (cancelled && meeting.cancelReason) lines.push(`${s.reason}: ${meeting.cancelReason}`);
  lines.push('', cancelled ? s.cancelInvitation : s.invitation, '', s.signature(payload.accountName));
  return { to: payload.to, subject, text: `${lines.join('\n')}\n`, ics: renderInvitation(payload, s.places[meeting.place]) };
}

/**
 * One VEVENT whose UID is stable for the meeting, so a cancellation (METHOD:CANCEL, higher
 * SEQUENCE) replaces the original invitation in Google Calendar, Outlook and Apple Calendar.
 */
export function renderInvitation(payload: BookingMessagePayload, placeLabel: string): RenderedMessage['ics'] {
  const cancelled = payload.event === 'cancelled';
  const method = cancelled ? ICalCalendarMethod.CANCEL : ICalCalendarMethod.REQUEST;
  const calendar = ical({ prodId: { company: 'termin', product: 'termin', language: 'EN' }, method });
  calendar.createEvent({
    id: `${payload.meeting.uuid}@termin`,
    sequence: payload.meeting.sequence,
    start: new Date(payload.meeting.start),
    end: new Date(payload.meeting.end),
    stamp: new Date(),
    summary: `${payload.meeting.topicName}: ${payload.organizer.name} / ${payload.attendee.name}`,
    location: placeLabel,
    description: payload.meeting.note ?? undefined,
    status: cancelled ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
    organizer: { name: payload.organizer.name, email: payload.organizer.email },
    attendees: [
      {
        name: payload.attendee.name,
        email: payload.attendee.email,
        rsvp: !cancelled,
        role: ICalAttendeeRole.REQ,
        status: ICalAttendeeStatus.NEEDSACTION,
      },
    ],
  });
  return { method: cancelled ? 'CANCEL' : 'REQUEST', content: calendar.toString() };
}
