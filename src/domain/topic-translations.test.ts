import { describe, expect, it } from 'vitest';
import type { FormField } from './form.js';
import type { Lang } from './lang.js';
import { translateTopic, validateTopicTranslations, type TopicTranslations } from './topic-translations.js';
import { linkifyText } from './text.js';

const FORM: FormField[] = [
  { key: 'company', label: 'Company', required: false, type: 'text' },
  { key: 'size', label: 'Team size', required: true, type: 'select', options: ['1-10', '11-50', 'more'] },
];

const TOPIC = {
  name: 'Consultation',
  description: 'A first talk.',
  confirmationMessage: 'Bring your ID.',
  form: FORM,
};

describe('topic translations', () => {
  it.each<[string, TopicTranslations, Partial<ReturnType<typeof translateTopic>>]>([
    ['nothing translated: the topic’s own words', {}, TOPIC],
    ['another language only: the topic’s own words', { en: { name: 'Talk' } }, TOPIC],
    ['name only: the rest falls back', { pl: { name: 'Konsultacja' } }, { ...TOPIC, name: 'Konsultacja' }],
    [
      'every field',
      { pl: { name: 'Konsultacja', description: 'Pierwsza rozmowa.', confirmationMessage: 'Zabierz dowód.', form: { company: { label: 'Firma' } } } },
      { name: 'Konsultacja', description: 'Pierwsza rozmowa.', confirmationMessage: 'Zabierz dowód.', form: [{ ...FORM[0]!, label: 'Firma' }, FORM[1]!] },
    ],
    [
      'options with the label',
      { pl: { form: { size: { label: 'Wielkość zespołu', options: ['1-10', '11-50', 'więcej'] } } } },
      { ...TOPIC, form: [FORM[0]!, { ...FORM[1]!, label: 'Wielkość zespołu', options: ['1-10', '11-50', 'więcej'] }] },
    ],
    ['options of a stale count are not used', { pl: { form: { size: { options: ['a', 'b'] } } } }, TOPIC],
    ['a blank translation falls back', { pl: { name: '  ', description: '' } }, TOPIC],
  ])('%s', (_name, translations, expected) => {
    expect(translateTopic({ ...TOPIC, translations }, 'pl')).toEqual(expected);
  });

  it.each<[string, Record<string, object>, string[]]>([
    ['valid', { pl: { name: 'Konsultacja', form: { size: { options: ['a', 'b', 'c'] } } } }, []],
    ['an unsupported language', { xx: { name: 'X' } }, ['/translations/xx']],
    ['an unknown question', { pl: { form: { colour: { label: 'Kolor' } } } }, ['/translations/pl/form/colour']],
    ['options of another count', { pl: { form: { size: { options: ['a'] } } } }, ['/translations/pl/form/size/options']],
    ['options for a question without them', { pl: { form: { company: { options: ['a'] } } } }, ['/translations/pl/form/company/options']],
    ['a blank name', { pl: { name: ' ' } }, ['/translations/pl/name']],
    ['a confirmation message too long', { pl: { confirmationMessage: 'x'.repeat(2001) } }, ['/translations/pl/confirmationMessage']],
  ])('%s → errors at %j', (_name, translations, paths) => {
    expect(validateTopicTranslations(translations, FORM).map((error) => error.path)).toEqual(paths);
  });
});

describe('topic translations in every language termin speaks', () => {
  it.each<[Lang, string, string]>([
    ['de', 'Beratung', 'Firmenname'],
    ['uk', 'Консультація', 'Компанія'],
    ['es', 'Consulta', 'Empresa'],
    ['fr', 'Consultation', 'Entreprise'],
  ])('%s: accepted, and used for that language only', (lang, name, label) => {
    const translations: TopicTranslations = { [lang]: { name, form: { company: { label } } } };
    expect(validateTopicTranslations(translations, FORM)).toEqual([]);
    expect(translateTopic({ ...TOPIC, translations }, lang)).toEqual({ ...TOPIC, name, form: [{ ...FORM[0]!, label }, FORM[1]!] });
    expect(translateTopic({ ...TOPIC, translations }, 'pl')).toEqual(TOPIC);
  });
});

describe('links in plain text', () => {
  it.each<[string, string]>([
    ['Bring ID.', 'Bring ID.'],
    ['<b>x</b>', '&lt;b&gt;x&lt;/b&gt;'],
    ['See https://a.test/x?y=1&z=2.', 'See <a href="https://a.test/x?y=1&amp;z=2">https://a.test/x?y=1&amp;z=2</a>.'],
    ['(http://a.test)', '(<a href="http://a.test">http://a.test</a>)'],
    ['javascript:alert(1)', 'javascript:alert(1)'],
    ['a\nb', 'a<br>\nb'],
    ['https://a.test/"onmouseover="x', '<a href="https://a.test/">https://a.test/</a>&quot;onmouseover=&quot;x'],
  ])('%j → %j', (text, html) => {
    expect(linkifyText(text)).toBe(html);
  });
});
