import { describe, expect, it } from 'vitest';
import { FREE_FORM_LIMITS, checkFreeForm } from './free-form.js';

/** `levels` nested containers made by `wrap`, around `leaf`. */
function nest(levels: number, wrap: (inner: unknown) => unknown, leaf: unknown = 1): unknown {
  let value = leaf;
  for (let i = 0; i < levels; i += 1) value = wrap(value);
  return value;
}

describe('checkFreeForm', () => {
  it.each<[string, unknown, { path: string; message: string }[]]>([
    ['an empty object', {}, []],
    ['plain answers', { company: 'ACME', size: 12, vip: true, note: 'line 1\r\nline 2\tend', none: null }, []],
    ['8 levels', nest(8, (inner) => ({ k: inner })), []],
    ['9 levels of objects', nest(9, (inner) => ({ k: inner })), [{ path: '/k/k/k/k/k/k/k/k', message: 'nests deeper than 8 levels' }]],
    ['9 levels of arrays', { a: nest(8, (inner) => [inner]) }, [{ path: '/a/0/0/0/0/0/0/0', message: 'nests deeper than 8 levels' }]],
    ['101 keys', Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i])), [{ path: '', message: 'must have at most 100 keys' }]],
    ['101 elements', { list: Array.from({ length: 101 }, () => 0) }, [{ path: '/list', message: 'must have at most 100 elements' }]],
    [
      '1,001 values',
      Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, Array.from({ length: 90 }, () => 0)])),
      [{ path: '', message: 'must hold at most 1000 values in all' }],
    ],
    ['a long string', { a: 'x'.repeat(5001) }, [{ path: '/a', message: 'must be at most 5000 characters' }]],
    ['a long key', { ['k'.repeat(201)]: 1 }, [{ path: `/${'k'.repeat(201)}`, message: 'key must be at most 200 characters' }]],
    ['NUL in a value', { a: ['ok', 'x\u0000'] }, [{ path: '/a/1', message: 'must not contain control characters (tab and line breaks are fine)' }]],
    ['BEL in a value', { a: '\u0007' }, [{ path: '/a', message: 'must not contain control characters (tab and line breaks are fine)' }]],
    ['LF in a key', { 'a\nb': 1 }, [{ path: '/a\nb', message: 'key must not contain control characters' }]],
    ['/ and ~ in a key', { 'a/b~c': { d: '\u0000' } }, [{ path: '/a~1b~0c/d', message: 'must not contain control characters (tab and line breaks are fine)' }]],
  ])('%s', (_label, value, problems) => {
    expect(checkFreeForm(value)).toEqual(problems);
  });

  it('reports problems in document order', () => {
    expect(checkFreeForm({ a: '\u0000', b: { c: '\u0000' }, d: '\u0000' }).map((p) => p.path)).toEqual(['/a', '/b/c', '/d']);
  });

  it('refuses 100,000 levels in a few steps, without recursion', () => {
    const deep = nest(100_000, (inner) => [inner]);
    expect(checkFreeForm(deep)).toEqual([{ path: '/0/0/0/0/0/0/0/0', message: 'nests deeper than 8 levels' }]);
  });

  it('stops after 20 problems and at the total, however large the value', () => {
    const bad = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, '\u0000']));
    expect(checkFreeForm(bad)).toHaveLength(20);
    expect(checkFreeForm({ a: 1 }, { ...FREE_FORM_LIMITS, maxValues: 0 })).toEqual([{ path: '', message: 'must hold at most 0 values in all' }]);
  });
});
