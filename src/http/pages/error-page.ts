import type { Problem } from '../schemas/common.js';
import { html, htmlDocument, type SafeHtml } from './html.js';

/** A problem shown to a person: the same status, title and detail the API would give, as a page. */
export function renderErrorPage(problem: Pick<Problem, 'status' | 'title' | 'detail'>): SafeHtml {
  return htmlDocument({
    lang: 'en',
    title: problem.title,
    body: html`<main>
<h1>${problem.title}</h1>
<p>${problem.detail}</p>
<p><small>HTTP ${problem.status}</small></p>
</main>`,
  });
}
