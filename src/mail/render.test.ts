import ICAL from 'ical.js';
import { describe, expect, it } from 'vitest';
import type { BookingMessagePayload } from './booking-message.js';
import { renderQueuedMessage } from './queued-message.js';
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

  it('say, when the provider refused the room for good, that the host sends the link (to the participant) or should (to the host), in both languages', () => {
    const failed = {
      place: 'zoom' as const,
      address: null,
      url: null,
      phone: null,
      text: null,
      source: null,
      status: 'failed' as const,
      reason: 'Zoom create a meeting: HTTP 400',
    };
    const meeting = { ...payload().meeting, location: failed };
    expect(renderBookingMessage(payload({ meeting, linkFromHost: true })).text).toContain('Anna Nowak prześle Ci link do spotkania.');
    expect(renderBookingMessage(payload({ meeting, linkFromHost: true, lang: 'en' })).text).toContain('Anna Nowak will send you the link to join.');
    const host = renderBookingMessage(payload({ meeting, linkFromHost: true, lang: 'en', recipient: 'host', to: { name: 'Anna Nowak', email: 'anna@acme.test' } }));
    expect(host.text).toContain('please send the participant the link to join yourself');
    expect(host.text).not.toMatch(/follow/);
  });

  it("tell the host in English with the participant's contact and note", () => {
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

/** The parameters and address of a calendar-address property, as ical.js reads them. */
function calAddress(event: ICAL.Component, name: 'organizer' | 'attendee') {
  const properties = event.getAllProperties(name);
  expect(properties, name).toHaveLength(1);
  const [, params, , value] = properties[0]!.toJSON() as [string, Record<string, unknown>, string, string];
  return { params, value: String(value).toLowerCase() };
}

describe('booking messages from hostile input', () => {
  // What a participant can type today (a quote is a legal character of a name), and what
  // rows stored before validation refused control characters may still hold.
  const EVE = 'Eve";ROLE=CHAIR;X=":mailto:attacker@evil.test';
  const hostile = payload({
    recipient: 'host',
    lang: 'en',
    to: { name: 'Anna Nowak\r\nBcc: spy@evil.test', email: 'anna@acme.test' },
    organizer: { name: 'Anna "The Host" Nowak\\', email: 'anna@acme.test' },
    attendee: { name: EVE, email: 'eve@example.com' },
    accountName: 'Acme\nX-Evil: 1',
    meeting: {
      ...payload().meeting,
      topicName: 'Konsultacja\r\nWhere: https://evil.test',
      phone: '+48 600\r\nWhere: https://evil.test',
      note: 'Hi <script>alert(1)</script>\r\nWhere: https://evil.test\u0000\n\nBcc: spy@evil.test',
    },
  });

  it('give ORGANIZER and ATTENDEE exactly the intended CN and address, and no parameter a name smuggled in', () => {
    const { event } = parse(renderBookingMessage(hostile).ics.content);
    const attendee = calAddress(event, 'attendee');
    expect(attendee.value).toBe('mailto:eve@example.com');
    expect(attendee.params).toEqual({ cn: "Eve';ROLE=CHAIR;X=':mailto:attacker@evil.test", role: 'REQ-PARTICIPANT', rsvp: 'TRUE', partstat: 'NEEDS-ACTION' });
    const organizer = calAddress(event, 'organizer');
    expect(organizer.value).toBe('mailto:anna@acme.test');
    expect(organizer.params).toEqual({ cn: "Anna 'The Host' Nowak/" });
    // TEXT values keep their characters: ical-generator's escaping suffices there.
    expect(event.getFirstPropertyValue('summary')).toBe(`Konsultacja Where: https://evil.test: Anna "The Host" Nowak\\ / ${EVE}`);
    expect(event.getFirstPropertyValue('description')).toBe('Hi <script>alert(1)</script>\nWhere: https://evil.test\n\nBcc: spy@evil.test');
  });

  it("keep every value on its line in the text, indent a note's further lines, and escape the HTML", () => {
    const message = renderBookingMessage(hostile);
    const lines = message.text.split('\n');
    // Only our own labels start a line; what the participant wrote is indented under the note.
    expect(lines.filter((line) => /^(Where|Bcc|X-Evil):/.test(line))).toEqual(['Where: Zoom']);
    expect(lines).toContain('Phone: +48 600 Where: https://evil.test');
    expect(lines).toContain('What: Konsultacja Where: https://evil.test');
    expect(message.text).toContain('Note: Hi <script>alert(1)</script>\n  Where: https://evil.test\n\n  Bcc: spy@evil.test\n');
    expect(message.text).toContain('Hello Anna Nowak Bcc: spy@evil.test,');
    expect(message.text).toContain('— Acme X-Evil: 1, via termin');
    expect(message.text).not.toMatch(/[\u0000\r]/);
    expect(message.subject).not.toMatch(/[\r\n]/);
    expect(message.to).toEqual({ name: 'Anna Nowak Bcc: spy@evil.test', email: 'anna@acme.test' });

    expect(message.html).not.toContain('<script>');
    expect(message.html).toContain('Hi &lt;script&gt;alert(1)&lt;/script&gt;<br>\nWhere: https://evil.test');
    expect(message.html).toContain('Eve&quot;;ROLE=CHAIR;X=&quot;:mailto:attacker@evil.test &lt;eve@example.com&gt;');
    expect(message.html).not.toMatch(/[\u0000\r]/);
  });

  it('render a plain booking as text that reads line by line, and as an HTML table of the same lines', () => {
    const message = renderBookingMessage(payload({ recipient: 'host', lang: 'en', to: { name: 'Anna Nowak', email: 'anna@acme.test' } }));
    const lines = message.text.split('\n');
    expect(lines[5]).toMatch(/^When: .*\(Europe\/Warsaw\)$/);
    const calendar = lines.indexOf('Add to your calendar:');
    expect(lines[calendar + 1]).toMatch(/^ {2}Google Calendar: https:\/\/calendar\.google\.com\/calendar\/render\?action=TEMPLATE&/);
    expect(lines[calendar + 2]).toMatch(/^ {2}Outlook: https:\/\/outlook\.live\.com\/calendar\//);
    expect(lines.toSpliced(calendar, 3).toSpliced(5, 1)).toEqual([
      'Hello Anna Nowak,',
      '',
      'a meeting has been booked with you.',
      '',
      'What: Konsultacja',
      'Participant: Zofia Wąs <zofia@example.com>',
      'Where: Zoom',
      'Phone: +48 600 000 000',
      'Note: Proszę o link',
      '',
      '',
      'The calendar invitation is attached.',
      '',
      '— Acme, via termin',
      '',
    ]);
    expect(message.html).toMatch(/<th scope="row"[^>]*>What<\/th><td[^>]*>Konsultacja<\/td><\/tr>/);
  });
});

describe('booking messages: links and labels', () => {
  const room = 'https://zoom.us/j/81234567890';
  const manage = 'http://termin.test/booking/AbCdEfGhIjKlMnOpQrStUv';
  const located = payload({
    lang: 'en',
    manageUrl: manage,
    meeting: { ...payload().meeting, location: { place: 'zoom', text: room, url: room, address: null, phone: null, source: null } },
  });
  const buttons = (html: string) => [...html.matchAll(/<a href="([^"]+)" class="button"[^>]*>([^<]+)<\/a>/g)].map((match) => [match[2], match[1]]);

  it('give the participant buttons to join and to reschedule or cancel, and the same links in the text', () => {
    const message = renderBookingMessage(located);
    expect(buttons(message.html)).toEqual([
      ['Join the meeting', room],
      ['Reschedule or cancel', manage],
    ]);
    expect(message.text).toContain(`Link: ${room}\n`);
    expect(message.text).toContain(`To cancel or move the meeting: ${manage}\n`);
    const google = new URL(/Google Calendar: (\S+)/.exec(message.text)![1]!);
    expect(google.searchParams.get('dates')).toBe('20270329T070000Z/20270329T073000Z');
    expect(google.searchParams.get('location')).toBe(room);
    expect(google.searchParams.get('details')).toContain(manage);
  });

  it("give the host the manage link too, and keep the participant's note out of the participant's own invitation", () => {
    const host = renderBookingMessage({ ...located, recipient: 'host', to: { name: 'Anna Nowak', email: 'anna@acme.test' } });
    expect(buttons(host.html).map(([, href]) => href)).toEqual([room, manage]);
    const hostEvent = parse(host.ics.content).event;
    expect(hostEvent.getFirstPropertyValue('description')).toBe(`Proszę o link\n\nReschedule or cancel: ${manage}`);
    const participantEvent = parse(renderBookingMessage(located).ics.content).event;
    expect(participantEvent.getFirstPropertyValue('description')).toBe(`Reschedule or cancel: ${manage}`);
    expect(participantEvent.getFirstPropertyValue('url')).toBe(room);
  });

  it('offer no buttons or calendar links in a cancellation', () => {
    const message = renderBookingMessage({ ...located, event: 'cancelled', meeting: { ...located.meeting, sequence: 1 } });
    expect(buttons(message.html)).toEqual([]);
    expect(message.text).not.toContain('Add to your calendar');
    expect(parse(message.ics.content).event.getFirstPropertyValue('description')).toBeNull();
  });

  it('do not double the colon of a question that ends with its own punctuation', () => {
    const message = renderBookingMessage({
      ...located,
      recipient: 'host',
      answers: [
        { label: 'What would you like to discuss?', type: 'text', answer: 'Taxes' },
        { label: 'Company', type: 'text', answer: 'Acme' },
      ],
    });
    expect(message.text).toContain('What would you like to discuss? Taxes\n');
    expect(message.text).toContain('Company: Acme\n');
    expect(message.text).not.toContain('?:');
  });
});

describe('notices (operator warnings, approval messages)', () => {
  const notice = {
    notice: true as const,
    to: { name: 'Ops', email: 'ops@acme.test' },
    subject: 'Webhook switched off',
    text: 'Hello Ops,\n\nThe endpoint failed 50 times in a row.\n\nEndpoint: https://hooks.acme.test/termin?x=<b>\nSwitch it on: https://termin.acme.test/api/v1/webhooks/1\n\n<script>alert(1)</script>',
  };

  it("come in the booking messages' layout: paragraphs, labelled rows, links that link, everything escaped", () => {
    const message = renderQueuedMessage(notice);
    expect(message.text).toBe(`${notice.text}\n`);
    expect(message.html).toContain('max-width:600px');
    expect(message.html).toContain('<meta name="viewport"');
    expect(message.html).toContain('<p style="margin:0 0 16px;">The endpoint failed 50 times in a row.</p>');
    expect(message.html).toMatch(/<th scope="row"[^>]*>Switch it on<\/th><td[^>]*><a href="https:\/\/termin\.acme\.test\/api\/v1\/webhooks\/1"/);
    expect(message.html).toContain('<a href="https://hooks.acme.test/termin?x=&lt;b&gt;"');
    expect(message.html).not.toContain('<script>');
    expect(message.html).toContain('&lt;script&gt;');
    expect(message.html).toContain('<html lang="en">');
  });

  it('say their language, and link only http(s)', () => {
    const message = renderQueuedMessage({ ...notice, lang: 'pl', text: 'Link: javascript:alert(1)\nhttp://ok.test/a' });
    expect(message.html).toContain('<html lang="pl">');
    expect(message.html).not.toContain('href="javascript');
    expect(message.html).toContain('<a href="http://ok.test/a"');
  });
});
