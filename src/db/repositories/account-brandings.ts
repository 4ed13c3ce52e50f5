import type { Branding, LogoType } from '../../domain/branding.js';
import type { DbOrTrx } from '../database.js';

/** The branding as pages and e-mails need it, with the stored logo's version (its hash) instead of its bytes. */
export interface StoredBranding extends Branding {
  logoType: LogoType | null;
  /** SHA-256 hex of the stored logo: the served URL carries it, so a new logo is a new URL. */
  logoHash: string | null;
}

export interface StoredLogo {
  type: LogoType;
  bytes: Buffer;
  hash: string;
}

export async function findBranding(db: DbOrTrx, accountUuid: string): Promise<StoredBranding | null> {
  const row = await db
    .selectFrom('account_brandings')
    .select(['business_name', 'accent_color', 'logo_url', 'logo_type', 'logo_hash'])
    .where('account_id', '=', accountUuid)
    .executeTakeFirst();
  if (!row) return null;
  return {
    businessName: row.business_name,
    accentColor: row.accent_color,
    logoUrl: row.logo_url,
    logoType: row.logo_type as LogoType | null,
    logoHash: row.logo_hash,
  };
}

export async function findLogo(db: DbOrTrx, accountUuid: string): Promise<StoredLogo | null> {
  const row = await db.selectFrom('account_brandings').select(['logo_type', 'logo_base64', 'logo_hash']).where('account_id', '=', accountUuid).executeTakeFirst();
  if (!row || row.logo_type === null || row.logo_base64 === null || row.logo_hash === null) return null;
  return { type: row.logo_type as LogoType, bytes: Buffer.from(row.logo_base64, 'base64'), hash: row.logo_hash };
}

/** What a branding patch changes: a field left undefined keeps its stored value; `logo: null` removes the logo. */
export interface BrandingChanges {
  businessName?: string | null;
  accentColor?: string | null;
  logo?: { url: string; type: LogoType; bytes: Buffer; hash: string } | null;
}

export async function writeBranding(db: DbOrTrx, accountUuid: string, changes: BrandingChanges, now: number): Promise<void> {
  const values = {
    ...(changes.businessName !== undefined && { business_name: changes.businessName }),
    ...(changes.accentColor !== undefined && { accent_color: changes.accentColor }),
    ...(changes.logo !== undefined &&
      (changes.logo === null
        ? { logo_url: null, logo_type: null, logo_base64: null, logo_hash: null }
        : { logo_url: changes.logo.url, logo_type: changes.logo.type, logo_base64: changes.logo.bytes.toString('base64'), logo_hash: changes.logo.hash })),
    updated_at: now,
  };
  const existing = await db.selectFrom('account_brandings').select('account_id').where('account_id', '=', accountUuid).executeTakeFirst();
  if (existing) await db.updateTable('account_brandings').set(values).where('account_id', '=', accountUuid).execute();
  else
    await db
      .insertInto('account_brandings')
      .values({ account_id: accountUuid, ...values })
      .execute();
}
