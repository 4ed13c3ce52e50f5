import { describe, expect, it } from 'vitest';
import { answeredQuestions, cleanFormAnswers, normalizeFormFields, parseStoredFormFields, validateFormAnswers, validateFormFields, type FormField } from './form.js';

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
