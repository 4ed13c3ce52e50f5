import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { PLACES, isPlace, type Place } from '../../domain/account.js';
import { type FieldError, ValidationError } from '../../domain/errors.js';
import { PLACE_LABELS } from '../../i18n/place-labels.js';
import { getAccount, updateAccount } from '../../scheduling/account/account.js';
import { type SafeHtml, html, sendHtml } from '../pages/html.js';
import { type FormProblems, NO_PROBLEMS, fieldProblem, formProblems, invalidAttributes, problemSummary } from './form-problems.js';
import { PAGE_ROUTE, RepeatedField, TextField, field, fields, formErrorsOf, formRoute, formSchema, type FormBody } from './forms.js';
import { type AppFrame, type AppPageOptions, csrfField, notice, renderPage, seeOther, sessionOf } from './frame.js';
import { APP_STRINGS, type AppStrings } from './strings.js';

/** The "General" section's form: what `PATCH /account` sets besides gateways and integrations. */
const GeneralFormSchema = formSchema({ name: TextField, timezone: TextField, places: RepeatedField });
/** The "Retention" section's form: `PATCH /account`'s `retention.participantDataDays`, empty for none. */
const RetentionFormSchema = formSchema({ participantDataDays: TextField });
/** The "Branding" section's form: `PATCH /account`'s `branding`, an empty field for none. */
const BrandingFormSchema = formSchema({ businessName: TextField, logoUrl: TextField, accentColor: TextField });

interface BrandingForm {
  businessName: string;
  logoUrl: string;
  accentColor: string;
}

interface GeneralForm {
  name: string;
  timezone: string;
  places: Place[];
}

/**
 * `/app/account` (admins): the account's settings, one section per concern, each with its own
 * form and route posting to `/app/account/{section}`, through the same use case as
 * `PATCH /account` with the member as the caller: "General" (name, default time zone, places
 * offered) and "Retention" (days a participant's data is kept after the meeting); a new section (branding, retention …) adds its renderer to
 * `renderAccountPage`'s marked spot and its route beside `/app/account/general`.
 */
