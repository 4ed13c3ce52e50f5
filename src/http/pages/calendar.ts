import { html, type SafeHtml } from './html.js';
import type { Strings } from './i18n.js';

/**
 * The month calendar and the chosen day's times, as assets/booking.js finds them by id: one
 * markup for the booking page and the manage page's "move" section. `heading` goes above the
 * month (the booking page's step title); `level` is the times heading's rank on the page;
 * `beforeTimes` goes between the month and the times (the booking page's zone and format).
 */
export function calendarMarkup(t: Strings, options: { heading?: SafeHtml; level: 2 | 3; beforeTimes?: SafeHtml }): SafeHtml {
  const timesHeading = options.level === 2 ? html`<h2 id="h-time" tabindex="-1">${t.chooseTime}</h2>` : html`<h3 id="h-time" tabindex="-1">${t.chooseTime}</h3>`;
  return html`<div class="calendar">
${options.heading ?? ''}<div class="cal-head">
<button type="button" id="prev-month" class="icon" aria-label="${t.prevMonth}">‹</button>
<p id="month-label" class="month-label" aria-live="polite"></p>
<button type="button" id="next-month" class="icon" aria-label="${t.nextMonth}">›</button>
</div>
<div class="weekdays" id="weekdays" aria-hidden="true"></div>
<div class="days" id="days"></div>
<p id="cal-status" class="status" role="status">${t.loading}</p>
</div>
${options.beforeTimes ?? ''}<div id="times" class="times" hidden>
${timesHeading}
<p id="day-label" class="day-label"></p>
<ul id="slots" class="slots"></ul>
</div>`;
}

/**
 * The visitor's 12/24-hour choice (booking and manage pages). Hidden until the script runs,
 * which checks the locale's habit or the remembered choice and redraws the times on a change.
 */
export function hourSwitch(t: Strings): SafeHtml {
  return html`<fieldset class="hour-switch" id="hour-switch" hidden><legend>${t.timeFormat}</legend>
<label class="choice"><input type="radio" name="hour-cycle" value="12"> <span>${t.hour12}</span></label>
<label class="choice"><input type="radio" name="hour-cycle" value="24"> <span>${t.hour24}</span></label>
</fieldset>`;
}
