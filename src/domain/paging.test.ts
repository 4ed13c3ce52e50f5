import { describe, expect, it } from 'vitest';
import { ValidationError } from './errors.js';
import { pageOf, type SortKey } from './paging.js';

interface Item {
  at: number;
  id: string;
}
const keyOf = (item: Item): SortKey => [item.at, item.id];
const items: Item[] = [
  { at: 3, id: 'c' },
  { at: 1, id: 'b' },
  { at: 1, id: 'a' },
  { at: 2, id: 'd' },
  { at: 5, id: 'e' },
];

function walk(list: Item[], limit: number): string[][] {
  const pages: string[][] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = pageOf(list, keyOf, { limit, cursor });
    pages.push(page.items.map((item) => item.id));
    if (page.nextCursor === null) return pages;
    cursor = page.nextCursor;
  }
}

describe('pageOf', () => {
  it('walks the list in key order, ties by uuid, and says when it is over', () => {
    expect(walk(items, 2)).toEqual([['a', 'b'], ['d', 'c'], ['e']]);
    expect(walk(items, 5)).toEqual([['a', 'b', 'd', 'c', 'e']]);
    expect(pageOf(items, keyOf, {}).items).toHaveLength(5);
  });

  it('neither repeats nor skips an item when the one a cursor names is gone', () => {
    const first = pageOf(items, keyOf, { limit: 2 });
    const withoutB = items.filter((item) => item.id !== 'b');
    expect(pageOf(withoutB, keyOf, { limit: 2, cursor: first.nextCursor! }).items.map((item) => item.id)).toEqual(['d', 'c']);
  });

  it('refuses a cursor it did not issue at /query/cursor', () => {
    for (const cursor of ['nonsense', Buffer.from('{"a":1}').toString('base64url'), Buffer.from('["1","a"]').toString('base64url')]) {
      expect(() => pageOf(items, keyOf, { cursor })).toThrow(ValidationError);
    }
  });
});
