import type { FieldError } from './errors.js';

/**
 * The business's own look (`PATCH /account` `branding`): its name, its logo (fetched once,
 * stored and served by termin) and an accent colour that pages and e-mails put white text
 * on. Pure: the fetching is the use case's (src/scheduling/account/branding.ts).
 */
export interface Branding {
  /** Shown instead of the account's name on the participant's pages and in e-mails; null: the account's name. */
  businessName: string | null;
  /** The address the logo was fetched from (as given); null: no logo. */
  logoUrl: string | null;
  /** As given ("#rrggbb", lower case); null: termin's own colour. */
  accentColor: string | null;
}

export const NO_BRANDING: Branding = Object.freeze({ businessName: null, logoUrl: null, accentColor: null });

/** termin's own accent (the pages' and e-mails' link blue), used when the business has none. */
export const DEFAULT_ACCENT = '#1d4ed8';

/** The text put on the accent colour (buttons, the header band). */
export const ACCENT_TEXT = '#ffffff';

/**
 * The pages' soft grey (booking.css `--soft`: the chosen time's row) on which the accent is
 * link text: the accent must read on it too, and it is a little darker than white.
 */
export const SOFT_BACKGROUND = '#f3f5f8';

/** WCAG 2 AA for normal text. */
export const MIN_CONTRAST = 4.5;

export const LOGO_LIMITS = { maxBytes: 512 * 1024 } as const;

/**
 * The raster types a logo may have. SVG is refused, not sanitised: it is a document that may
 * carry scripts and remote references, and many mail programs do not show it anyway.
 */
export const LOGO_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const;
export type LogoType = (typeof LOGO_TYPES)[number];

const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;

export function isHexColor(value: string): boolean {
  return HEX_COLOR.test(value);
}

function channels(hex: string): [number, number, number] {
  return [1, 3, 5].map((at) => Number.parseInt(hex.slice(at, at + 2), 16)) as [number, number, number];
}

function toHex(rgb: readonly number[]): string {
  return `#${rgb.map((channel) => Math.round(channel).toString(16).padStart(2, '0')).join('')}`;
}

/** WCAG 2 relative luminance of "#rrggbb": 0 for black, 1 for white. */
export function relativeLuminance(hex: string): number {
  const [r, g, b] = channels(hex).map((channel) => {
    const c = channel / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2 contrast ratio of two colours, 1..21: `contrastRatio('#ffffff', '#000000')` → 21. */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/**
 * The accent colour as termin uses it: the business's colour when white text on it keeps
 * 4.5:1 (and it keeps 4.5:1 as link text on the pages' soft grey), else the same hue
 * darkened (every channel scaled down in steps of 1 %) until it does.
 * `readableAccent('#1d4ed8')` → '#1d4ed8'; `readableAccent('#ffcc00')` → a dark amber.
 * Black always passes, so the loop ends.
 */
export function readableAccent(hex: string | null, against: readonly string[] = [ACCENT_TEXT, SOFT_BACKGROUND]): string {
  if (hex === null || !isHexColor(hex)) return DEFAULT_ACCENT;
  const base = channels(hex.toLowerCase());
  for (let percent = 100; percent >= 0; percent -= 1) {
    const candidate = toHex(base.map((channel) => (channel * percent) / 100));
    if (against.every((other) => contrastRatio(candidate, other) >= MIN_CONTRAST)) return candidate;
  }
  return '#000000';
}

/**
 * The accent's pale tint for light backgrounds (a day to pick, a highlight) on which the
 * accent itself is the text: at most 12 % of it on white, less while the accent on it would
 * fall under 4.5:1 (white, the least tint, always passes: the accent is readable on white).
 */
export function accentTint(hex: string): string {
  for (let percent = 12; percent > 0; percent -= 1) {
    const tint = toHex(channels(hex).map((channel) => 255 - ((255 - channel) * percent) / 100));
    if (contrastRatio(hex, tint) >= MIN_CONTRAST) return tint;
  }
  return '#ffffff';
}

/** The pages' stylesheet of an account's accent: booking.css reads these variables. */
export function themeStylesheet(accent: string): string {
  return `:root { --accent: ${accent}; --accent-ink: ${ACCENT_TEXT}; --accent-soft: ${accentTint(accent)}; }\n`;
}

/** What `PATCH /account`'s `branding` may say, before the logo is fetched. */
export interface BrandingInput {
  businessName?: string | null | undefined;
  logoUrl?: string | null | undefined;
  accentColor?: string | null | undefined;
}

/**
 * The rules of a branding patch the JSON schema does not state: `logoUrl` https (http only
 * where the operator allows private URLs, i.e. development and tests), a colour "#rrggbb".
 */
export function validateBrandingInput(input: BrandingInput, allowHttp: boolean): FieldError[] {
  const errors: FieldError[] = [];
  if (typeof input.businessName === 'string' && input.businessName.trim() === '') errors.push({ path: '/branding/businessName', message: 'must not be blank (null removes it)' });
  if (typeof input.accentColor === 'string' && !isHexColor(input.accentColor)) errors.push({ path: '/branding/accentColor', message: 'must be a colour "#rrggbb"' });
  if (typeof input.logoUrl === 'string') {
    let url: URL | null = null;
    try {
      url = new URL(input.logoUrl);
    } catch {
      errors.push({ path: '/branding/logoUrl', message: 'must be an absolute https URL' });
    }
    if (url && url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:')) errors.push({ path: '/branding/logoUrl', message: 'must be an https URL' });
  }
  return errors;
}

/**
 * A fetched logo's type from its bytes (the magic numbers), never from what the server
 * claims alone: a server saying image/png for an HTML page or an SVG is refused.
 */
export function sniffLogoType(bytes: Uint8Array): LogoType | null {
  const starts = (...signature: number[]) => signature.every((byte, index) => bytes[index] === byte);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (starts(0x47, 0x49, 0x46, 0x38)) return 'image/gif';
  if (starts(0x52, 0x49, 0x46, 0x46) && bytes[8] === 0x57 && bytes[9] === 0x45 && bytes[10] === 0x42 && bytes[11] === 0x50) return 'image/webp';
  return null;
}

/**
 * The accent as link text on a dark background (e-mails in dark mode): mixed toward white
 * until it keeps 4.5:1 against `background`. `accentOnDark('#1d4ed8', '#1c1f26')` → a light blue.
 */
export function accentOnDark(hex: string, background: string): string {
  const base = channels(hex);
  for (let share = 0; share <= 100; share += 2) {
    const candidate = toHex(base.map((channel) => channel + ((255 - channel) * share) / 100));
    if (contrastRatio(candidate, background) >= MIN_CONTRAST) return candidate;
  }
  return '#ffffff';
}
