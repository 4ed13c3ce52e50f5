import { describe, expect, it } from 'vitest';
import {
  answeredQuestions,
  applicableQuestions,
  cleanFormAnswers,
  normalizeFormFields,
  parseStoredFormFields,
  validateFormAnswers,
  validateFormFields,
  type FormField,
} from './form.js';

const QUESTIONS: FormField[] = normalizeFormFields([
  { key: 'company', label: 'Company', required: true },
  { key: 'agenda', label: 'Agenda', type: 'textarea' },
  { key: 'size', label: 'Team size', type: 'select', options: ['1-9', '10-50'], required: true },
  { key: 'consent', label: 'I agree', type: 'checkbox', required: true },
  { key: 'newsletter', label: 'Newsletter', type: 'checkbox' },
]);
const VALID = { company: 'Acme', size: '10-50', consent: true };

describe('validateFormAnswers', () => {
  it.each([
    [VALID, []],
    [{ ...VALID, agenda: 'line 1\nline 2', newsletter: false }, []],
    [{ ...VALID, extra: 'x' }, ['/form/extra']],
    [{ ...VALID, company: 'Acme\nBcc: x' }, ['/form/company']],
    [{ ...VALID, company: 42 }, ['/form/company']],
    [{ ...VALID, company: '  ' }, ['/form/company']],
    [{ ...VALID, size: '51+' }, ['/form/size']],
    [{ ...VALID, consent: 'yes' }, ['/form/consent']],
    [{ ...VALID, consent: false }, ['/form/consent']],
    [{ ...VALID, newsletter: 'true' }, ['/form/newsletter']],
    [{ ...VALID, agenda: 'x'.repeat(5001) }, ['/form/agenda']],
    [{ ...VALID, company: 'x'.repeat(1001) }, ['/form/company']],
    [{}, ['/form/company', '/form/size', '/form/consent']],
  ])('%j → errors at %j', (answers, paths) => {
    expect(validateFormAnswers(answers as Record<string, unknown>, QUESTIONS).map((error) => error.path)).toEqual(paths);
  });

  it('refuses every key when the topic asks nothing', () => {
    expect(validateFormAnswers({ a: 'x' }, [])).toEqual([{ path: '/form/a', message: expect.stringContaining('is not a question') }]);
  });
});

describe('validateFormFields', () => {
  it.each([
    [[{ key: 'a', label: 'A', type: 'select' }], ['/form/0/options']],
    [[{ key: 'a', label: 'A', type: 'select', options: ['x', 'x'] }], ['/form/0/options/1']],
    [[{ key: 'a', label: 'A', type: 'text', options: ['x'] }], ['/form/0/options']],
    [
      [
        { key: 'a', label: 'A' },
        { key: 'a', label: 'B' },
      ],
      ['/form/1/key'],
    ],
    [[{ key: 'a', label: 'A', type: 'checkbox', required: true }], []],
  ] as const)('%j → errors at %j', (fields, paths) => {
    expect(validateFormFields(normalizeFormFields(fields as never)).map((error) => error.path)).toEqual(paths);
  });
});

describe('stored and shown answers', () => {
  it('reads questions stored without a type as text', () => {
    expect(parseStoredFormFields([{ key: 'company', label: 'Company', required: true }])).toEqual([{ key: 'company', label: 'Company', required: true, type: 'text' }]);
  });
  it('stores trimmed answers and leaves blank optional ones out', () => {
    expect(cleanFormAnswers({ company: ' Acme ', agenda: '', size: '1-9', consent: true, newsletter: null }, QUESTIONS)).toEqual({ company: 'Acme', size: '1-9', consent: true });
  });
  it('lists answers in question order, keys that are no longer questions last', () => {
    expect(answeredQuestions({ old: 'kept', consent: true, company: 'Acme' }, QUESTIONS)).toEqual([
      { label: 'Company', type: 'text', answer: 'Acme' },
      { label: 'I agree', type: 'checkbox', answer: true },
      { label: 'old', type: 'textarea', answer: 'kept' },
    ]);
  });
});

