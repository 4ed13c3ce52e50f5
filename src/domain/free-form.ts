import type { FieldError } from './errors.js';
import { isMultiLineText, isSingleLineText } from './text.js';

/**
 * Bounds of a free-form JSON object a client sends (form answers, metadata, gateway
 * settings). Everything else in termin walks these values recursively (the request hash,
 * JSON serialisation, the database driver), so they are bounded before anything does.
 */
export interface FreeFormLimits {
  /** Nesting levels, the free-form object itself being level 1. */
  maxDepth: number;
  /** Keys of one object, or elements of one array. */
  maxEntries: number;
  /** Values in the whole object, at every level (containers included). */
  maxValues: number;
  /** Characters of one string value. */
  maxStringLength: number;
  /** Characters of one key. */
  maxKeyLength: number;
}

export const FREE_FORM_LIMITS: Readonly<FreeFormLimits> = Object.freeze({
  maxDepth: 8,
  maxEntries: 100,
  maxValues: 1000,
  maxStringLength: 5000,
  maxKeyLength: 200,
});

/** The rule in words, for the API documentation. */
export function describeFreeFormLimits(limits: FreeFormLimits = FREE_FORM_LIMITS): string {
  return (
    `At most ${limits.maxDepth} levels deep (the object itself is level 1), ${limits.maxEntries} keys per object or elements per array, ` +
    `${limits.maxValues} values in all, keys of at most ${limits.maxKeyLength} characters on one line, and strings of at most ` +
    `${limits.maxStringLength} characters without control characters other than tab and line breaks.`
  );
}

/** Most problems reported for one value: enough to fix a request, bounded for a hostile one. */
const MAX_PROBLEMS = 20;

/**
 * The problems of a free-form value, each with a JSON Pointer relative to it, in document
 * order. Iterative, and it never descends past `maxDepth` or into an oversized container,
 * so a 3,500-level document costs nine steps, not a stack overflow:
 *
 * `checkFreeForm({ a: { b: 'x\u0000' } })` → `[{ path: '/a/b', message: 'must not contain control characters (tab and line breaks are fine)' }]`
 */
export function checkFreeForm(value: unknown, limits: FreeFormLimits = FREE_FORM_LIMITS): FieldError[] {
  const problems: FieldError[] = [];
  const report = (path: string, message: string) => {
    if (problems.length < MAX_PROBLEMS) problems.push({ path, message });
  };
  let values = 0;
  const stack: { value: unknown; path: string; depth: number }[] = [{ value, path: '', depth: 1 }];
  while (stack.length > 0 && problems.length < MAX_PROBLEMS) {
    const item = stack.pop()!;
    const current = item.value;
    if (typeof current === 'string') {
      if (current.length > limits.maxStringLength) report(item.path, `must be at most ${limits.maxStringLength} characters`);
      else if (!isMultiLineText(current)) report(item.path, 'must not contain control characters (tab and line breaks are fine)');
      continue;
    }
    if (typeof current === 'number') {
      if (!Number.isFinite(current)) report(item.path, 'must be a finite number');
      continue;
    }
    if (current === null || typeof current === 'boolean') continue;
    if (typeof current !== 'object') {
      report(item.path, 'must be a JSON value');
      continue;
    }
    if (item.depth > limits.maxDepth) {
      report(item.path, `nests deeper than ${limits.maxDepth} levels`);
      continue;
    }
    const isArray = Array.isArray(current);
    const entries: [string, unknown][] = isArray ? (current as unknown[]).map((inner, index) => [String(index), inner]) : Object.entries(current as object);
    if (entries.length > limits.maxEntries) {
      report(item.path, isArray ? `must have at most ${limits.maxEntries} elements` : `must have at most ${limits.maxEntries} keys`);
      continue;
    }
    values += entries.length;
    if (values > limits.maxValues) {
      // Reported at the top: no single place is to blame for the total.
      problems.length = 0;
      problems.push({ path: '', message: `must hold at most ${limits.maxValues} values in all` });
      break;
    }
    const children: { value: unknown; path: string; depth: number }[] = [];
    for (const [key, inner] of entries) {
      const path = `${item.path}/${escapePointer(key)}`;
      if (!isArray && key.length > limits.maxKeyLength) report(path, `key must be at most ${limits.maxKeyLength} characters`);
      else if (!isArray && !isSingleLineText(key)) report(path, 'key must not contain control characters');
      else children.push({ value: inner, path, depth: item.depth + 1 });
    }
    // Pushed last to first, so they are checked (and reported) in document order.
    for (let i = children.length - 1; i >= 0; i -= 1) stack.push(children[i]!);
  }
  return problems;
}

/** RFC 6901: `~` and `/` in a key are escaped in a pointer. */
export function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}
