import type { Lang } from '../../domain/lang.js';
import { buildForEachLang } from '../../i18n/catalogue.js';
import type { Problem } from '../schemas/common.js';
import { html, htmlDocument, type SafeHtml } from './html.js';

type ErrorKind = 'badRequest' | 'forbidden' | 'notFound' | 'gone' | 'conflict' | 'tooMany' | 'serverError';

/** What a person is told of each kind of failure (locales/<lang>/pages.json, `errors`). */
const ERRORS = buildForEachLang('pages', (t) => {
  const of = (kind: ErrorKind) => ({ title: t(`errors.${kind}Title`), text: t(`errors.${kind}`) });
  return {
    badRequest: of('badRequest'),
    forbidden: of('forbidden'),
    notFound: of('notFound'),
    gone: of('gone'),
    conflict: of('conflict'),
    tooMany: of('tooMany'),
    serverError: of('serverError'),
  } satisfies Record<ErrorKind, { title: string; text: string }>;
});

function kindOf(status: number): ErrorKind {
  if (status === 401 || status === 403) return 'forbidden';
  if (status === 404) return 'notFound';
  if (status === 410) return 'gone';
  if (status === 409 || status === 412 || status === 422) return 'conflict';
  if (status === 429) return 'tooMany';
  return status >= 500 ? 'serverError' : 'badRequest';
}

/**
 * A problem shown to a person. In English, the same status, title and detail the API would
 * give; in another language the catalogue's words for its kind (the problem's own title and
 * detail are written in English, for integrators), with the status beneath either way.
 */
export function renderErrorPage(problem: Pick<Problem, 'status' | 'title' | 'detail'>, lang: Lang = 'en'): SafeHtml {
  const { title, text } = lang === 'en' ? { title: problem.title, text: problem.detail } : ERRORS[lang][kindOf(problem.status)];
  return htmlDocument({
    lang,
    title,
    body: html`<main>
<h1>${title}</h1>
<p>${text}</p>
<p><small>HTTP ${problem.status}</small></p>
</main>`,
  });
}
