import { describe, expect, it } from 'vitest';
import { RepeatThrottle } from './repeat-throttle.js';

describe('RepeatThrottle', () => {
  it('reports the first of a run, then one per interval with the number held back', () => {
    const throttle = new RepeatThrottle(60_000);
    const seconds = [0, 1, 30, 59.999, 60, 61, 119, 120, 400];
    expect(seconds.map((s) => throttle.admit('disk full', s * 1000))).toEqual([0, null, null, null, 3, null, null, 2, 0]);
  });

  it('counts each kind of event apart', () => {
    const throttle = new RepeatThrottle(60_000);
    expect([throttle.admit('a', 0), throttle.admit('b', 0), throttle.admit('a', 1), throttle.admit('b', 60_000), throttle.admit('a', 60_000)]).toEqual([0, 0, null, 0, 1]);
  });

  it('keeps at most maxKeys runs, dropping the least recently reported', () => {
    const throttle = new RepeatThrottle(60_000, 2);
    throttle.admit('a', 0);
    throttle.admit('b', 1);
    throttle.admit('c', 2); // 'a' goes
    expect(throttle.admit('b', 3)).toBeNull();
    expect(throttle.admit('a', 4)).toBe(0); // a new run: nothing remembered of the first
  });
});

describe('RepeatThrottle.logError', () => {
  it('logs the first error of a run whole, then once per interval with its message and a count', () => {
    const throttle = new RepeatThrottle(60_000);
    const lines: { fields: Record<string, unknown>; message: string }[] = [];
    const write = (fields: Record<string, unknown>, message: string) => lines.push({ fields, message });
    const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    for (let second = 0; second < 125; second += 1) throttle.logError(write, full, 'cannot store', second * 1000, { kind: 'email' });
    throttle.logError(write, new Error('another'), 'cannot store', 125_000, { kind: 'email' });
    expect(lines).toEqual([
      { fields: { kind: 'email', err: full }, message: 'cannot store' },
      {
        fields: { kind: 'email', err: { type: 'Error', code: 'SQLITE_FULL', message: 'database or disk is full' }, repeated: 59 },
        message: 'cannot store (59 more like it since the last line)',
      },
      {
        fields: { kind: 'email', err: { type: 'Error', code: 'SQLITE_FULL', message: 'database or disk is full' }, repeated: 59 },
        message: 'cannot store (59 more like it since the last line)',
      },
      { fields: { kind: 'email', err: expect.objectContaining({ message: 'another' }) }, message: 'cannot store' },
    ]);
  });

  it('takes errors with the same code as alike whatever their messages say, and others by their message', () => {
    const throttle = new RepeatThrottle(60_000);
    const messages: string[] = [];
    const write = (_fields: Record<string, unknown>, message: string) => messages.push(message);
    for (const file of ['base/1/16384', 'base/1/16390', 'base/1/16391']) {
      throttle.logError(write, Object.assign(new Error(`could not extend file "${file}"`), { code: '53100' }), 'disk full', 0, { jobId: file });
    }
    throttle.logError(write, new TypeError('a is undefined'), 'unhandled', 1);
    throttle.logError(write, new TypeError('b is undefined'), 'unhandled', 2);
    throttle.logError(write, new TypeError('a is undefined'), 'unhandled', 3);
    throttle.logError(write, Object.assign(new Error('could not extend file "base/1/16384"'), { code: '53100' }), 'disk full', 60_000);
    expect(messages).toEqual(['disk full', 'unhandled', 'unhandled', 'disk full (2 more like it since the last line)']);
  });
});
