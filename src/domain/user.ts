export interface User {
  uuid: string;
  accountUuid: string;
  firstName: string;
  lastName: string;
  email: string;
  username: string;
  timezone: string;
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
