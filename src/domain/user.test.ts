import { describe, expect, it } from 'vitest';
import { makeUsernameBase, normalizeEmail, pickFreeUsername } from './user.js';

describe('makeUsernameBase', () => {
  it.each([
    ['Anna', 'Nowak', 'anna-nowak'],
    ['Łukasz', 'Żółć', 'lukasz-zolc'],
    ['Zoë', 'Ærøskøbing', 'zoe-aeroskobing'],
    ['Jürgen', 'Straße', 'jurgen-strasse'],
    ['François', 'Dupont-Lefèvre', 'francois-dupont-lefevre'],
    ['Ðorđe', 'Đoković', 'dorde-dokovic'],
    ['  Mary  Ann ', "O'Brien", 'mary-ann-o-brien'],
    ['Ægir', 'Þórsson', 'aegir-thorsson'],
    ['李', '小龍', 'user'],
    ['Agent', '007', 'agent-007'],
  ])('%s %s → %s', (first, last, expected) => {
    expect(makeUsernameBase(first, last)).toBe(expected);
  });

  it('keeps usernames to a sane length without a trailing hyphen', () => {
    const base = makeUsernameBase('A'.repeat(59), 'Bcd');
    expect(base.length).toBeLessThanOrEqual(60);
    expect(base.endsWith('-')).toBe(false);
  });
});

describe('pickFreeUsername', () => {
  it.each([
    [[], 'anna-nowak'],
    [['anna-nowak'], 'anna-nowak-2'],
    [['anna-nowak', 'anna-nowak-2', 'anna-nowak-3'], 'anna-nowak-4'],
    [['anna-nowak', 'anna-nowak-3'], 'anna-nowak-2'],
    [['anna-nowak-2'], 'anna-nowak'],
  ])('taken %j → %s', (taken, expected) => {
    expect(pickFreeUsername('anna-nowak', taken)).toBe(expected);
  });
});

describe('normalizeEmail', () => {
  it('trims and lower-cases so one person is one user per account', () => {
    expect(normalizeEmail('  Anna.Nowak@Example.COM ')).toBe('anna.nowak@example.com');
  });
});
