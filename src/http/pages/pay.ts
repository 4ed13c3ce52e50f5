import { formatMoney, formatSpan } from '../../domain/formats.js';
import { brandedStylesheets, brandLine, businessMessage } from './branding.js';
import type { Lang } from '../../domain/meeting.js';
import { buildForEachLang } from '../../i18n/catalogue.js';
import type { PayPageView } from '../../scheduling/payments/pay.js';
import { html, htmlDocument, type SafeHtml } from './html.js';

const PAY_STATES = ['pending', 'paid', 'expired', 'failed', 'refunded', 'cancelled'] as const;

/** The pay page's words (locales/<lang>/pages.json, `pay`). */
const STRINGS = buildForEachLang('pages', (t) => ({
  title: t('pay.title'),
  meeting: t('pay.meeting'),
  when: t('pay.when'),
  amount: t('pay.amount'),
  states: Object.fromEntries(PAY_STATES.map((state) => [state, t(`pay.states.${state}`)])) as Record<string, string>,
  preparing: t('pay.preparing'),
  gatewayError: t('pay.gatewayError'),
  retry: t('pay.retry'),
  pay: t('pay.pay'),
  refunded: (amount: string) => t('pay.refunded', { amount }),
}));

type PayStrings = (typeof STRINGS)[Lang];

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
