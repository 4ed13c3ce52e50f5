import { formatDateTime, formatSpan } from '../domain/formats.js';
import type { Lang } from '../domain/meeting.js';
import { toSingleLine } from '../domain/text.js';
import type { NoticeMessagePayload } from './queued-message.js';

/** What an approval message says, captured when it is queued. */
export interface ApprovalMessageFacts {
  kind: 'requested' | 'declined' | 'awaiting-host';
  to: { name: string; email: string };
  lang: Lang;
  /** The reader's own locale (`en-GB`) for dates and times; absent: as `lang` reads. */
  locale?: string | undefined;
  timezone: string;
  accountName: string;
  topicName: string;
  hostName: string;
  participantName: string;
  start: number;
  end: number;
  /** When an undecided request is declined. */
  deadline: number;
  reason: string | null;
  /** The participant's manage link (requested), or the meeting's page in the web app to decide on (awaiting-host). */
  link: string | null;
}

const one = (value: string) => toSingleLine(value);

const STRINGS = {
  en: {
    requestedSubject: (topic: string, when: string) => `Request received: ${topic}, ${when}`,
    requestedLead: (host: string, deadline: string) =>
      `We have received your request. ${host} will approve or decline it by ${deadline}; the time is held for you until then. You will get the confirmation and invitation once it is approved.`,
    declinedSubject: (topic: string, when: string) => `Request declined: ${topic}, ${when}`,
    declinedLead: (host: string) => `${host} could not accept your request. The time is free again; you are welcome to choose another.`,
    awaitingSubject: (topic: string, who: string) => `A request awaits your approval: ${topic} with ${who}`,
    awaitingLead: (who: string, deadline: string) => `${who} asks for a meeting with you. Approve or decline it by ${deadline}; otherwise it is declined by itself.`,
    when: 'When',
    reason: 'Reason',
    manage: 'Your request',
    decide: 'Approve or decline (POST …/approve or …/decline)',
    greeting: (name: string) => `Hello ${name},`,
    signature: (account: string) => `Best regards,\n${account}`,
  },
  pl: {
    requestedSubject: (topic: string, when: string) => `Otrzymaliśmy prośbę: ${topic}, ${when}`,
    requestedLead: (host: string, deadline: string) =>
      `Otrzymaliśmy Twoją prośbę o spotkanie. ${host} zaakceptuje ją lub odrzuci do ${deadline}; do tego czasu termin jest dla Ciebie zarezerwowany. Potwierdzenie i zaproszenie przyjdą po akceptacji.`,
    declinedSubject: (topic: string, when: string) => `Prośba odrzucona: ${topic}, ${when}`,
    declinedLead: (host: string) => `${host} nie może przyjąć Twojej prośby. Termin jest znów wolny; zapraszamy do wybrania innego.`,
    awaitingSubject: (topic: string, who: string) => `Prośba czeka na Twoją akceptację: ${topic}, ${who}`,
    awaitingLead: (who: string, deadline: string) => `${who} prosi o spotkanie z Tobą. Zaakceptuj lub odrzuć prośbę do ${deadline}; inaczej zostanie odrzucona automatycznie.`,
    when: 'Kiedy',
    reason: 'Powód',
    manage: 'Twoja prośba',
    decide: 'Zaakceptuj lub odrzuć (POST …/approve lub …/decline)',
    greeting: (name: string) => `Dzień dobry ${name},`,
    signature: (account: string) => `Pozdrawiamy,\n${account}`,
  },
} as const;

/**
 * The participant's "request received" and "request declined" e-mails and the host's "a
 * request awaits you", in the reader's language and zone, as notices (no invitation: nothing
 * is in anyone's calendar until approval). Declined "not approved in time" shows that reason.
 */
export function approvalNotice(facts: ApprovalMessageFacts): NoticeMessagePayload {
  const s = STRINGS[facts.lang];
  // The formats module, as every page and booking e-mail: the same span reads the same everywhere.
  const locale = facts.locale ?? facts.lang;
  const zone = one(facts.timezone);
  const when = formatSpan(facts.start, facts.end, zone, locale);
  const short = formatDateTime(facts.start, zone, locale);
  const deadline = formatDateTime(facts.deadline, zone, locale);
  const topic = one(facts.topicName);
  const subject =
    facts.kind === 'requested'
      ? s.requestedSubject(topic, short)
      : facts.kind === 'declined'
        ? s.declinedSubject(topic, short)
        : s.awaitingSubject(topic, one(facts.participantName));
  const lead =
    facts.kind === 'requested'
      ? s.requestedLead(one(facts.hostName), deadline)
      : facts.kind === 'declined'
        ? s.declinedLead(one(facts.hostName))
        : s.awaitingLead(one(facts.participantName), deadline);
  const lines = [s.greeting(one(facts.to.name)), '', lead, '', `${s.when}: ${when}`];
  if (facts.kind === 'declined' && facts.reason) lines.push(`${s.reason}: ${one(facts.reason)}`);
  if (facts.link) lines.push('', `${facts.kind === 'awaiting-host' ? s.decide : s.manage}: ${one(facts.link)}`);
  lines.push('', s.signature(one(facts.accountName)));
  return { notice: true, to: facts.to, lang: facts.lang, subject, text: lines.join('\n') };
}
