import type { FastifyPluginAsync } from 'fastify';
import type { SetupStep } from '../../domain/setup-checklist.js';
import { markBookingLinkShared, type HostChecklist } from '../../scheduling/host-app/checklist.js';
import { type SafeHtml, html } from '../pages/html.js';
import { formRoute, formSchema, requireValidForm, type FormBody } from './forms.js';
import { type AppFrame, type AppPageOptions, csrfField, seeOther, sessionOf } from './frame.js';
import { APP_STRINGS, type AppStrings } from './strings.js';

/** "I shared it": nothing but the form's token. */
const SharedFormSchema = formSchema({});

/** The first-run checklist's one change: the booking link counts as shared (its copy button posts the same form). */
export const checklistRoutes: FastifyPluginAsync<AppPageOptions> = async (app, { ctx }) => {
  app.post<{ Body: FormBody }>('/app/checklist/shared', formRoute(SharedFormSchema), async (request, reply) => {
    requireValidForm(request);
    await markBookingLinkShared(ctx, sessionOf(request).principal);
    return seeOther(reply, '/app?done=shared');
  });
};

function stepLabel(t: AppStrings, step: SetupStep): string {
  return { hours: t.checklistHours, topic: t.checklistTopic, connection: t.checklistConnection, shared: t.checklistShare }[step];
}

/**
 * The checklist on Upcoming until every step is done: each step links to the page where it is
 * done; the last one shows the booking link, to copy (which counts) or to mark as shared.
 */
export function renderChecklist(frame: AppFrame, checklist: HostChecklist): SafeHtml {
  if (checklist.complete) return html``;
  const t = APP_STRINGS[frame.lang];
  const pages: Record<SetupStep, string> = { hours: '/app/availability', topic: '/app/topics', connection: '/app/connections', shared: checklist.bookingUrl };
  const doneCount = checklist.steps.filter((step) => step.done).length;
  return html`<section class="checklist" id="checklist" aria-labelledby="h-checklist">
<h2 id="h-checklist">${t.checklistTitle}</h2>
<p class="hint">${t.checklistProgress(doneCount, checklist.steps.length)}</p>
<ol class="steps">
${checklist.steps.map(
  ({ step, done }) =>
    html`<li id="step-${step}" class="${done ? 'step-done' : 'step-todo'}"><a href="${pages[step]}">${stepLabel(t, step)}</a>${done ? html` <strong class="done-mark">✓ ${t.stepDone}</strong>` : ''}${
      step === 'shared' && !done
        ? html`<form method="post" action="/app/checklist/shared" class="share-link">
${csrfField(frame)}
<div class="field copy"><label for="booking-link">${t.bookingLink}</label><input type="text" id="booking-link" value="${checklist.bookingUrl}" readonly>
<button type="button" class="copy-link" data-copy="booking-link" data-then-submit hidden>${t.copyLink}</button></div>
<button type="submit">${t.iSharedIt}</button>
</form>`
        : ''
    }</li>`,
)}
</ol>
</section>`;
}
