import { describe, expect, it } from 'vitest';
import { ERASED_NAME, erasedLocation, scrubMeetingCopies } from './erasure.js';
import type { MeetingLocation } from './place-details.js';

const record = (uuid: string) => ({
  uuid,
  start: '2027-01-05T08:00:00.000Z',
  participant: { name: 'Ala', email: 'ala@example.com', phone: '+48600100200', timezone: 'Europe/Warsaw', lang: 'pl' },
  note: 'hi',
  form: { company: 'X' },
  metadata: { crm: 1 },
  invoice: { invoiceName: 'X' },
  location: { place: 'phone-call', address: null, url: null, phone: '+48600100200', text: '+48600100200', source: 'participant' },
});

describe('scrubMeetingCopies', () => {
  it.each([
    ['a webhook body: the record at data', (r: unknown) => ({ type: 'meeting.cancelled', data: r }), null],
    ["an event's data: the meeting at data.meeting", (r: unknown) => ({ meeting: r, previousStatus: 'confirmed' }), ''],
    ["a booking's idempotent response: meetings[]", (r: unknown) => ({ meetings: [r], payment: null }), null],
  ] as const)('%s', (_what, wrap, email) => {
    const copy = wrap(record('m1')) as Record<string, unknown>;
    expect(scrubMeetingCopies(copy, new Set(['m1']), email)).toBe(true);
    const text = JSON.stringify(copy);
    for (const gone of ['Ala', 'ala@example.com', '+48600100200', 'hi', 'company', 'crm', 'invoiceName']) expect(text).not.toContain(gone);
    expect(text).toContain(ERASED_NAME);
    // What the business keeps: times, zone, language, place.
    for (const kept of ['2027-01-05T08:00:00.000Z', 'Europe/Warsaw', '"lang":"pl"', 'phone-call']) expect(text).toContain(kept);
  });

  it('leaves other meetings and unrelated values alone', () => {
    const copy = { meetings: [record('m2')], note: 'not a meeting' };
    expect(scrubMeetingCopies(copy, new Set(['m1']), null)).toBe(false);
    expect(copy).toEqual({ meetings: [record('m2')], note: 'not a meeting' });
  });
});

describe('erasedLocation', () => {
  const base: MeetingLocation = { place: 'phone-call', address: null, url: null, phone: '+48600100200', text: '+48600100200', source: 'participant' };
  it.each([
    ["the participant's phone: removed", base, { ...base, phone: null, text: null }],
    [
      "the host's number: kept",
      { ...base, source: 'host' as const, phone: '+48221112233', text: '+48221112233' },
      { ...base, source: 'host', phone: '+48221112233', text: '+48221112233' },
    ],
  ])('%s', (_what, location, expected) => {
    expect(erasedLocation(location)).toEqual(expected);
  });
});
