import { describe, expect, it } from 'vitest';
import { contrastRatio, DEFAULT_ACCENT, MIN_CONTRAST, SOFT_BACKGROUND, readableAccent, relativeLuminance, sniffLogoType, validateBrandingInput } from './branding.js';

describe('accent colour contrast (WCAG 2)', () => {
  it.each<[string, number]>([
    ['#ffffff', 1],
    ['#000000', 0],
    ['#808080', 0.2158605],
    ['#ff0000', 0.2126],
  ])('relative luminance of %s is %f', (hex, expected) => {
    expect(relativeLuminance(hex)).toBeCloseTo(expected, 5);
  });

  it.each<[string, string, number]>([
    ['#ffffff', '#000000', 21],
    ['#000000', '#ffffff', 21],
    ['#ffffff', '#ffffff', 1],
    ['#ffffff', '#767676', 4.54],
    ['#ffffff', '#777777', 4.48],
  ])('contrast of %s on %s is %f', (a, b, expected) => {
    expect(contrastRatio(a, b)).toBeCloseTo(expected, 2);
  });

  it.each<[string | null, string]>([
    // Already readable with white text: kept as given (lower case).
    ['#1d4ed8', '#1d4ed8'],
    ['#000000', '#000000'],
    ['#6e6e6e', '#6e6e6e'],
    ['#B91C1C', '#b91c1c'],
    // None or not a colour: termin's own.
    [null, DEFAULT_ACCENT],
    ['red', DEFAULT_ACCENT],
  ])('readableAccent(%s) → %s', (given, expected) => {
    expect(readableAccent(given)).toBe(expected);
    expect(contrastRatio(readableAccent(given), '#ffffff')).toBeGreaterThanOrEqual(MIN_CONTRAST);
    expect(contrastRatio(readableAccent(given), SOFT_BACKGROUND)).toBeGreaterThanOrEqual(MIN_CONTRAST);
  });

  // Too light for white text: darkened, the same hue, only as far as needed.
  // #767676 keeps 4.5:1 with white but not as text on the pages' soft grey: darkened a little too.
  it.each(['#767676', '#777777', '#ffcc00', '#ffffff', '#22c55e', '#f472b6', '#38bdf8'])('readableAccent(%s) is darkened until white text keeps 4.5:1', (given) => {
    const worst = (hex: string) => Math.min(contrastRatio(hex, '#ffffff'), contrastRatio(hex, SOFT_BACKGROUND));
    expect(worst(given)).toBeLessThan(MIN_CONTRAST);
    const accent = readableAccent(given);
    expect(worst(accent)).toBeGreaterThanOrEqual(MIN_CONTRAST);
    const rgb = (hex: string) => [1, 3, 5].map((at) => Number.parseInt(hex.slice(at, at + 2), 16));
    const [before, after] = [rgb(given), rgb(accent)];
    // Every channel scaled by the same factor (within rounding): the hue stays.
    const factor = Math.max(...after) / Math.max(...before);
    for (const [index, channel] of before.entries()) expect(Math.abs(after[index]! - channel * factor)).toBeLessThanOrEqual(1.5);
    // And no darker than needed: 2 % lighter would fail again.
    const lighter = `#${before
      .map((channel) =>
        Math.round(channel * Math.min(1, factor + 0.02))
          .toString(16)
          .padStart(2, '0'),
      )
      .join('')}`;
    expect(worst(lighter)).toBeLessThan(MIN_CONTRAST);
  });
});

describe('branding input', () => {
  it.each<[object, boolean, string[]]>([
    [{ businessName: 'Acme', logoUrl: 'https://cdn.acme.test/logo.png', accentColor: '#ff8800' }, false, []],
    [{ logoUrl: null, accentColor: null, businessName: null }, false, []],
    [{ logoUrl: 'http://cdn.acme.test/logo.png' }, false, ['/branding/logoUrl']],
    [{ logoUrl: 'http://127.0.0.1:8080/logo.png' }, true, []],
    [{ logoUrl: 'ftp://cdn.acme.test/logo.png' }, true, ['/branding/logoUrl']],
    [{ logoUrl: 'not a url' }, false, ['/branding/logoUrl']],
    [{ accentColor: '#ff88' }, false, ['/branding/accentColor']],
    [{ accentColor: 'orange' }, false, ['/branding/accentColor']],
    [{ businessName: '   ' }, false, ['/branding/businessName']],
  ])('%j (http allowed: %s) → errors at %j', (input, allowHttp, paths) => {
    expect(validateBrandingInput(input, allowHttp).map((error) => error.path)).toEqual(paths);
  });

  it.each<[string, number[], string | null]>([
    ['png', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0], 'image/png'],
    ['jpeg', [0xff, 0xd8, 0xff, 0xe0], 'image/jpeg'],
    ['gif', [...Buffer.from('GIF89a')], 'image/gif'],
    ['webp', [...Buffer.from('RIFF\u0000\u0000\u0000\u0000WEBPVP8 ')], 'image/webp'],
    ['svg', [...Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')], null],
    ['html', [...Buffer.from('<!doctype html>')], null],
    ['empty', [], null],
  ])('sniffs %s', (_name, bytes, type) => {
    expect(sniffLogoType(Uint8Array.from(bytes))).toBe(type);
  });
});
