import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { describe, expect, it } from 'vitest';
import { LANGS, type Lang } from '../../src/domain/lang.js';
import { AREAS, readCatalogue } from '../../src/i18n/catalogue.js';
import { localeFolders, OTHER_LANGS } from './leaks.js';

/**
 * The catalogues themselves (locales/<lang>/<area>.json): every language has every English key
 * and no other, each message parses as ICU, names the same placeholders as the English one,
 * and gives every plural form its language needs (Polish and Ukrainian: one, few, many).
 */
function placeholders(elements: MessageFormatElement[], into = new Set<string>()): Set<string> {
  for (const element of elements) {
    if (element.type === TYPE.argument || element.type === TYPE.number || element.type === TYPE.date || element.type === TYPE.time) into.add(element.value);
    if (element.type === TYPE.plural || element.type === TYPE.select) {
      into.add(element.value);
      for (const option of Object.values(element.options)) placeholders(option.value, into);
    }
    if (element.type === TYPE.tag) placeholders(element.children, into);
  }
  return into;
}

function plurals(elements: MessageFormatElement[], into: { options: string[] }[] = []): { options: string[] }[] {
  for (const element of elements) {
    if (element.type === TYPE.plural) {
      into.push({ options: Object.keys(element.options) });
      for (const option of Object.values(element.options)) plurals(option.value, into);
    }
    if (element.type === TYPE.select) for (const option of Object.values(element.options)) plurals(option.value, into);
  }
  return into;
}

/** The plural categories a language uses for whole numbers 0–1000 (French's `many` is for millions, so not asked). */
function neededCategories(lang: Lang): string[] {
  const rules = new Intl.PluralRules(lang);
  return [...new Set(Array.from({ length: 1001 }, (_, n) => rules.select(n)))].sort();
}

/**
 * Messages that may read exactly as in English (names of products). Anything else identical to
 * its English with two lower-case words in a row is an untranslated copy, which the leak checks would miss:
 * they compare a page with its own language's catalogue.
 */
const SAME_IN_EVERY_LANGUAGE = new Set<string>([]);

describe('catalogues', () => {
  it('has a folder for each language termin speaks, and none other', () => {
    expect(localeFolders()).toEqual([...LANGS].sort());
  });

  it('knows the plural forms Polish and Ukrainian need', () => {
    expect(neededCategories('pl')).toEqual(['few', 'many', 'one']);
    expect(neededCategories('uk')).toEqual(['few', 'many', 'one']);
    expect(neededCategories('de')).toEqual(['one', 'other']);
  });

  describe.each(AREAS)('%s', (area) => {
    const english = readCatalogue('en', area);

    it('parses every English message', () => {
      for (const [key, source] of english) expect(() => parse(source, { ignoreTag: true }), key).not.toThrow();
    });

    it.each(OTHER_LANGS)('%s has every key, no other, the same placeholders and its plural forms', (lang) => {
      const own = readCatalogue(lang, area);
      const missing = [...english.keys()].filter((key) => !own.has(key));
      const extra = [...own.keys()].filter((key) => !english.has(key));
      expect({ missing, extra }).toEqual({ missing: [], extra: [] });
      const problems: string[] = [];
      for (const [key, source] of own) {
        if (source.trim() === '') {
          problems.push(`${key}: empty`);
          continue;
        }
        let elements: MessageFormatElement[];
        try {
          elements = parse(source, { ignoreTag: true });
        } catch (error) {
          problems.push(`${key}: ${(error as Error).message}`);
          continue;
        }
        if (source === english.get(key) && /(^|\s)\p{Ll}{3,}\s+\p{Ll}{3,}/u.test(source) && !SAME_IN_EVERY_LANGUAGE.has(`${area}.${key}`)) problems.push(`${key}: still English`);
        const want = [...placeholders(parse(english.get(key)!, { ignoreTag: true }))].sort();
        const got = [...placeholders(elements)].sort();
        if (want.join() !== got.join()) problems.push(`${key}: placeholders ${got.join(', ')} instead of ${want.join(', ')}`);
        for (const plural of plurals(elements)) {
          const lacking = neededCategories(lang).filter((category) => !plural.options.includes(category) && !(category === 'other' && plural.options.includes('other')));
          if (lacking.length > 0) problems.push(`${key}: plural lacks ${lacking.join(', ')}`);
          if (!plural.options.includes('other')) problems.push(`${key}: plural lacks other`);
        }
      }
      expect(problems).toEqual([]);
    });
  });
});
