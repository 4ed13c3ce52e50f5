import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BookingMessagePayload } from '../../src/mail/booking-message.js';
import { renderBookingMessage, renderPaymentMessage } from '../../src/mail/render.js';
import { HAS_CHROMIUM } from '../helpers.js';
import { launchBrowser, shot } from './harness.js';

/**
 * The e-mails as a mail program shows their HTML part, in Chromium at a desktop column
 * (600 px) and a phone (360 px): nothing scrolls sideways, and each button is a link to
 * where it says. Screenshots land in test/artifacts/email-*.png for a person to look at.
 */
const MANAGE = 'http://termin.test/booking/AbCdEfGhIjKlMnOpQrStUv';
const ROOM = 'https://zoom.us/j/81234567890?pwd=Zm9vYmFyYmF6cXV4cXV1eHF1dXhxdXV4';

function booking(extra: Partial<BookingMessagePayload> = {}): BookingMessagePayload {
  return {
    event: 'confirmed',
    recipient: 'participant',
    to: { name: 'Zofia Wąs', email: 'zofia@example.com' },
    lang: 'pl',
    timezone: 'Europe/Warsaw',
    accountName: 'Acme Doradztwo Podatkowe',
    meeting: {
      uuid: '0193b0a4-6f1e-7c3a-9d2b-5e8f1a2b3c4d',
      topicName: 'Konsultacja podatkowa dla przedsiębiorców',
      start: Date.parse('2027-03-29T07:00:00Z'),
      end: Date.parse('2027-03-29T07:30:00Z'),
      place: 'zoom',
      sequence: 0,
      note: 'Proszę o przygotowanie zeznania PIT-36L za 2026 rok oraz listy pytań o ulgę na badania i rozwój.',
      cancelReason: null,
      phone: '+48 600 000 000',
      location: { place: 'zoom', text: ROOM, url: ROOM, address: null, conferenceId: '812 3456 7890', password: '123456', phone: null, source: null },
    },
    organizer: { name: 'Anna Nowak-Wiśniewska', email: 'anna.nowak-wisniewska@acme-doradztwo.example.com' },
    attendee: { name: 'Zofia Wąs', email: 'zofia@example.com' },
    manageUrl: MANAGE,
    paid: { amount: 15000, currency: 'PLN' },
    ...extra,
  } as BookingMessagePayload;
}

const MESSAGES = {
  'participant-pl': renderBookingMessage(booking()),
  'host-en': renderBookingMessage(
    booking({
      recipient: 'host',
      lang: 'en',
      to: { name: 'Anna Nowak-Wiśniewska', email: 'anna@acme.test' },
      answers: [
        { label: 'What would you like to discuss?', type: 'textarea', answer: 'Our R&D relief, and whether the 2026 return needs a correction.' },
        { label: 'Company', type: 'text', answer: 'Wąs Software sp. z o.o.' },
      ],
    } as Partial<BookingMessagePayload>),
  ),
  'payment-en': renderPaymentMessage({
    event: 'pending',
    to: { name: 'Zofia Wąs', email: 'zofia@example.com' },
    lang: 'en',
    timezone: 'Europe/Warsaw',
    accountName: 'Acme',
    topicName: 'Consultation',
    meetings: [{ start: Date.parse('2027-03-29T07:00:00Z'), end: Date.parse('2027-03-29T07:30:00Z') }],
    amount: 15000,
    currency: 'PLN',
    payUrl: 'http://termin.test/pay/0193b0a4-6f1e-7c3a-9d2b-5e8f1a2b3c4d',
    deadline: Date.parse('2027-03-22T07:15:00Z'),
  }),
};

/** Where each message's buttons must lead, in order. */
const BUTTONS: Record<keyof typeof MESSAGES, string[]> = {
  'participant-pl': [ROOM, MANAGE],
  'host-en': [ROOM, MANAGE],
  'payment-en': ['http://termin.test/pay/0193b0a4-6f1e-7c3a-9d2b-5e8f1a2b3c4d'],
};

describe.runIf(HAS_CHROMIUM)('the e-mails in a browser', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => browser?.close());

  for (const width of [600, 360]) {
    for (const [name, message] of Object.entries(MESSAGES) as [keyof typeof MESSAGES, (typeof MESSAGES)[keyof typeof MESSAGES]][]) {
      it(`${name} at ${width} px: no sideways scrolling, buttons that are links to the right places`, async () => {
        const page = await browser.newPage({ viewport: { width, height: 800 } });
        try {
          await page.setContent(message.html);
          const overflow = await page.evaluate(`document.documentElement.scrollWidth - document.documentElement.clientWidth`);
          expect(overflow).toBe(0);
          const buttons = await page.$$eval('a.button', (links) =>
            links.map((link) => {
              const box = link.getBoundingClientRect();
              return { href: link.getAttribute('href'), text: link.textContent, right: box.right, height: box.height };
            }),
          );
          expect(buttons.map((button) => button.href)).toEqual(BUTTONS[name]);
          for (const button of buttons) {
            expect(button.right).toBeLessThanOrEqual(width);
            // A target a thumb can hit.
            expect(button.height).toBeGreaterThanOrEqual(40);
          }
          if (name !== 'payment-en') {
            const calendar = await page.$$eval('a.calendar', (links) => links.map((link) => new URL(link.getAttribute('href')!).hostname));
            expect(calendar).toEqual(['calendar.google.com', 'outlook.live.com']);
          }
          await shot(page, `email-${name}-${width}`);
        } finally {
          await page.close();
        }
      });
    }
  }
});