export const accountPage: FastifyPluginAsync<AppPageOptions> = async (app, { ctx, frames }) => {
  async function page(
    request: FastifyRequest,
    reply: FastifyReply,
    outcome: {
      status?: number;
      flash?: string | null;
      general?: GeneralForm;
      problems?: FormProblems;
      retention?: string;
      retentionProblems?: FormProblems;
      branding?: BrandingForm;
      brandingProblems?: FormProblems;
    } = {},
  ) {
    const account = await getAccount(ctx, sessionOf(request).principal);
    const view: AccountPageView = {
      general: outcome.general ?? { name: account.name, timezone: account.timezone, places: [...account.places] },
      zones: Intl.supportedValuesOf('timeZone'),
      flash: outcome.flash ?? null,
      problems: outcome.problems ?? NO_PROBLEMS,
      retention: outcome.retention ?? (account.retention.participantDataDays === null ? '' : String(account.retention.participantDataDays)),
      retentionProblems: outcome.retentionProblems ?? NO_PROBLEMS,
      branding: outcome.branding ?? {
        businessName: account.branding.businessName ?? '',
        logoUrl: account.branding.logoUrl ?? '',
        accentColor: account.branding.accentColor ?? '',
      },
      brandingProblems: outcome.brandingProblems ?? NO_PROBLEMS,
      logoPath: account.branding.logoPath,
      accentUsed: account.branding.accentColor === null ? null : account.branding.accent,
    };
    return sendHtml(reply, outcome.status ?? 200, renderAccountPage(frames.memberFrameOf(request, reply), view));
  }

  app.get<{ Querystring: { done?: string } }>('/app/account', PAGE_ROUTE, async (request, reply) => {
    const t = APP_STRINGS[frames.langOf(request, reply)];
    return page(request, reply, { flash: request.query.done === 'saved' ? t.accountSaved : null });
  });

  app.post<{ Body: FormBody }>('/app/account/general', formRoute(GeneralFormSchema), async (request, reply) => {
    const t = APP_STRINGS[frames.langOf(request, reply)];
    const body = request.body;
    const sent = fields(body, 'places');
    const general: GeneralForm = {
      name: field(body, 'name').trim(),
      timezone: field(body, 'timezone').trim(),
      places: sent.filter((place): place is Place => isPlace(place)),
    };
    try {
      const errors: FieldError[] = formErrorsOf(request);
      if (general.name === '' || general.name.length > 200 || /[\u0000-\u001f\u007f]/.test(general.name))
        errors.push({ path: '/name', message: 'must be one line of 1 to 200 characters' });
      if (general.places.length !== sent.length) errors.push({ path: '/places', message: `must be among ${PLACES.join(', ')}` });
      if (errors.length > 0) throw new ValidationError(errors);
      await updateAccount(ctx, sessionOf(request).principal, general);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      const ids: Record<string, string> = { '/name': 'f-acc-name', '/timezone': 'f-acc-timezone', '/places': 'f-acc-places' };
      const problems = formProblems(t, error.errors ?? [], (path) => ids[path] ?? null, {
        'f-acc-name': t.accountNameError,
        'f-acc-timezone': t.accountTimezoneError,
        'f-acc-places': t.accountPlacesError,
      });
      return page(request, reply, { status: 400, general, problems });
    }
    return seeOther(reply, '/app/account?done=saved');
  });

  app.post<{ Body: FormBody }>('/app/account/retention', formRoute(RetentionFormSchema), async (request, reply) => {
    const t = APP_STRINGS[frames.langOf(request, reply)];
    const sent = field(request.body, 'participantDataDays').trim();
    try {
      const errors: FieldError[] = formErrorsOf(request);
      // Whole days only: "30.5" or "1e3" is not what the member meant, and the use case checks the range.
      if (sent !== '' && !/^\d{1,9}$/.test(sent)) errors.push({ path: '/retention/participantDataDays', message: 'must be a whole number of days' });
      if (errors.length > 0) throw new ValidationError(errors);
      await updateAccount(ctx, sessionOf(request).principal, { retention: { participantDataDays: sent === '' ? null : Number(sent) } });
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      const retentionProblems = formProblems(t, error.errors ?? [], (path) => (path.startsWith('/retention') || path === '/participantDataDays' ? 'f-acc-retention' : null), {
        'f-acc-retention': t.retentionError,
      });
      return page(request, reply, { status: 400, retention: sent, retentionProblems });
    }
    return seeOther(reply, '/app/account?done=saved#retention');
  });

  app.post<{ Body: FormBody }>('/app/account/branding', formRoute(BrandingFormSchema), async (request, reply) => {
    const t = APP_STRINGS[frames.langOf(request, reply)];
    const branding: BrandingForm = {
      businessName: field(request.body, 'businessName').trim(),
      logoUrl: field(request.body, 'logoUrl').trim(),
      accentColor: field(request.body, 'accentColor').trim(),
    };
    try {
      const errors: FieldError[] = formErrorsOf(request);
      if (branding.businessName.length > 200 || /[\u0000-\u001f\u007f]/.test(branding.businessName))
        errors.push({ path: '/branding/businessName', message: 'must be one line of at most 200 characters' });
      if (errors.length > 0) throw new ValidationError(errors);
      // The logo is fetched again only when its address changed: saving the name keeps the stored image.
      const stored = (await getAccount(ctx, sessionOf(request).principal)).branding;
      const logoUrl = branding.logoUrl === (stored.logoUrl ?? '') ? undefined : branding.logoUrl === '' ? null : branding.logoUrl;
      await updateAccount(ctx, sessionOf(request).principal, {
        branding: {
          businessName: branding.businessName === '' ? null : branding.businessName,
          accentColor: branding.accentColor === '' ? null : branding.accentColor,
          ...(logoUrl !== undefined ? { logoUrl } : {}),
        },
      });
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      const ids: Record<string, string> = { '/branding/businessName': 'f-acc-brand-name', '/branding/logoUrl': 'f-acc-brand-logo', '/branding/accentColor': 'f-acc-brand-accent' };
      const brandingProblems = formProblems(t, error.errors ?? [], (path) => ids[path] ?? null, {
        'f-acc-brand-name': t.accountNameError,
        'f-acc-brand-logo': t.brandingLogoError,
        'f-acc-brand-accent': t.brandingAccentError,
      });
      return page(request, reply, { status: 400, branding, brandingProblems });
    }
    return seeOther(reply, '/app/account?done=saved#branding');
  });
};

// ── Rendering ────────────────────────────────────────────────────────────────────────────

export interface AccountPageView {
  general: GeneralForm;
  zones: readonly string[];
  flash: string | null;
  problems: FormProblems;
  /** The retention field as shown: days, or '' for "until erased". */
  retention: string;
  retentionProblems: FormProblems;
  branding: BrandingForm;
  brandingProblems: FormProblems;
  /** The stored logo's path on termin (a preview); null: none. */
  logoPath: string | null;
  /** The accent as pages and e-mails use it; null: the account set none. */
  accentUsed: string | null;
}

