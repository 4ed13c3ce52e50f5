import ICAL from 'ical.js';
import { describe, expect, it } from 'vitest';
import type { BookingMessagePayload } from './booking-message.js';
import { renderBookingMessage } from './render.js';

function payload(extra: Partial<BookingMessagePayload> = {}): BookingMessagePayload {
  return {
    event: 'confirmed',
    recipient: 'participant',
    to: { name: 'Zofia Wąs', email: 'zofia@example.com' },
    lang: 'pl',
    timezone: 'Europe/Warsaw',
    accountName: 'Acme',
    meeting: {
      uuid: '0193b0a4-6f1e-7c3a-9d2b-5e8f1a2b3c4d',
      topicName: 'Konsultacja',
      start: Date.parse('2027-03-29T07:00:00Z'),
      end: Date.parse('2027-03-29T07:30:00Z'),
      place: 'zoom',
      sequence: 0,
      note: 'Proszę o link',
      cancelReason: null,
      phone: '+48 600 000 000',
    },
    organizer: { name: 'Anna Nowak', email: 'anna@acme.test' },
    attendee: { name: 'Zofia Wąs', email: 'zofia@example.com' },
    ...extra,
  };
}

/** Parses with ical.js (Mozilla's parser) and returns the calendar and its one event. */
function parse(ics: string) {
  const calendar = new ICAL.Component(ICAL.parse(ics));
  const events = calendar.getAllSubcomponents('vevent');
  expect(events).toHaveLength(1);
  return { calendar, event: events[0]! };
}

describe('booking messages', () => {
  it('invite a participant in Polish with a well-formed REQUEST', () => {
    const message = renderBookingMessage(payload());
    expect(message.subject).toContain('Potwierdzenie: Konsultacja');
    expect(message.text).toContain('Twoje spotkanie zostało potwierdzone.');
    // 07:00 UTC on 29 March 2027 is 09:00 in Warsaw (summer time since the 28th).
    expect(message.text).toMatch(/Termin: poniedziałek, 29 marca 2027.* 09:00–09:30 \(Europe\/Warsaw\)/);
    expect(message.text).not.toContain('+48'); // the participant's own phone is for the host
    const { calendar, event } = parse(message.ics.content);
    expect(calendar.getFirstPropertyValue('method')).toBe('REQUEST');
    expect(event.getFirstPropertyValue('uid')).toBe('0193b0a4-6f1e-7c3a-9d2b-5e8f1a2b3c4d@termin');
    expect(event.getFirstPropertyValue('sequence')).toBe(0);
    expect(event.getFirstPropertyValue('status')).toBe('CONFIRMED');
    expect((event.getFirstPropertyValue('dtstart') as ICAL.Time).toJSDate().toISOString()).toBe('2027-03-29T07:00:00.000Z');
    expect((event.getFirstPropertyValue('dtend') as ICAL.Time).toJSDate().toISOString()).toBe('2027-03-29T07:30:00.000Z');
    // URI schemes are case-insensitive; ical-generator writes MAILTO.
    expect(String(event.getFirstPropertyValue('organizer')).toLowerCase()).toBe('mailto:anna@acme.test');
    expect(String(event.getFirstPropertyValue('attendee')).toLowerCase()).toBe('mailto:zofia@example.com');
  });

  it('tell the host in English with the participant\'s contact and note', () => {
    const message = renderBookingMessage(payload({ recipient: 'host', to: { name: 'Anna Nowak', email: 'anna@acme.test' }, lang: 'en', timezone: 'America/New_York' }));
    expect(message.subject).toMatch(/^New booking: Konsultacja with Zofia Wąs/);
    expect(message.text).toContain('Participant: Zofia Wąs <zofia@example.com>');
    expect(message.text).toContain('Phone: +48 600 000 000');
    expect(message.text).toContain('Note: Proszę o link');
    expect(message.text).toMatch(/3:00\s?AM–3:30\s?AM \(America\/New_York\)/);
  });

  it('cancel with METHOD:CANCEL, the same UID and a higher SEQUENCE', () => {
    const message = renderBookingMessage(payload({ event: 'cancelled', lang: 'en', meeting: { ...payload().meeting, sequence: 1, cancelReason: 'Host is ill' } }));
    expect(message.subject).toMatch(/^Cancelled: /);
    expect(message.text).toContain('Reason: Host is ill');
    const { calendar, event } = parse(message.ics.content);
    expect(calendar.getFirstPropertyValue('method')).toBe('CANCEL');
    expect(event.getFirstPropertyValue('uid')).toBe('0193b0a4-6f1e-7c3a-9d2b-5e8f1a2b3c4d@termin');
    expect(event.getFirstPropertyValue('sequence')).toBe(1);
    expect(event.getFirstPropertyValue('status')).toBe('CANCELLED');
  });
});
