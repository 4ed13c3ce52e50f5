import { formatMoney, formatSpan } from '../../domain/formats.js';
import { brandedStylesheets, brandLine, businessMessage } from './branding.js';
import type { Lang } from '../../domain/meeting.js';
import type { PayPageView } from '../../scheduling/payments/pay.js';
import { html, htmlDocument, type SafeHtml } from './html.js';

interface PayStrings {
  title: string;
  meeting: string;
  when: string;
  amount: string;
  states: Record<string, string>;
  preparing: string;
  gatewayError: string;
  retry: string;
  pay: string;
  refunded: (amount: string) => string;
}

const STRINGS: Record<Lang, PayStrings> = {
  en: {
    title: 'Payment',
    meeting: 'Meeting',
    when: 'When',
    amount: 'Amount',
    states: {
      pending: 'Your payment has not been confirmed yet. If you have just paid, the confirmation arrives in a moment; this page refreshes itself.',
      paid: 'Payment received, thank you. Your meeting is confirmed and the confirmation is on its way to your e-mail.',
      expired: 'The time to pay has run out and the slot was released. Please book again.',
      failed: 'The payment did not go through and the slot was released. Please book again.',
      refunded: 'This payment was refunded.',
      cancelled: 'This booking was cancelled.',
    },
    preparing: 'Preparing your payment… This page refreshes in a moment.',
    gatewayError: 'The payment service is not answering right now. Nothing was charged. Please try again in a moment.',
    retry: 'Try again',
    pay: 'Continue to payment',
    refunded: (amount) => `Refunded so far: ${amount}.`,
  },
  pl: {
    title: 'Płatność',
    meeting: 'Spotkanie',
    when: 'Termin',
    amount: 'Kwota',
    states: {
      pending: 'Płatność nie została jeszcze potwierdzona. Jeśli właśnie zapłacono, potwierdzenie nadejdzie za chwilę; ta strona odświeży się sama.',
      paid: 'Płatność otrzymana, dziękujemy. Spotkanie jest potwierdzone, a potwierdzenie wysłaliśmy e-mailem.',
      expired: 'Czas na płatność minął i termin został zwolniony. Zarezerwuj spotkanie ponownie.',
      failed: 'Płatność nie powiodła się i termin został zwolniony. Zarezerwuj spotkanie ponownie.',
      refunded: 'Ta płatność została zwrócona.',
      cancelled: 'Ta rezerwacja została odwołana.',
    },
    preparing: 'Przygotowujemy płatność… Strona odświeży się za chwilę.',
    gatewayError: 'Serwis płatności chwilowo nie odpowiada. Nic nie zostało pobrane. Spróbuj ponownie za chwilę.',
    retry: 'Spróbuj ponownie',
    pay: 'Przejdź do płatności',
    refunded: (amount) => `Zwrócono dotąd: ${amount}.`,
  },
};

/** 15000 PLN → "PLN 150.00" (en), "150,00 zł" (pl): the same money format as the booking page and the e-mails. */
export function formatAmount(amount: number, currency: string, lang: Lang): string {
  return formatMoney(amount, currency, lang);
}

function summary(view: PayPageView, s: PayStrings): SafeHtml {
  const when = view.meetings.map((meeting) => formatSpan(meeting.start, meeting.end, view.timezone, view.lang));
  return html`<dl class="summary">
<dt>${s.meeting}</dt><dd>${view.topicName}</dd>
<dt>${s.when}</dt><dd>${when.join('; ')}</dd>
<dt>${s.amount}</dt><dd>${formatAmount(view.payment.amount, view.payment.currency, view.lang)}</dd>
</dl>`;
}

/** The payment as it stands (paid, expired, refunded, or still waiting for the gateway's word). */
export function renderPaymentState(view: PayPageView, payUrl: string, stylesheet: string): SafeHtml {
  const s = STRINGS[view.lang];
  const refunded =
    view.payment.refundedAmount > 0 && view.status !== 'refunded' ? html`<p>${s.refunded(formatAmount(view.payment.refundedAmount, view.payment.currency, view.lang))}</p>` : '';
  // The total beside the button: what the participant is about to pay, without looking back up.
  const payAgain =
    view.status === 'pending'
      ? html`<p class="pay-action"><a class="primary" href="${payUrl}">${s.pay}</a> <strong class="total">${formatAmount(view.payment.amount, view.payment.currency, view.lang)}</strong></p>`
      : '';
  return page(
    view,
    s.title,
    html`<p data-status="${view.status}">${s.states[view.status] ?? view.status}</p>
${refunded}${summary(view, s)}
${view.status === 'paid' ? businessMessage(view.confirmationMessage, 'confirmation-message') : ''}
${payAgain}`,
    stylesheet,
  );
}

/** Another visit is creating the gateway transaction: the page comes back in a moment (Refresh header). */
export function renderPreparing(view: PayPageView, stylesheet: string): SafeHtml {
  const s = STRINGS[view.lang];
  return page(
    view,
    s.title,
    html`<p data-status="preparing">${s.preparing}</p>
${summary(view, s)}`,
    stylesheet,
  );
}

/** The gateway failed: nothing was created or charged, and the same link tries again. */
export function renderGatewayError(view: PayPageView, retryUrl: string, stylesheet: string): SafeHtml {
  const s = STRINGS[view.lang];
  return page(
    view,
    s.title,
    html`<p data-status="gateway-error">${s.gatewayError}</p>
${summary(view, s)}
<p class="pay-action"><a class="primary" href="${retryUrl}">${s.retry}</a></p>`,
    stylesheet,
  );
}

/** `stylesheet`: the booking page's (assets/booking.css under its content-hashed URL), so both look alike. */
function page(view: Pick<PayPageView, 'lang' | 'branding' | 'accountName'>, title: string, body: SafeHtml, stylesheet: string): SafeHtml {
  return htmlDocument({
    lang: view.lang,
    title,
    stylesheets: brandedStylesheets(stylesheet, view.branding),
    body: html`<main class="page">
${brandLine(view.branding, view.accountName)}
<h1>${title}</h1>
${body}
</main>`,
  });
}
