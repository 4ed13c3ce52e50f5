import type { Place } from '../../domain/account.js';
import { brandedStylesheets, brandLine, businessMessage, type PageBranding } from './branding.js';
import { googleCalendarUrl, outlookCalendarUrl } from '../../domain/calendar-links.js';
import type { MeetingLocation } from '../../domain/place-details.js';
import type { Lang, MeetingStatus } from '../../domain/meeting.js';
import { formatDate, formatMoney, formatRange, formatTime, type FormatLocale } from '../../domain/formats.js';
import { calendarMarkup, hourSwitch } from './calendar.js';
import { html, htmlDocument, type SafeHtml } from './html.js';
import { CALENDAR_LINK_LABELS } from '../../i18n/calendar-link-labels.js';
import { PLACE_LABELS, STRINGS, clientStrings, type Strings } from './i18n.js';

/** What the manage page shows: the meeting in the participant's zone and language. */
export interface ManagePageView {
  lang: Lang;
  /** How dates, times and money read: the visitor's locale when known (pickLocale), else the language. */
  locale: FormatLocale;
  token: string;
  accountName: string | null;
  topicName: string;
  hostName: string;
  start: number;
  end: number;
  status: MeetingStatus;
  place: Place;
  location: MeetingLocation;
  /** What it costs and whether it is paid; null when free. */
  price: { amount: number; currency: string; paid: boolean } | null;
  /** The page's own address, for the calendar event's details and the confirmation's link. */
  manageUrl: string;
  timezone: string;
  /** Until when the participant may still cancel or move it; null when that is already past. */
  changeableUntil: number | null;
  /** A cancelled, declined or expired meeting's topic page, to choose another time; null when none. */
  bookAgainPath?: string | null;
  stylesheet: string;
  script: string;
  /** The business's name, logo and colour. */
  branding?: PageBranding | null | undefined;
  /** The topic's message after booking, in the page's language ("" for none): shown while the meeting is on. */
  confirmationMessage?: string | undefined;
}

/** Where to go, as one line for a calendar event: the join link, else the address or phone, else the place. */
function locationLine(view: Pick<ManagePageView, 'lang' | 'place' | 'location'>): string {
  return view.location.url ?? view.location.address ?? view.location.phone ?? view.location.text ?? PLACE_LABELS[view.lang][view.place];
}

function placeDetails(view: ManagePageView, t: Strings): SafeHtml {
  const { url, address, phone } = view.location;
  return html`${PLACE_LABELS[view.lang][view.place]}${
    url ? html`<br><a class="join" href="${url}" rel="noopener" target="_blank">${t.join}: ${url}</a>` : ''
  }${address ? html`<br><span class="address">${address}</span>` : ''}${phone && !url ? html`<br><a href="tel:${phone.replace(/[^+0-9]/g, '')}">${phone}</a>` : ''}`;
}

/**
 * The whole booking as the participant needs it: when (start and end in their zone), with
 * whom, where (join link or address), what it cost, add-to-calendar links and, on the
 * booking page's confirmation, the manage link. The manage page shows the same block, and
 * the booking page takes it from there after a booking, so the two never differ.
 */
export function renderBookingSummary(view: ManagePageView): SafeHtml {
  const t = STRINGS[view.lang];
  const live = view.status === 'confirmed' || view.status === 'pending_payment';
  const event = {
    title: `${view.topicName}: ${view.hostName}`,
    start: view.start,
    end: view.end,
    details: [view.location.url ? `${t.join}: ${view.location.url}` : '', `${t.manageLink}: ${view.manageUrl}`].filter((line) => line).join('\n'),
    location: locationLine(view),
  };
  return html`<div id="booking-summary">
<dl class="summary">
<dt>${t.when}</dt><dd id="when" data-start="${view.start}" data-end="${view.end}" data-zone="${view.timezone}">${formatRange(view.start, view.end, view.timezone, view.locale)}</dd>
<dt>${t.duration}</dt><dd id="duration">${String(Math.round((view.end - view.start) / 60_000))} ${t.minutes}</dd>
<dt>${t.timezone}</dt><dd>${view.timezone.replace(/_/g, ' ')}</dd>
<dt>${t.with}</dt><dd id="host">${view.hostName}</dd>
<dt>${t.place}</dt><dd id="place">${placeDetails(view, t)}</dd>
${view.price ? html`<dt>${t.price}</dt><dd id="price">${formatMoney(view.price.amount, view.price.currency, view.locale)} (${view.price.paid ? t.paid : t.unpaid})</dd>` : ''}
<dt>${t.status}</dt><dd id="status">${t[`status_${view.status}`]}</dd>
</dl>
${
  live
    ? html`<div class="add-to-calendar"><h2 id="h-calendar">${t.addToCalendar}</h2><ul aria-labelledby="h-calendar">
<li><a id="cal-google" href="${googleCalendarUrl(event)}" rel="noopener" target="_blank">${CALENDAR_LINK_LABELS[view.lang].google}</a></li>
<li><a id="cal-outlook" href="${outlookCalendarUrl(event)}" rel="noopener" target="_blank">${CALENDAR_LINK_LABELS[view.lang].outlook}</a></li>
<li><a id="cal-ics" href="/booking/${view.token}/invitation.ics" download="invitation.ics">${t.icsDownload}</a></li>
</ul></div>
<p class="manage-link"><a id="manage-link" href="${view.manageUrl}" target="_top">${t.manageLink}</a></p>`
    : ''
}
</div>`;
}

