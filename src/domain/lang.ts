/**
 * The languages termin speaks (messages, pages, the web app, a topic's translations). Its own
 * module, imported by topics, users and meetings alike, so none of them imports another for it.
 * Adding a language starts here.
 */
export const LANGS = ['en', 'pl', 'de', 'uk', 'es', 'fr'] as const;
export type Lang = (typeof LANGS)[number];