function renderBrandingSection(frame: AppFrame, t: AppStrings, view: AccountPageView): SafeHtml {
  const problems = view.brandingProblems;
  const { branding } = view;
  return html`<section aria-labelledby="h-acc-branding" id="branding"><h2 id="h-acc-branding">${t.brandingTitle}</h2>
<p class="hint">${t.brandingHint}</p>
${problemSummary(t, problems, { 'f-acc-brand-name': t.brandingName, 'f-acc-brand-logo': t.brandingLogo, 'f-acc-brand-accent': t.brandingAccent })}
<form method="post" action="/app/account/branding" aria-labelledby="h-acc-branding">
${csrfField(frame)}
<div class="field"><label for="f-acc-brand-name">${t.brandingName}</label><input type="text" id="f-acc-brand-name" name="businessName" value="${branding.businessName}" maxlength="200"${invalidAttributes(problems, 'f-acc-brand-name', 'f-acc-brand-name-hint')}>
<p class="hint" id="f-acc-brand-name-hint">${t.brandingNameHint}</p>${fieldProblem(problems, 'f-acc-brand-name')}</div>
<div class="field"><label for="f-acc-brand-logo">${t.brandingLogo}</label><input type="url" id="f-acc-brand-logo" name="logoUrl" value="${branding.logoUrl}" maxlength="2000" inputmode="url"${invalidAttributes(problems, 'f-acc-brand-logo', 'f-acc-brand-logo-hint')}>
<p class="hint" id="f-acc-brand-logo-hint">${t.brandingLogoHint}</p>${fieldProblem(problems, 'f-acc-brand-logo')}
${view.logoPath ? html`<p><img src="${view.logoPath}" alt="${t.brandingLogoCurrent}" height="40"></p>` : ''}</div>
<div class="field"><label for="f-acc-brand-accent">${t.brandingAccent}</label><input type="text" id="f-acc-brand-accent" name="accentColor" value="${branding.accentColor}" maxlength="7" pattern="#[0-9a-fA-F]{6}" spellcheck="false"${invalidAttributes(problems, 'f-acc-brand-accent', 'f-acc-brand-accent-hint')}>
<p class="hint" id="f-acc-brand-accent-hint">${t.brandingAccentHint}${view.accentUsed ? html` ${t.brandingAccentUsed(view.accentUsed)}` : ''}</p>${fieldProblem(problems, 'f-acc-brand-accent')}</div>
<p><button type="submit" class="primary">${t.save}</button></p>
</form>
</section>`;
}

function renderRetentionSection(frame: AppFrame, t: AppStrings, view: AccountPageView): SafeHtml {
  const problems = view.retentionProblems;
  return html`<section aria-labelledby="h-acc-retention" id="retention"><h2 id="h-acc-retention">${t.retentionTitle}</h2>
${problemSummary(t, problems, { 'f-acc-retention': t.retentionDays })}
<form method="post" action="/app/account/retention" aria-labelledby="h-acc-retention">
${csrfField(frame)}
<div class="field"><label for="f-acc-retention">${t.retentionDays}</label><input type="number" id="f-acc-retention" name="participantDataDays" value="${view.retention}" min="1" max="3650" step="1" inputmode="numeric"${invalidAttributes(problems, 'f-acc-retention', 'f-acc-retention-hint')}>
<p class="hint" id="f-acc-retention-hint">${t.retentionHint}</p>${fieldProblem(problems, 'f-acc-retention')}</div>
<p><button type="submit" class="primary">${t.save}</button></p>
</form>
</section>`;
}

function renderGeneralSection(frame: AppFrame, t: AppStrings, view: AccountPageView): SafeHtml {
  const { general, problems } = view;
  // The account's zone stays choosable even when this runtime's list spells it otherwise (UTC, an alias).
  const zones = view.zones.includes(general.timezone) || general.timezone === '' ? view.zones : [general.timezone, ...view.zones];
  return html`<section aria-labelledby="h-acc-general" id="general"><h2 id="h-acc-general">${t.accountGeneral}</h2>
${problemSummary(t, problems, { 'f-acc-name': t.accountName, 'f-acc-timezone': t.accountTimezone, 'f-acc-places': t.accountPlaces })}
<form method="post" action="/app/account/general" aria-labelledby="h-acc-general">
${csrfField(frame)}
<div class="field"><label for="f-acc-name">${t.accountName}</label><input type="text" id="f-acc-name" name="name" value="${general.name}" required maxlength="200"${invalidAttributes(problems, 'f-acc-name')}>${fieldProblem(problems, 'f-acc-name')}</div>
<div class="field"><label for="f-acc-timezone">${t.accountTimezone}</label><select id="f-acc-timezone" name="timezone"${invalidAttributes(problems, 'f-acc-timezone')}>
${zones.map((zone) => html`<option value="${zone}"${zone === general.timezone ? html` selected` : ''}>${zone.replace(/_/g, ' ')}</option>`)}
</select>${fieldProblem(problems, 'f-acc-timezone')}</div>
<fieldset class="choices" id="f-acc-places"${invalidAttributes(problems, 'f-acc-places', 'f-acc-places-hint')}><legend>${t.accountPlaces}</legend>
<p class="hint" id="f-acc-places-hint">${t.accountPlacesHint}</p>
${PLACES.map(
  (place) =>
    html`<label class="choice"><input type="checkbox" name="places" value="${place}"${general.places.includes(place) ? html` checked` : ''}> ${PLACE_LABELS[frame.lang][place]}</label>`,
)}
${fieldProblem(problems, 'f-acc-places')}</fieldset>
<p><button type="submit" class="primary">${t.save}</button></p>
</form>
</section>`;
}

export function renderAccountPage(frame: AppFrame, view: AccountPageView): SafeHtml {
  const t = APP_STRINGS[frame.lang];
  const sections: SafeHtml[] = [
    renderGeneralSection(frame, t, view),
    renderRetentionSection(frame, t, view),
    renderBrandingSection(frame, t, view),
    // ── More sections go here (branding, retention …): each a <section> with its own h2,
    //    form and route (POST /app/account/{section}), after "General". ──
  ];
  return renderPage(frame, t.accountTitle, 'account', html`${notice(view.flash)}${sections}`);
}