/** `GET /booking/{token}`: the participant's own page for one meeting. */
export function renderManagePage(view: ManagePageView): SafeHtml {
  const t = STRINGS[view.lang];
  const live = view.status === 'confirmed' || view.status === 'pending_payment';
  const changeable = live && view.changeableUntil !== null;
  const config = { lang: view.lang, strings: clientStrings(view.lang), token: view.token, timezone: view.timezone };
  const body = html`<main id="manage" class="page manage" data-config="${JSON.stringify(config)}">
<header class="topic">
${view.accountName || view.branding?.businessName || view.branding?.logoPath ? brandLine(view.branding, view.accountName ?? '') : ''}
<h1 id="h-manage" tabindex="-1">${t.manageTitle}: ${view.topicName}</h1>
</header>
<div id="alert" class="alert" role="alert" aria-live="assertive"></div>
${renderBookingSummary(view)}
${live ? businessMessage(view.confirmationMessage ?? '', 'confirmation-message') : ''}
${live && !changeable ? html`<p class="notice" id="too-late">${t.tooLate}</p>` : ''}
${!live && view.bookAgainPath ? html`<p class="book-again"><a id="book-again" class="primary" href="${view.bookAgainPath}?lang=${view.lang}">${t.bookAgain}</a></p>` : ''}
${
  changeable && view.changeableUntil !== null
    ? html`<p class="hint" id="change-until">${t.changeUntil[0]}<span id="change-until-at" data-start="${view.changeableUntil}" data-zone="${view.timezone}">${formatDate(view.changeableUntil, view.timezone, view.locale)}, ${formatTime(view.changeableUntil, view.timezone, view.locale)}</span>${t.changeUntil[1]}</p>
${hourSwitch(t)}
<section id="move" aria-labelledby="h-move">
<h2 id="h-move">${t.moveHeading}</h2>
${calendarMarkup(t, { level: 3 })}
<form id="move-form" hidden>
<p class="selected"><span>${t.selected}:</span> <strong id="selected-label"></strong></p>
<button type="submit" id="move-submit" class="primary">${t.move}</button>
</form>
</section>
<section id="cancel" aria-labelledby="h-cancel">
<h2 id="h-cancel">${t.cancelHeading}</h2>
<form id="cancel-form">
<div class="field"><label for="f-reason">${t.reason} <span class="opt">${t.optional}</span></label><textarea id="f-reason" name="reason" rows="3" maxlength="2000"></textarea></div>
<button type="submit" id="cancel-submit" class="primary danger">${t.cancel}</button>
</form>
</section>`
    : ''
}
</main>`;
  return htmlDocument({
    lang: view.lang,
    title: `${t.manageTitle}: ${view.topicName}`,
    body,
    stylesheets: brandedStylesheets(view.stylesheet, view.branding),
    scripts: changeable ? [view.script] : [],
  });
}

/** The manage link no longer leads anywhere (forged, or the meeting has ended). */
export function renderManageGone(lang: Lang, stylesheet: string): SafeHtml {
  const t = STRINGS[lang];
  return htmlDocument({ lang, title: t.manageTitle, body: html`<main class="page"><h1>${t.manageTitle}</h1><p>${t.notFound}</p></main>`, stylesheets: [stylesheet] });
}
