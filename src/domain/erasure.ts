import type { Meeting } from './meeting.js';
import type { MeetingLocation } from './place-details.js';

/** The name an erased meeting's participant has from then on. */
export const ERASED_NAME = '(erased)';

/**
 * The meeting once its participant's personal data is erased: name `(erased)`; e-mail (kept
 * as `''`, which records show as `null`), phone, browser locale, note, form answers, metadata,
 * invoice details and the guests' addresses (they brought them) removed; a location that was the participant's phone loses it. Times,
 * host, topic, place, status, price and payment stay: they are the business's accounts.
 *
 * @example
 * erasedMeeting({ …, participant: { name: 'Ala', email: 'ala@x.pl', phone: '+48…', timezone: 'Europe/Warsaw', lang: 'pl' }, note: 'hi' }, t)
 * // { …, participant: { name: '(erased)', email: '', phone: null, timezone: 'Europe/Warsaw', lang: 'pl', locale: null }, note: null, form: {}, metadata: {}, invoice: null, erasedAt: t }
 */
export function erasedMeeting(meeting: Meeting, now: number): Meeting {
  return {
    ...meeting,
    location: erasedLocation(meeting.location),
    participant: { ...meeting.participant, name: ERASED_NAME, email: '', phone: null, locale: null },
    note: null,
    form: {},
    metadata: {},
    invoice: null,
    guests: [],
    erasedAt: meeting.erasedAt ?? now,
  };
}

/** A location that is the participant's own phone (a phone call the host makes) keeps only its place. */
export function erasedLocation(location: MeetingLocation): MeetingLocation {
  return location?.source === 'participant' ? { ...location, phone: null, text: null } : location;
}

/** Whether a meeting's participant was erased (their e-mail is gone). */
export function isErased(meeting: Pick<Meeting, 'participant'>): boolean {
  return meeting.participant.email === '';
}

/**
 * Copies of meetings kept as JSON elsewhere (events' data, webhook bodies, idempotent
 * responses) with the personal data of the meetings in `uuids` erased as `erasedMeeting`
 * does; `email` is what the copy's shape puts for a removed e-mail (`''` in the domain's
 * meetings, `null` in records the API shows). Walks the whole value: a meeting may sit at
 * `data.meeting`, at `data`, or in `meetings[]`. Returns whether anything changed.
 *
 * @example
 * const body = { data: { uuid: 'm1', participant: { name: 'Ala', email: 'a@x.pl', phone: null }, note: 'hi', form: {}, metadata: {}, invoice: null } };
 * scrubMeetingCopies(body, new Set(['m1']), null) // true; body.data.participant.name === '(erased)', .email === null, note === null
 */
export function scrubMeetingCopies(value: unknown, uuids: ReadonlySet<string>, email: '' | null): boolean {
  if (Array.isArray(value)) {
    let changed = false;
    for (const item of value) changed = scrubMeetingCopies(item, uuids, email) || changed;
    return changed;
  }
  if (value === null || typeof value !== 'object') return false;
  const record = value as Record<string, unknown>;
  let changed = false;
  if (typeof record.uuid === 'string' && uuids.has(record.uuid) && record.participant !== null && typeof record.participant === 'object') {
    const participant = record.participant as Record<string, unknown>;
    record.participant = { ...participant, name: ERASED_NAME, email, phone: null, ...('locale' in participant ? { locale: null } : {}) };
    for (const key of ['note', 'invoice'] as const) if (key in record) record[key] = null;
    for (const key of ['form', 'metadata'] as const) if (key in record) record[key] = {};
    if ('guests' in record) record.guests = [];
    if (record.location !== null && typeof record.location === 'object') record.location = erasedLocation(record.location as MeetingLocation);
    changed = true;
  }
  for (const key of Object.keys(record)) {
    if (key !== 'participant') changed = scrubMeetingCopies(record[key], uuids, email) || changed;
  }
  return changed;
}
