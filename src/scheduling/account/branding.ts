import { createHash } from 'node:crypto';
import { LOGO_LIMITS, LOGO_TYPES, readableAccent, sniffLogoType, validateBrandingInput, type Branding, type BrandingInput, type LogoType } from '../../domain/branding.js';
import { ValidationError } from '../../domain/errors.js';
import { findBranding, findLogo, type BrandingChanges, type StoredBranding, type StoredLogo } from '../../db/repositories/account-brandings.js';
import { OutboundError, OutboundResponseTooLargeError, OutboundUrlRefusedError, guardedFetch } from '../../net/outbound-request.js';
import type { DbOrTrx } from '../../db/database.js';
import type { MessageBranding } from '../../mail/message.js';
import type { UseCaseContext } from '../context.js';

/** The branding as pages and e-mails use it: the name to show, the logo's termin URL, and the readable accent. */
export interface BrandingView extends Branding {
  /** Where termin serves the stored logo (`{PUBLIC_URL}/branding/{account}/logo?v={hash}`); null: none. */
  logo: string | null;
  /** The accent colour as shown: the business's, darkened until white text on it keeps 4.5:1. */
  accent: string;
  /** The logo's path on termin's own origin, for pages (their CSP loads images from 'self' only); null: none. */
  logoPath: string | null;
  /** The stylesheet setting the pages' accent (`/branding/{account}/theme.css?v=…`); null: termin's colours. */
  themePath: string | null;
}

/** The served logo's path: versioned by the logo's hash, so caches may keep it for a year. */
export function logoPath(accountUuid: string, hash: string): string {
  return `/branding/${accountUuid}/logo?v=${hash.slice(0, 16)}`;
}

export function toBrandingView(publicUrl: string, accountUuid: string, stored: StoredBranding | null): BrandingView {
  return {
    businessName: stored?.businessName ?? null,
    logoUrl: stored?.logoUrl ?? null,
    accentColor: stored?.accentColor ?? null,
    logo: stored?.logoHash ? `${publicUrl}${logoPath(accountUuid, stored.logoHash)}` : null,
    accent: readableAccent(stored?.accentColor ?? null),
    logoPath: stored?.logoHash ? logoPath(accountUuid, stored.logoHash) : null,
    themePath: stored?.accentColor ? `/branding/${accountUuid}/theme.css?v=${readableAccent(stored.accentColor).slice(1)}` : null,
  };
}

export async function getBranding(ctx: Pick<UseCaseContext, 'db' | 'publicUrl'>, accountUuid: string): Promise<BrandingView> {
  return toBrandingView(ctx.publicUrl, accountUuid, await findBranding(ctx.db, accountUuid));
}

/** The stored logo, for `GET /branding/{account}/logo`; null: none. */
export async function getLogo(ctx: Pick<UseCaseContext, 'db'>, accountUuid: string): Promise<StoredLogo | null> {
  return findLogo(ctx.db, accountUuid);
}

const LOGO_TIMEOUT_MS = 10_000;

/**
 * A branding patch made ready to store: validated, and a new `logoUrl` fetched now (before
 * any transaction: it is a network call) through the outbound guard, bounded to 512 kB, and
 * kept only when its bytes are a PNG, JPEG, WebP or GIF (the server's Content-Type must say
 * an image too). SVG is refused, not sanitised. Every refusal is a 400 at `/branding/logoUrl`.
 */
export async function prepareBrandingChanges(ctx: Pick<UseCaseContext, 'outbound'>, input: BrandingInput): Promise<BrandingChanges> {
  const errors = validateBrandingInput(input, ctx.outbound.allowPrivate);
  if (errors.length > 0) throw new ValidationError(errors);
  const changes: BrandingChanges = {};
  if (input.businessName !== undefined) changes.businessName = input.businessName === null ? null : input.businessName.trim();
  if (input.accentColor !== undefined) changes.accentColor = input.accentColor === null ? null : input.accentColor.toLowerCase();
  if (input.logoUrl === null) changes.logo = null;
  else if (input.logoUrl !== undefined) changes.logo = await fetchLogo(ctx, input.logoUrl);
  return changes;
}

async function fetchLogo(ctx: Pick<UseCaseContext, 'outbound'>, url: string): Promise<NonNullable<BrandingChanges['logo']>> {
  const refuse = (message: string): never => {
    throw new ValidationError([{ path: '/branding/logoUrl', message }]);
  };
  const fetchGuarded = guardedFetch(ctx.outbound.allowPrivate, { resolver: ctx.outbound.resolver, maxResponseBytes: LOGO_LIMITS.maxBytes, timeoutMs: LOGO_TIMEOUT_MS });
  let response: Response;
  try {
    response = await fetchGuarded(url, { headers: { accept: LOGO_TYPES.join(', ') } });
  } catch (error) {
    if (error instanceof OutboundResponseTooLargeError) return refuse(`is larger than ${LOGO_LIMITS.maxBytes / 1024} kB`);
    if (error instanceof OutboundUrlRefusedError) return refuse(`cannot be fetched: ${error.message}`);
    if (error instanceof OutboundError) return refuse(`could not be fetched (${error.code})`);
    throw error;
  }
  if (response.status >= 300 && response.status < 400) return refuse(`answered ${response.status} (a redirect): give the image's own address`);
  if (response.status !== 200) return refuse(`answered ${response.status}, not the image`);
  const declared = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const bytes = Buffer.from(await response.arrayBuffer());
  const sniffed = sniffLogoType(bytes);
  if (declared === 'image/svg+xml' || sniffed === null) return refuse('is not a PNG, JPEG, WebP or GIF image (SVG is not accepted)');
  if (!(LOGO_TYPES as readonly string[]).includes(declared)) return refuse(`is served as ${declared || 'no type'}, not as an image`);
  return { url, type: sniffed as LogoType, bytes, hash: createHash('sha256').update(bytes).digest('hex') };
}

/**
 * What a message queued now carries of the business's look: its name (the account's when it
 * set none), the served logo and the readable accent; undefined when the account set no
 * branding, so its messages keep termin's look.
 */
export async function messageBrandingOf(db: DbOrTrx, publicUrl: string, accountUuid: string, accountName: string): Promise<MessageBranding | undefined> {
  const stored = await findBranding(db, accountUuid);
  if (!stored) return undefined;
  const view = toBrandingView(publicUrl, accountUuid, stored);
  return { name: view.businessName ?? accountName, logo: view.logo, accent: view.accent };
}
