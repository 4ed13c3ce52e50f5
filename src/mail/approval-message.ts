import { formatDateTime, formatSpan } from '../domain/formats.js';
import type { Lang } from '../domain/meeting.js';
import { toSingleLine } from '../domain/text.js';
import { buildForEachLang } from '../i18n/catalogue.js';
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

/** The approval e-mails' words in each language (locales/<lang>/notices.json, `approval`). */
const STRINGS = buildForEachLang('notices', (t) => ({
  requestedSubject: (topic: string, when: string) => t('approval.requestedSubject', { topic, when }),
  requestedLead: (host: string, deadline: string) => t('approval.requestedLead', { host, deadline }),
  declinedSubject: (topic: string, when: string) => t('approval.declinedSubject', { topic, when }),
  declinedLead: (host: string) => t('approval.declinedLead', { host }),
  awaitingSubject: (topic: string, who: string) => t('approval.awaitingSubject', { topic, who }),
  awaitingLead: (who: string, deadline: string) => t('approval.awaitingLead', { who, deadline }),
  when: t('approval.when'),
  reason: t('approval.reason'),
  manage: t('approval.manage'),
  decide: t('approval.decide'),
  greeting: (name: string) => t('greeting', { name }),
  signature: (account: string) => t('signature', { account }),
}));

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
