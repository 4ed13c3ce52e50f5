import { readdirSync } from 'node:fs';
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { AREAS, readCatalogue } from '../../src/i18n/catalogue.js';
import { LANGS, type Lang } from '../../src/domain/lang.js';

/**
 * Finds English in what termin showed a person in another language: a page's visible text, an
 * e-mail's plain and HTML parts, an SMS, an invitation. Two nets:
 * 1. every literal run of the English catalogues (split at their placeholders) of 2+ words
 *    that the language's own catalogues do not also use (brand names like "Google Meet" are
 *    the same everywhere and so never count);
 * 2. English function words (`the`, `your`, `please`, …), which catch text written into code
 *    rather than a catalogue. Test data must then avoid them (names like "Olga", "Acme").
 */
const ENGLISH_WORDS = ['the', 'your', 'you', 'please', 'booking', 'meeting', 'choose', 'with', 'and', 'cancel', 'when', 'where', 'this', 'will', 'has', 'been'];

function literals(elements: MessageFormatElement[], into: string[]): void {
  for (const element of elements) {
    if (element.type === TYPE.literal) into.push(element.value);
    else if (element.type === TYPE.plural || element.type === TYPE.select) for (const option of Object.values(element.options)) literals(option.value, into);
    else if (element.type === TYPE.tag) literals(element.children, into);
  }
}

function phrasesOf(lang: Lang): Set<string> {
  const phrases = new Set<string>();
  for (const area of AREAS) {
    for (const source of readCatalogue(lang, area).values()) {
      const runs: string[] = [];
      literals(parse(source, { ignoreTag: true }), runs);
      for (const run of runs)
        for (const piece of run.split(/[\n.:;!?()“”"]+/)) {
          const phrase = piece.trim().replace(/\s+/g, ' ');
          if (/[a-z]{2,}\s+[a-z]{2,}/i.test(phrase) && phrase.length >= 8) phrases.add(phrase);
        }
    }
  }
  return phrases;
}

const cache = new Map<Lang, Set<string>>();
function englishPhrasesNotIn(lang: Lang): Set<string> {
  let set = cache.get(lang);
  if (set) return set;
  const own = [...phrasesOf(lang)].join('\n');
  set = new Set([...phrasesOf('en')].filter((phrase) => !own.includes(phrase)));
  cache.set(lang, set);
  return set;
}

/** Text a person sees in HTML: tags, scripts and styles dropped, entities of quotes decoded. */
export function visibleText(html: string): string {
  return html
    .replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&quot;|&#34;/g, '"')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/\s+/g, ' ');
}

/** The English found in `text` shown in `lang`: [] when there is none. `allow` lists words the test data itself brings. */
export function englishLeaks(text: string, lang: Lang, allow: readonly string[] = []): string[] {
  if (lang === 'en') return [];
  const found: string[] = [];
  const lower = text.toLowerCase();
  for (const phrase of englishPhrasesNotIn(lang)) {
    const needle = phrase.toLowerCase();
    if (!lower.includes(needle) || allow.some((a) => needle.includes(a.toLowerCase()))) continue;
    // Whole words only: "Outlook calendar" is not in "Outlook Calendario".
    const escaped = needle.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    if (new RegExp(`(^|[^\\p{L}])${escaped}([^\\p{L}]|$)`, 'u').test(lower)) found.push(phrase);
  }
  for (const word of ENGLISH_WORDS) {
    if (allow.includes(word)) continue;
    if (new RegExp(`(^|[^\\p{L}])${word}([^\\p{L}]|$)`, 'iu').test(text)) found.push(word);
  }
  return found;
}

/** The languages other than English, for `describe.each`. */
export const OTHER_LANGS = LANGS.filter((lang) => lang !== 'en');

/** The language folders present under locales/ (a new one must be in LANGS too). */
export function localeFolders(): string[] {
  return readdirSync(new URL('../../locales/', import.meta.url), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}
