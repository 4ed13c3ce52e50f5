import { readFileSync } from 'node:fs';
import { IntlMessageFormat } from 'intl-messageformat';
import { LANGS, type Lang } from '../domain/lang.js';

/**
 * The words termin shows people come from catalogues: `locales/<lang>/<area>.json`, one folder
 * per language, plain JSON a translator edits without reading code. Each value is an ICU
 * message (`"Hello {name}"`, `"{count, plural, one {# seat} other {# seats}}"`), formatted by
 * intl-messageformat with that language's plural rules. Nested objects group keys; code names
 * a message by its dotted path (`timeOff.title`).
 *
 * A key missing from English is a bug in the code and throws where the strings are built (at
 * module load, so any test finds it). A key missing from another language reads in English
 * rather than failing a user; test/i18n/catalogues.test.ts fails on it instead.
 */
export const AREAS = ['common', 'pages', 'app', 'topics', 'mail', 'notices'] as const;
export type Area = (typeof AREAS)[number];

export type MessageValues = Record<string, string | number>;
/** Formats one message of an area in one language: `t('timeOff.hint', { zone })`. */
export type Translate = (key: string, values?: MessageValues) => string;

type Tree = { [key: string]: string | Tree };

/** `locales/` beside `src/` (tsx, tests) or beside `dist/` (the built server): both sit two levels up. */
const LOCALES_DIR = new URL('../../locales/', import.meta.url);

const trees = new Map<string, Map<string, string>>();

/** The catalogue file for a language and area, flattened to dotted keys; {} when the file does not exist. */
export function readCatalogue(lang: Lang, area: Area): Map<string, string> {
  const id = `${lang}/${area}`;
  let flat = trees.get(id);
  if (flat) return flat;
  flat = new Map();
  let text: string | undefined;
  try {
    text = readFileSync(new URL(`${lang}/${area}.json`, LOCALES_DIR), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (text !== undefined) flatten(JSON.parse(text) as Tree, '', flat, id);
  trees.set(id, flat);
  return flat;
}

function flatten(tree: Tree, prefix: string, into: Map<string, string>, id: string): void {
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    if (typeof value === 'string') into.set(path, value);
    else if (value !== null && typeof value === 'object') flatten(value, path, into, id);
    else throw new Error(`locales/${id}.json: "${path}" is neither a message nor a group`);
  }
}

/** Compiled messages, one per language, area and key. */
const compiled = new Map<string, IntlMessageFormat>();

/** The message of `key` in `lang`, else in English; throws when English lacks it too. */
function messageSource(lang: Lang, area: Area, key: string): { lang: Lang; source: string } {
  const own = readCatalogue(lang, area).get(key);
  if (own !== undefined) return { lang, source: own };
  const english = readCatalogue('en', area).get(key);
  if (english === undefined) throw new Error(`No message "${key}" in locales/en/${area}.json`);
  return { lang: 'en', source: english };
}

/** The formatter of one area in one language. */
export function translator(lang: Lang, area: Area): Translate {
  return (key, values) => {
    const id = `${lang}/${area}/${key}`;
    let format = compiled.get(id);
    if (!format) {
      const { lang: used, source } = messageSource(lang, area, key);
      format = new IntlMessageFormat(source, used);
      compiled.set(id, format);
    }
    return String(format.format(values));
  };
}

/**
 * Every language's object of strings for one area, built once at module load by `build` (the
 * pattern: src/i18n/place-labels.ts). Plain texts become strings, texts with values functions:
 * `{ title: t('title'), hint: (zone: string) => t('hint', { zone }) }`, so callers keep reading
 * `STRINGS[lang].title` and a missing English key fails at load.
 */
export function buildForEachLang<T>(area: Area, build: (t: Translate, lang: Lang) => T): Record<Lang, T> {
  return Object.fromEntries(LANGS.map((lang) => [lang, build(translator(lang, area), lang)])) as Record<Lang, T>;
}
