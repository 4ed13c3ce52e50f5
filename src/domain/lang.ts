/**
 * The languages termin speaks (messages, pages, the web app, a topic's translations). Its own
 * module, imported by topics, users and meetings alike, so none of them imports another for it.
 * Adding a language starts here.
 */
export const LANGS = ['en', 'pl', 'de', 'uk', 'es', 'fr'] as const;
export type Lang = (typeof LANGS)[number];

/** Whether a value (a query, a cookie, a form field, a stored column) names a language termin speaks: `isLang('fr')` → true, `isLang('it')` → false. */
export function isLang(value: unknown): value is Lang {
  return (LANGS as readonly unknown[]).includes(value);
}
