import ICAL from 'ical.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackgroundJobs, type BackgroundJobs } from '../src/background.js';
import type { Lang } from '../src/domain/lang.js';
import { translator } from '../src/i18n/catalogue.js';
import type { BookingMessagePayload } from '../src/mail/booking-message.js';
import type { RenderedMessage } from '../src/mail/message.js';
import { renderBookingMessage, renderPaymentMessage } from '../src/mail/render.js';
import type { MailTransport } from '../src/mail/transport.js';
import { startFakeStripe, type FakeStripe } from './fakes/stripe-gateway.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, type TestApp } from './helpers.js';
import { englishLeaks, OTHER_LANGS, visibleText } from './i18n/leaks.js';

/**
 * Issue 42: a booking's messages in each language termin speaks. For each language other than
 * English a participant books with that `lang` in a zone of that language, and every message
 * they and the host get (confirmation and its invitation, reschedule, cancellation, a paid
 * booking's payment-pending, paid confirmation, refund and released slot) reads in their
 * language with no English left: subject, plain part, the HTML's visible text and the
 * invitation's summary, description and location. Dates and times are Intl's for the
 * language and the reader's zone (moved across the last Sunday of March, when Europe switches
 * to summer time), money Intl's. The host reads their own `language`, here another one.
 */

interface Reader {
  name: string;
  zone: string;
}

interface Case {
  participant: Reader;
  /** The host's own language: another one, so the host's copy shows it follows the host, not the booking. */
  hostLang: Lang;
  topic: string;
  paidTopic: string;
  reason: string;
  currency: string;
}

const CASES: Record<Exclude<Lang, 'en'>, Case> = {
  pl: { participant: { name: 'Zofia Wąs', zone: 'Europe/Warsaw' }, hostLang: 'de', topic: 'Konsultacja', paidTopic: 'Porada', reason: 'Choroba', currency: 'PLN' },
  de: { participant: { name: 'Greta Vogel', zone: 'Europe/Berlin' }, hostLang: 'uk', topic: 'Beratung', paidTopic: 'Gutachten', reason: 'Krankheit', currency: 'EUR' },
  uk: { participant: { name: 'Олена Коваль', zone: 'Europe/Kyiv' }, hostLang: 'es', topic: 'Консультація', paidTopic: 'Порада', reason: 'Хвороба', currency: 'UAH' },
  es: { participant: { name: 'Lucía Ortega', zone: 'Atlantic/Canary' }, hostLang: 'fr', topic: 'Asesoría', paidTopic: 'Consulta', reason: 'Enfermedad', currency: 'EUR' },
  fr: { participant: { name: 'Camille Durand', zone: 'Europe/Paris' }, hostLang: 'pl', topic: 'Entretien', paidTopic: 'Bilan', reason: 'Maladie', currency: 'EUR' },
};

const PUBLIC_URL = 'http://termin.test';
/** Monday before the switch; the meeting is booked for Friday 26 March and moved to Monday 29 March 2027, after it. */
const START = '2027-03-22T06:00:00.000Z';
const FRIDAY = '2027-03-26T08:00:00.000Z';
const MONDAY = '2027-03-29T08:00:00.000Z';
const TUESDAY = '2027-03-30T08:00:00.000Z';
const WEDNESDAY = '2027-03-31T08:00:00.000Z';
const HALF_HOUR = 30 * 60_000;

/** What Intl says for a language and zone, computed here without termin's formats module. */
function intl(lang: Lang, zone: string) {
  const date = new Intl.DateTimeFormat(lang, { dateStyle: 'full', timeZone: zone });
  const time = new Intl.DateTimeFormat(lang, { timeStyle: 'short', timeZone: zone });
  const short = new Intl.DateTimeFormat(lang, { dateStyle: 'medium', timeStyle: 'short', timeZone: zone });
  return {
    /** A meeting's line: "Freitag, 26. März 2027, 09:00–09:30 (Europe/Berlin)". */
    span: (start: number, end: number) => `${date.format(start)}, ${time.format(start)}–${time.format(end)} (${zone})`,
    short: (instant: number) => short.format(instant),
    time: (instant: number) => time.format(instant),
    money: (minor: number, currency: string) => new Intl.NumberFormat(lang, { style: 'currency', currency }).format(minor / 100),
  };
}

