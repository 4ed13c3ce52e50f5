import { describe, expect, it } from 'vitest';
import { escapeHtml, isMultiLineText, isSingleLineText, toParameterValue, toSingleLine, toTextLines } from './text.js';

describe('text rules', () => {
  it.each<[string, boolean, boolean]>([
    ['Anna Nowak', true, true],
    ['Łukasz Żółć 😀', true, true],
    ['line 1\nline 2', false, true],
    ['a\r\nb\tc', false, true],
    ['a\u0000', false, false],
    ['bell\u0007', false, false],
    ['del\u007F', false, false],
    ['escape\u001B[31m', false, false],
  ])('%j: single-line %s, multi-line %s', (value, single, multi) => {
    expect(isSingleLineText(value)).toBe(single);
    expect(isMultiLineText(value)).toBe(multi);
  });

  it.each([
    ['Eve\r\nBcc: x@evil.test', 'Eve Bcc: x@evil.test'],
    ['  a\u0000\u0007b  ', 'a b'],
    ['a\u2028b\u0085c', 'a b c'],
    ['Anna Nowak', 'Anna Nowak'],
  ])('toSingleLine(%j) → %j', (value, expected) => {
    expect(toSingleLine(value)).toBe(expected);
  });

  it('splits multi-line text into clean lines', () => {
    expect(toTextLines('a\r\nb\u0000c\rd\u2028e\n\n')).toEqual(['a', 'bc', 'd', 'e']);
    expect(toTextLines('')).toEqual([]);
  });

  it('makes an RFC 5545 parameter value with nothing to escape', () => {
    expect(toParameterValue('Eve";ROLE=CHAIR;X=":mailto:attacker@evil.test')).toBe("Eve';ROLE=CHAIR;X=':mailto:attacker@evil.test");
    expect(toParameterValue('A\\B\r\nC')).toBe('A/B C');
  });

  it('escapes HTML', () => {
    expect(escapeHtml(`<b>"A&B's"</b>`)).toBe('&lt;b&gt;&quot;A&amp;B&#39;s&quot;&lt;/b&gt;');
  });
});
