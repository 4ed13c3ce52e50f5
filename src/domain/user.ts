import type { Lang } from './lang.js';
export interface User {
  uuid: string;
  accountUuid: string;
  firstName: string;
  lastName: string;
  email: string;
  username: string;
  timezone: string;
  /** The member's language for the e-mails termin sends them; null: not chosen (they read English). */
  language: Lang | null;
  createdAt: number;
  deactivatedAt: number | null;
}

/** A user as a member of one team: the team decides `admin`. */
export interface Member extends User {
  admin: boolean;
}

/** Case-insensitive identity of an e-mail within an account: `' Anna@Example.COM '` → `'anna@example.com'`. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

// Letters that Unicode does not decompose into a base letter plus a mark.
const SPECIAL_FOLDS: Record<string, string> = {
  ł: 'l',
  đ: 'd',
  ð: 'd',
  ø: 'o',
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  þ: 'th',
  ı: 'i',
  ħ: 'h',
  ŀ: 'l',
  ŧ: 't',
};

const MAX_USERNAME_BASE = 60;

/**
 * The username base made from a person's names: lower-case ASCII, diacritics folded,
 * words joined by hyphens. `('Łukasz', 'Żółć')` → `'lukasz-zolc'`; names with no Latin
 * letters at all give `'user'`.
 */
export function makeUsernameBase(firstName: string, lastName: string): string {
  const folded = `${firstName} ${lastName}`
    .toLowerCase()
    .replace(/[łđðøßæœþıħŀŧ]/g, (char) => SPECIAL_FOLDS[char] ?? char)
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '');
  const slug = folded
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_USERNAME_BASE)
    .replace(/-+$/g, '');
  return slug === '' ? 'user' : slug;
}

/**
 * The first free username for a base, given the usernames already taken that start with it:
 * `('anna-nowak', ['anna-nowak', 'anna-nowak-2'])` → `'anna-nowak-3'`.
 */
export function pickFreeUsername(base: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  if (!used.has(base)) return base;
  for (let n = 2; ; n += 1) {
    const candidate = `${base}-${n}`;
    if (!used.has(candidate)) return candidate;
  }
}

/** Lower-case letters and digits in hyphen-joined words, as generated usernames are made. */
const NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const MAX_USERNAME_LENGTH = 64;
/** Words the booking links use after `/book/` themselves: a host named so would never get their page. */
const RESERVED_USERNAMES = new Set(['teams', 'once']);

/**
 * Why a chosen username cannot be one, or null when it can: the rules generated usernames
 * already keep (lower-case ASCII letters, digits, single inner hyphens), at most 64
 * characters, and none of the words the booking links reserve.
 * `usernameProblem('Anna_Nowak')` → `'must be lower-case letters, digits and single hyphens…'`.
 */
export function usernameProblem(username: string): string | null {
  if (username.length === 0 || username.length > MAX_USERNAME_LENGTH) return `must be 1 to ${MAX_USERNAME_LENGTH} characters`;
  if (!NAME_PATTERN.test(username)) return 'must be lower-case letters, digits and single hyphens, starting and ending with a letter or digit';
  if (RESERVED_USERNAMES.has(username)) return 'is reserved for termin’s own links';
  return null;
}

export const MAX_SLUG_LENGTH = 60;
const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Why a topic's chosen slug cannot be one, or null when it can: the username rules, at most
 * 60 characters, and not shaped like a uuid (the link's last part is read as a topic's uuid
 * first). `slugProblem('intro-call')` → `null`.
 */
export function slugProblem(slug: string): string | null {
  if (slug.length === 0 || slug.length > MAX_SLUG_LENGTH) return `must be 1 to ${MAX_SLUG_LENGTH} characters`;
  if (!NAME_PATTERN.test(slug)) return 'must be lower-case letters, digits and single hyphens, starting and ending with a letter or digit';
  if (UUID_PATTERN.test(slug)) return 'must not look like a uuid';
  return null;
}

/** How long a given-up username still points at its user, and nobody else may take it: a year, the life of links printed on cards and in signatures. */
export const PREVIOUS_USERNAME_HOLD_MS = 365 * 24 * 3600 * 1000;