/** Texts a calendar shows of the invitation: summary, description, location, alarms. */
function invitationTexts(message: RenderedMessage): string[] {
  if (message.ics.content === '') return [];
  const calendar = new ICAL.Component(ICAL.parse(message.ics.content));
  const event = calendar.getFirstSubcomponent('vevent')!;
  const texts = ['summary', 'description', 'location'].map((name) => String(event.getFirstPropertyValue(name) ?? ''));
  for (const alarm of event.getAllSubcomponents('valarm')) texts.push(String(alarm.getFirstPropertyValue('description') ?? ''));
  return texts;
}

/** A link is no language (a random token may hold "the" between digits): left out of the leak check. */
const withoutLinks = (text: string) => text.replace(/https?:\/\/\S+/g, ' ');

/** Every English word or phrase the reader sees in the message: none expected. */
function english(message: RenderedMessage, lang: Lang): Record<string, string[]> {
  const parts = { subject: message.subject, text: message.text, html: visibleText(message.html), invitation: invitationTexts(message).join('\n') };
  return Object.fromEntries(Object.entries(parts).map(([part, text]) => [part, englishLeaks(withoutLinks(text), lang)]));
}
const NONE = { subject: [], text: [], html: [], invitation: [] };

/** The reader's message in their language: no English, the HTML says its language, the plain part stands alone. */
function expectInLanguage(message: RenderedMessage, lang: Lang): void {
  expect(english(message, lang), `${lang}: ${message.subject}`).toEqual(NONE);
  expect(message.html).toContain(`<html lang="${lang}">`);
  expect(message.text).not.toMatch(/<(a|p|br|table|td|img)[\s>]/i);
}

