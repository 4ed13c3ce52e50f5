import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { type FieldError, UsernameTakenError, ValidationError } from '../../domain/errors.js';
import { isLang, LANGS, type Lang } from '../../domain/lang.js';
import { updateUserProfile } from '../../scheduling/account/profile.js';
import { type SafeHtml, html, sendHtml } from '../pages/html.js';
import { type FormProblems, NO_PROBLEMS, fieldProblem, invalidAttributes, problemSummary } from './form-problems.js';
import { PAGE_ROUTE, TextField, field, formErrorsOf, formRoute, formSchema, type FormBody } from './forms.js';
import { type AppFrame, type AppPageOptions, csrfField, notice, renderPage, seeOther, sessionOf } from './frame.js';
import { APP_STRINGS, type AppStrings } from './strings.js';

const ProfileFormSchema = formSchema({ username: TextField, language: TextField });

interface ProfileForm {
  username: string;
  /** '' for "not chosen". */
  language: string;
}

/**
 * `/app/profile`: the member's own username (the first part of their booking links) and the
 * language of the e-mails termin sends them, through the same use case as
 * `PATCH /users/{userUuid}` with the member as the caller. An admin changes a member's through
 * the API (the team page keeps to names and the admin right).
 */
export const profilePage: FastifyPluginAsync<AppPageOptions> = async (app, { ctx, frames }) => {
  async function page(request: FastifyRequest, reply: FastifyReply, outcome: { status?: number; flash?: string | null; form?: ProfileForm; problems?: FormProblems } = {}) {
    const { user } = sessionOf(request);
    const view: ProfileView = {
      form: outcome.form ?? { username: user.username, language: user.language ?? '' },
      bookingUrl: `${ctx.config.publicUrl}/book/${encodeURIComponent(user.username)}`,
      flash: outcome.flash ?? null,
      problems: outcome.problems ?? NO_PROBLEMS,
    };
    return sendHtml(reply, outcome.status ?? 200, renderProfilePage(frames.memberFrameOf(request, reply), view));
  }

  app.get<{ Querystring: { done?: string } }>('/app/profile', PAGE_ROUTE, async (request, reply) => {
    const t = APP_STRINGS[frames.langOf(request, reply)];
    return page(request, reply, { flash: request.query.done === 'saved' ? t.profileSaved : null });
  });

  app.post<{ Body: FormBody }>('/app/profile', formRoute(ProfileFormSchema), async (request, reply) => {
    const t = APP_STRINGS[frames.langOf(request, reply)];
    const form: ProfileForm = { username: field(request.body, 'username').trim(), language: field(request.body, 'language') };
    const session = sessionOf(request);
    try {
      const errors: FieldError[] = formErrorsOf(request);
      if (form.language !== '' && !isLang(form.language)) errors.push({ path: '/language', message: `must be one of ${LANGS.join(', ')}` });
      if (errors.length > 0) throw new ValidationError(errors);
      await updateUserProfile(ctx, session.principal, session.user.uuid, { username: form.username, language: form.language === '' ? null : (form.language as Lang) });
    } catch (error) {
      if (!(error instanceof ValidationError) && !(error instanceof UsernameTakenError)) throw error;
      return page(request, reply, { status: error instanceof UsernameTakenError ? 409 : 400, form, problems: profileProblems(t, error.errors ?? []) });
    }
    return seeOther(reply, '/app/profile?done=saved');
  });
};

/** Each refusal next to its field, in the page's words: the username's rule it broke, or a taken one. */
function profileProblems(t: AppStrings, errors: readonly FieldError[]): FormProblems {
  const byField = new Map<string, string>();
  const general: string[] = [];
  for (const error of errors) {
    if (error.path === '/username') {
      const message = error.message;
      byField.set(
        'f-username',
        message === 'is taken'
          ? t.err_usernameTaken
          : message.startsWith('must be 1 to')
            ? t.err_usernameLength
            : message.startsWith('is reserved')
              ? t.err_usernameReserved
              : t.err_usernameFormat,
      );
    } else if (error.path === '/language') byField.set('f-language', t.fieldInvalid);
    else if (!general.includes(t.fieldInvalid)) general.push(t.fieldInvalid);
  }
  return { byField, general };
}

// ── Rendering ────────────────────────────────────────────────────────────────────────────

export interface ProfileView {
  form: ProfileForm;
  /** The member's booking link as it is now (the list of their public topics). */
  bookingUrl: string;
  flash: string | null;
  problems: FormProblems;
}

export function renderProfilePage(frame: AppFrame, view: ProfileView): SafeHtml {
  const t = APP_STRINGS[frame.lang];
  const { form, problems } = view;
  const options: readonly (readonly [string, string])[] = [['', t.languageNotChosen], ...LANGS.map((lang) => [lang, t[`languageName_${lang}`]] as const)];
  return renderPage(
    frame,
    t.profileTitle,
    'profile',
    html`${notice(view.flash)}
<p>${t.profileIntro}</p>
${problemSummary(t, problems, { 'f-username': t.username, 'f-language': t.emailLanguage })}
<form method="post" action="/app/profile" id="profile-form">
${csrfField(frame)}
<div class="field"><label for="f-username">${t.username}</label><input type="text" id="f-username" name="username" value="${form.username}" required maxlength="64" spellcheck="false" autocapitalize="none" autocomplete="username"${invalidAttributes(problems, 'f-username', 'f-username-hint')}>
<p class="hint" id="f-username-hint">${t.usernameHint(view.bookingUrl)}</p>${fieldProblem(problems, 'f-username')}</div>
<div class="field"><label for="f-language">${t.emailLanguage}</label><select id="f-language" name="language"${invalidAttributes(problems, 'f-language', 'f-language-hint')}>
${options.map(([value, label]) => html`<option value="${value}"${value === form.language ? html` selected` : ''}${value === '' ? '' : html` lang="${value}"`}>${label}</option>`)}
</select>
<p class="hint" id="f-language-hint">${t.emailLanguageHint}</p>${fieldProblem(problems, 'f-language')}</div>
<p><button type="submit" class="primary">${t.saveProfile}</button></p>
</form>`,
  );
}