describe('the richer question types', () => {
  const RICH: FormField[] = normalizeFormFields([
    { key: 'contact', label: 'Work e-mail', type: 'email' },
    { key: 'mobile', label: 'Mobile', type: 'phone' },
    { key: 'people', label: 'People', type: 'number', min: 1, max: 500 },
    { key: 'topics', label: 'Topics', type: 'multiselect', options: ['pricing', 'security', 'roll-out'], required: true },
    { key: 'start', label: 'Start date', type: 'date' },
  ]);
  const OK = { topics: ['security'] };

  it.each([
    [OK, []],
    [{ ...OK, contact: 'ola@firma.pl', mobile: '+48601234567', people: 12, start: '2028-02-29' }, []],
    [{ ...OK, people: '12' }, []],
    [{ ...OK, contact: 'not an address' }, ['/form/contact']],
    [{ ...OK, mobile: '601 234 567' }, ['/form/mobile']],
    [{ ...OK, mobile: '+4860' }, ['/form/mobile']],
    [{ ...OK, people: 0 }, ['/form/people']],
    [{ ...OK, people: 501 }, ['/form/people']],
    [{ ...OK, people: 'twelve' }, ['/form/people']],
    [{ topics: ['pricing', 'pricing'] }, ['/form/topics']],
    [{ topics: ['hiring'] }, ['/form/topics']],
    [{ topics: 'pricing' }, ['/form/topics']],
    [{ topics: [] }, ['/form/topics']],
    [{ ...OK, start: '2027-02-29' }, ['/form/start']],
    [{ ...OK, start: '29.03.2027' }, ['/form/start']],
  ])('%j → errors at %j', (answers, paths) => {
    expect(validateFormAnswers(answers as Record<string, unknown>, RICH).map((error) => error.path)).toEqual(paths);
  });

  it('stores a number as a number and a multiselect in the order of its options', () => {
    expect(cleanFormAnswers({ people: ' 12 ', topics: ['roll-out', ' pricing'] }, RICH)).toEqual({ people: 12, topics: ['pricing', 'roll-out'] });
    expect(answeredQuestions({ people: 12, topics: ['pricing', 'roll-out'] }, RICH)).toEqual([
      { label: 'People', type: 'number', answer: '12' },
      { label: 'Topics', type: 'multiselect', answer: 'pricing, roll-out' },
    ]);
  });

  it.each([
    [[{ key: 'a', label: 'A', type: 'multiselect' }], ['/form/0/options']],
    [[{ key: 'a', label: 'A', type: 'number', min: 5, max: 1 }], ['/form/0/max']],
    [[{ key: 'a', label: 'A', type: 'text', min: 1 }], ['/form/0/min']],
    [
      [
        { key: 'a', label: 'A', showIf: { key: 'b', equals: 'x' } },
        { key: 'b', label: 'B' },
      ],
      ['/form/0/showIf/key'],
    ],
    [
      [
        { key: 'a', label: 'A', type: 'checkbox' },
        { key: 'b', label: 'B', showIf: { key: 'a', equals: 'yes' } },
      ],
      ['/form/1/showIf/equals'],
    ],
    [
      [
        { key: 'a', label: 'A', type: 'select', options: ['x'] },
        { key: 'b', label: 'B', showIf: { key: 'a', equals: 'y' } },
      ],
      ['/form/1/showIf/equals'],
    ],
    [
      [
        { key: 'a', label: 'A', type: 'select', options: ['x'] },
        { key: 'b', label: 'B', showIf: { key: 'a', equals: 'x' } },
      ],
      [],
    ],
  ] as const)('questions %j → errors at %j', (fields, paths) => {
    expect(validateFormFields(normalizeFormFields(fields as never)).map((error) => error.path)).toEqual(paths);
  });
});

describe('conditional questions (showIf)', () => {
  const FLOW: FormField[] = normalizeFormFields([
    { key: 'kind', label: 'Kind', type: 'select', options: ['person', 'company'], required: true },
    { key: 'company', label: 'Company', required: true, showIf: { key: 'kind', equals: 'company' } },
    { key: 'vat', label: 'VAT number', required: true, showIf: { key: 'company', equals: 'Acme' } },
    { key: 'invoice', label: 'Invoice', type: 'checkbox' },
    { key: 'address', label: 'Address', required: true, showIf: { key: 'invoice', equals: true } },
  ]);

  it.each([
    [{ kind: 'person' }, []],
    // Blank answers and unticked boxes are what a page without its script posts for every question it showed.
    [{ kind: 'person', company: '', invoice: false }, []],
    [{ kind: 'person', company: 'Acme' }, ['/form/company']],
    [{ kind: 'company' }, ['/form/company']],
    [{ kind: 'company', company: 'Other' }, []],
    // A condition on a question that applies only itself follows it.
    [{ kind: 'company', company: 'Acme' }, ['/form/vat']],
    [{ kind: 'person', vat: 'PL1' }, ['/form/vat']],
    [{ kind: 'person', invoice: true }, ['/form/address']],
    [{ kind: 'person', address: 'Main St' }, ['/form/address']],
  ])('%j → errors at %j', (answers, paths) => {
    expect(validateFormAnswers(answers as Record<string, unknown>, FLOW).map((error) => error.path)).toEqual(paths);
  });

  it('applies a question when the earlier one it names has that answer, and stores no answer to one that does not apply', () => {
    expect([...applicableQuestions({ kind: 'company', company: 'Acme' }, FLOW)]).toEqual(['kind', 'company', 'vat', 'invoice']);
    expect(cleanFormAnswers({ kind: 'person', company: '', invoice: false }, FLOW)).toEqual({ kind: 'person', invoice: false });
  });
});