for (const dialect of DIALECTS) {
  describe(`a booking's messages in each language [${dialect}]`, () => {
    const sent: RenderedMessage[] = [];
    let t: TestApp;
    let stripe: FakeStripe;
    let jobs: BackgroundJobs;

    beforeAll(async () => {
      const clock = createClock(START);
      stripe = await startFakeStripe({ now: clock.now });
      t = await createTestApp(dialect, clock, { PUBLIC_URL, STRIPE_API_URL: stripe.baseUrl });
      const transport: MailTransport = { send: async (message) => void sent.push(message), close: () => undefined, describe: () => 'memory' };
      jobs = startBackgroundJobs(t.ctx, { jobIntervalMs: 3_600_000, wakeOnBooking: false, transport });
    });
    afterAll(async () => {
      await jobs?.stop();
      await t?.close();
      await stripe?.close();
    });

    /** Runs the due jobs and returns the messages they sent, by recipient. */
    const deliver = async () => {
      await jobs.runOnce();
      const out = sent.splice(0);
      return (email: string) => out.filter((message) => message.to.email === email);
    };

    it.each(OTHER_LANGS)('%s: confirmation, reschedule across the switch to summer time, cancellation, payment pending, paid, refunded and released', async (lang) => {
      const c = CASES[lang];
      const email = `${lang}.participant@example.com`;
      const account = await createTestAccount(t.ctx, { name: 'Acme', ownerFirstName: 'Olga', ownerLastName: 'Nowak', timezone: 'Europe/Warsaw', places: ['offline'] });
      const host = { email: account.owner.email, lang: c.hostLang };
      const patched = await call(t.app, account.apiKey, 'PATCH', `/api/v1/users/${account.owner.uuid}`, { language: c.hostLang });
      expect(patched.statusCode, patched.body).toBe(200);
      const hostZone = patched.json().timezone as string;
      const gateways = { stripe: { ...stripe.credentials.settings, ...stripe.credentials.secrets } };
      expect((await call(t.app, account.apiKey, 'PATCH', '/api/v1/account', { gateways })).statusCode).toBe(200);
      const topic = (await call(t.app, account.apiKey, 'POST', '/api/v1/meeting-topics', { name: c.topic, durationMinutes: 30, places: ['offline'] })).json();
      const paidTopic = (
        await call(t.app, account.apiKey, 'POST', '/api/v1/meeting-topics', {
          name: c.paidTopic,
          durationMinutes: 30,
          places: ['offline'],
          price: { amount: 15000, currency: c.currency },
        })
      ).json();
      const book = async (topicUuid: string, start: string, extra: Record<string, unknown> = {}) => {
        const response = await call(t.app, account.apiKey, 'POST', '/api/v1/schedule', {
          dates: [{ start, username: account.owner.username }],
          email,
          lang,
          name: c.participant.name,
          place: 'offline',
          meetingTopic: topicUuid,
          timezone: c.participant.zone,
          ...extra,
        });
        expect(response.statusCode, response.body).toBe(201);
        return response.json() as { meetings: { uuid: string }[]; payment?: { uuid: string; expiresAt: string } };
      };

      const t1 = translator(lang, 'mail');
      const th = translator(c.hostLang, 'mail');
      const mine = intl(lang, c.participant.zone);
      const theirs = intl(c.hostLang, hostZone);
      const friday = Date.parse(FRIDAY);
      const monday = Date.parse(MONDAY);

      // Booked for Friday: the confirmation and its invitation, and the host's copy in the host's language and zone.
      const booked = await book(topic.uuid, FRIDAY);
      let to = await deliver();
      const [confirmation] = to(email);
      expect(to(email)).toHaveLength(1);
      expect(confirmation!.subject).toBe(t1('confirmed.subject', { topic: c.topic, other: 'Olga Nowak', date: mine.short(friday) }));
      expect(confirmation!.text).toContain(mine.span(friday, friday + HALF_HOUR));
      expect(confirmation!.ics.method).toBe('REQUEST');
      expectInLanguage(confirmation!, lang);
      const [hostConfirmation] = to(host.email);
      expect(hostConfirmation!.subject).toBe(th('confirmed.hostSubject', { topic: c.topic, other: c.participant.name, date: theirs.short(friday) }));
      expect(hostConfirmation!.text).toContain(theirs.span(friday, friday + HALF_HOUR));
      expectInLanguage(hostConfirmation!, host.lang);

      // Moved to Monday, after the clocks went forward: the new time and the previous one, each in its own offset.
      const moved = await call(t.app, account.apiKey, 'POST', `/api/v1/meetings/${booked.meetings[0]!.uuid}/reschedule`, { start: MONDAY });
      expect(moved.statusCode, moved.body).toBe(200);
      to = await deliver();
      const [reschedule] = to(email);
      expect(reschedule!.subject).toBe(t1('rescheduled.subject', { topic: c.topic, other: 'Olga Nowak', date: mine.short(monday) }));
      expect(reschedule!.text).toContain(mine.span(monday, monday + HALF_HOUR));
      expect(reschedule!.text).toContain(mine.span(friday, friday + HALF_HOUR));
      expectInLanguage(reschedule!, lang);
      const [hostReschedule] = to(host.email);
      expect(hostReschedule!.text).toContain(theirs.span(monday, monday + HALF_HOUR));
      expectInLanguage(hostReschedule!, host.lang);
      if (lang === 'uk') {
        // 08:00 UTC is 10:00 in Kyiv on Friday (EET) and 11:00 on Monday (EEST).
        expect(reschedule!.text).toContain('10:00–10:30');
        expect(reschedule!.text).toContain('11:00–11:30');
      }

      // Cancelled by the host, with a reason: METHOD:CANCEL, the reason, in both languages.
      const cancelled = await call(t.app, account.apiKey, 'POST', `/api/v1/meetings/${booked.meetings[0]!.uuid}/cancel`, { reason: c.reason });
      expect(cancelled.statusCode, cancelled.body).toBe(200);
      to = await deliver();
      const [cancellation] = to(email);
      expect(cancellation!.subject).toBe(t1('cancelled.subject', { topic: c.topic, other: 'Olga Nowak', date: mine.short(monday) }));
      expect(cancellation!.ics.method).toBe('CANCEL');
      expect(cancellation!.text).toContain(c.reason);
      expectInLanguage(cancellation!, lang);
      const [hostCancellation] = to(host.email);
      expect(hostCancellation!.subject).toBe(th('cancelled.hostSubject', { topic: c.topic, other: c.participant.name, date: theirs.short(monday) }));
      expectInLanguage(hostCancellation!, host.lang);

      // A paid booking: the pay link, the amount and the deadline; then paid (the confirmation shows the amount); then refunded.
      const price = mine.money(15000, c.currency);
      const paid = await book(paidTopic.uuid, TUESDAY, { gateway: 'stripe' });
      to = await deliver();
      const [pending] = to(email);
      expect(to(email)).toHaveLength(1);
      expect(pending!.subject).toBe(t1('payment.pendingSubject', { topic: c.paidTopic }));
      expect(pending!.text).toContain(price);
      expect(pending!.text).toContain(mine.short(Date.parse(paid.payment!.expiresAt)));
      expect(pending!.text).toContain(`${PUBLIC_URL}/pay/${paid.payment!.uuid}`);
      expectInLanguage(pending!, lang);

      const redirect = await t.app.inject({ method: 'GET', url: `/pay/${paid.payment!.uuid}`, headers: { accept: 'text/html' } });
      expect(redirect.statusCode, redirect.body).toBe(303);
      const row = await t.ctx.db.selectFrom('payments').select('gateway_transaction_id').where('id', '=', paid.payment!.uuid).executeTakeFirstOrThrow();
      const notification = stripe.notificationFor(row.gateway_transaction_id!);
      const notified = await t.app.inject({
        method: 'POST',
        url: `/api/v1/payments/stripe/notifications/${account.account.uuid}`,
        headers: notification.headers as Record<string, string>,
        payload: notification.rawBody,
      });
      expect(notified.statusCode, notified.body).toBe(200);
      to = await deliver();
      const [paidConfirmation] = to(email);
      const tuesday = Date.parse(TUESDAY);
      expect(paidConfirmation!.subject).toBe(t1('confirmed.subject', { topic: c.paidTopic, other: 'Olga Nowak', date: mine.short(tuesday) }));
      expect(paidConfirmation!.text).toContain(price);
      expect(paidConfirmation!.text).toContain(mine.span(tuesday, tuesday + HALF_HOUR));
      expectInLanguage(paidConfirmation!, lang);
      const [hostPaid] = to(host.email);
      expect(hostPaid!.text).toContain(theirs.money(15000, c.currency));
      expectInLanguage(hostPaid!, host.lang);

      expect((await call(t.app, account.apiKey, 'POST', `/api/v1/meetings/${paid.meetings[0]!.uuid}/cancel`, { reason: c.reason })).statusCode).toBe(200);
      to = await deliver();
      const refund = to(email).find((message) => message.ics.content === '');
      expect(refund?.subject).toBe(t1('payment.refundedSubject', { topic: c.paidTopic }));
      expect(refund!.text).toContain(price);
      expectInLanguage(refund!, lang);
      const paidCancellation = to(email).find((message) => message.ics.method === 'CANCEL');
      expectInLanguage(paidCancellation!, lang);
      for (const message of to(host.email)) expectInLanguage(message, host.lang);

      // Not paid in time: the slot is released.
      await book(paidTopic.uuid, WEDNESDAY, { gateway: 'stripe' });
      await deliver();
      t.clock.advance(31 * 60_000);
      to = await deliver();
      const released = to(email).find((message) => message.subject === t1('payment.releasedSubject', { topic: c.paidTopic }));
      expect(released).toBeDefined();
      expectInLanguage(released!, lang);
    });
  });
}

