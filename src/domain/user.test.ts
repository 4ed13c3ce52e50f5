import { describe, expect, it } from 'vitest';
import { makeUsernameBase, normalizeEmail, pickFreeUsername, slugProblem, usernameProblem } from './user.js';

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

describe('usernameProblem and slugProblem', () => {
  it.each([
    ['anna-nowak', null],
    ['anna-nowak-2', null],
    ['a', null],
    ['Anna', 'must be lower-case'],
    ['anna_nowak', 'must be lower-case'],
    ['-anna', 'must be lower-case'],
    ['anna--nowak', 'must be lower-case'],
    ['anna-', 'must be lower-case'],
    ['żaneta', 'must be lower-case'],
    ['', 'must be 1 to 64'],
    ['a'.repeat(65), 'must be 1 to 64'],
    ['teams', 'is reserved'],
    ['once', 'is reserved'],
  ])('username %j → %s', (username, problem) => {
    const found = usernameProblem(username);
    if (problem === null) expect(found).toBeNull();
    else expect(found).toContain(problem);
  });

  it.each([
    ['intro-call', null],
    ['30-min', null],
    ['a'.repeat(61), 'must be 1 to 60'],
    ['Intro', 'must be lower-case'],
    ['0b3f1c2e-1d2c-4b5a-9e8f-0a1b2c3d4e5f', 'must not look like a uuid'],
  ])('slug %j → %s', (slug, problem) => {
    const found = slugProblem(slug);
    if (problem === null) expect(found).toBeNull();
    else expect(found).toContain(problem);
  });
});
