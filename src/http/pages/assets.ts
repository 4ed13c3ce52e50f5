import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The pages' static files live in `assets/` at the project root, as plain files in the
 * repository. This module sits at src/http/pages/ under `tsx` and at dist/http/pages/ after
 * `npm run build`; both are three levels below the root, so one relative path finds them.
 */
export const ASSETS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../assets');

export interface Asset {
  /** `booking.3f2a9c1d07.js`: the content's hash is in the name, so it may be cached for a year. */
  hashedName: string;
  url: string;
  body: Buffer;
  contentType: string;
  etag: string;
}

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

export interface AssetCatalog {
  /** By source name (`booking.js`). */
  byName: ReadonlyMap<string, Asset>;
  /** By hashed name (`booking.3f2a9c1d07.js`), as the URL gives it. */
  byHashedName: ReadonlyMap<string, Asset>;
  url(name: string): string;
}

/**
 * Reads every asset once at start-up and names each after its content, so a deploy that
 * changes a file changes its URL and no browser keeps a stale copy.
 */
export function loadAssets(dir: string = ASSETS_DIR): AssetCatalog {
  const byName = new Map<string, Asset>();
  const byHashedName = new Map<string, Asset>();
  for (const file of fs.readdirSync(dir)) {
    const ext = path.extname(file);
    const contentType = CONTENT_TYPES[ext];
    if (!contentType) continue;
    const body = fs.readFileSync(path.join(dir, file));
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 10);
    const hashedName = `${path.basename(file, ext)}.${hash}${ext}`;
    const asset: Asset = { hashedName, url: `/assets/${hashedName}`, body, contentType, etag: `"${hash}"` };
    byName.set(file, asset);
    byHashedName.set(hashedName, asset);
  }
  return {
    byName,
    byHashedName,
    url(name) {
      const asset = byName.get(name);
      if (!asset) throw new Error(`asset ${name} is missing from ${dir}`);
      return asset.url;
    },
  };
}

/**
 * An asset with `marker` in its text replaced (once), named and tagged after the new content:
 * embed.js gets the catalogue's words this way, as a script of its own on other sites.
 */
export function fillAsset(asset: Asset, marker: string, replacement: string): Asset {
  const text = asset.body.toString('utf8');
  if (!text.includes(marker)) throw new Error(`asset ${asset.hashedName} lacks ${marker}`);
  const body = Buffer.from(
    text.replace(marker, () => replacement),
    'utf8',
  );
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 10);
  const hashedName = asset.hashedName.replace(/\.[0-9a-f]{10}\./, `.${hash}.`);
  return { hashedName, url: `/assets/${hashedName}`, body, contentType: asset.contentType, etag: `"${hash}"` };
}