/**
 * What the service path above does not reach for every language (a room's link arriving later,
 * the host's view of guests, answers and a note, the slot-taken refund), rendered directly.
 */
describe.each(OTHER_LANGS)('the rest of the booking messages in %s', (lang) => {
  const c = CASES[lang];
  const start = Date.parse(MONDAY);
  const payload = (extra: Partial<BookingMessagePayload> = {}): BookingMessagePayload => ({
    event: 'confirmed',
    recipient: 'participant',
    to: { name: c.participant.name, email: 'anna@example.com' },
    lang,
    timezone: c.participant.zone,
    accountName: 'Acme',
    meeting: {
      uuid: '0193b0a4-6f1e-7c3a-9d2b-5e8f1a2b3c4d',
      topicName: c.topic,
      start,
      end: start + HALF_HOUR,
      place: 'zoom',
      sequence: 1,
      note: 'Olga Nowak, Acme',
      cancelReason: null,
      phone: '+48 600 000 000',
      location: { place: 'zoom', text: 'https://zoom.us/j/812', url: 'https://zoom.us/j/812', address: null, conferenceId: '812', password: '4711', phone: null, source: null },
    },
    organizer: { name: 'Olga Nowak', email: 'olga@acme.test' },
    attendee: { name: c.participant.name, email: 'anna@example.com' },
    guests: ['gosia@example.com'],
    manageUrl: 'https://termin.test/booking/AbCdEfGh',
    alarmMinutesBefore: 60,
    paid: { amount: 15000, currency: c.currency },
    invoice: { invoiceName: 'Acme', invoiceAddress: null, invoicePostalCode: null, invoiceCity: null, invoiceTaxNumber: 'PL5260001246' },
    ...extra,
  });
  const noRoom = { place: 'zoom' as const, text: null, url: null, address: null, phone: null, source: null };

  it('a room, its link, guests, a guest, the host with answers and a note: no English, the zone’s time', () => {
    const messages = [
      renderBookingMessage(payload()),
      renderBookingMessage(payload({ event: 'located' })),
      renderBookingMessage(payload({ event: 'located', recipient: 'host', to: { name: 'Olga Nowak', email: 'olga@acme.test' } })),
      renderBookingMessage(payload({ recipient: 'guest', to: { name: 'gosia@example.com', email: 'gosia@example.com' }, manageUrl: undefined })),
      renderBookingMessage(payload({ meeting: { ...payload().meeting, location: noRoom }, linkFollows: true })),
      renderBookingMessage(payload({ meeting: { ...payload().meeting, location: noRoom }, linkFromHost: true })),
      renderBookingMessage(
        payload({
          recipient: 'host',
          to: { name: 'Olga Nowak', email: 'olga@acme.test' },
          meeting: { ...payload().meeting, location: noRoom },
          linkFromHost: true,
          answers: [
            { label: 'Firma', type: 'text', answer: 'Acme' },
            { label: 'RODO', type: 'checkbox', answer: true },
            { label: 'Newsletter', type: 'checkbox', answer: false },
          ],
        } as Partial<BookingMessagePayload>),
      ),
    ];
    for (const message of messages) {
      expectInLanguage(message, lang);
      expect(message.text).toContain(intl(lang, c.participant.zone).span(start, start + HALF_HOUR));
    }
  });

  it('the payment messages, a late payment’s refund included: no English, the amount as Intl writes it', () => {
    const base = {
      to: { name: c.participant.name, email: 'anna@example.com' },
      lang,
      timezone: c.participant.zone,
      accountName: 'Acme',
      topicName: c.paidTopic,
      meetings: [{ start, end: start + HALF_HOUR }],
      amount: 15000,
      currency: c.currency,
    };
    const messages = [
      renderPaymentMessage({ ...base, event: 'pending', payUrl: 'https://termin.test/pay/1', deadline: start - 86_400_000 }),
      renderPaymentMessage({ ...base, event: 'released' }),
      renderPaymentMessage({ ...base, event: 'refunded', refundReason: 'cancelled' }),
      renderPaymentMessage({ ...base, event: 'refunded', refundReason: 'slot_taken' }),
    ];
    for (const message of messages) {
      expectInLanguage(message, lang);
      expect(message.text).toContain(intl(lang, c.participant.zone).money(15000, c.currency));
    }
    // The pay button names the amount in the language's order ("150,00 € bezahlen", "Payer 150,00 €").
    const button = translator(lang, 'mail')('payment.payButton', { amount: intl(lang, c.participant.zone).money(15000, c.currency) });
    expect(visibleText(messages[0]!.html)).toContain(button.replace(/\s+/g, ' '));
  });
});
