import { createHmac, timingSafeEqual } from 'node:crypto';
import { allKeys, type SecretKeys } from '../../secrets/secret-box.js';

/**
 * The participant's private manage link, `{PUBLIC_URL}/booking/{token}`: the meeting's uuid
 * and an HMAC-SHA256 of it under a key derived from the service's secret key, 192 bits of
 * it in base64url. Nothing is stored: the link is checked by computing the MAC again, so it
 * cannot be guessed or forged from the uuid (which the host and webhooks see), and it works
 * exactly as long as the meeting has not ended (the use cases check that).
 *
 * Made with the current secret key; links e-mailed under a previous key (TERMIN_SECRET_KEY_PREVIOUS)
 * keep working after a rotation.
 *
 * `createManageToken(keys, '0193b0a4-…')` → `'0193b0a4-….Xk2…'` (uuid, a dot, 32 characters).
 */
export function createManageToken(secretKey: SecretKeys, meetingUuid: string): string {
  return `${meetingUuid}.${macOf(secretKey.current, meetingUuid)}`;
}

/** The meeting uuid a token was made for, or null for anything this service did not issue. */
export function readManageToken(secretKey: SecretKeys, token: string): string | null {
  const match = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.([A-Za-z0-9_-]{32})$/.exec(token);
  if (!match) return null;
  const [, meetingUuid, mac] = match as unknown as [string, string, string];
  const given = Buffer.from(mac);
  return allKeys(secretKey).some((key) => timingSafeEqual(Buffer.from(macOf(key, meetingUuid)), given)) ? meetingUuid : null;
}

export function manageUrl(publicUrl: string, secretKey: SecretKeys, meetingUuid: string): string {
  return `${publicUrl}/booking/${createManageToken(secretKey, meetingUuid)}`;
}

const derivedKeys = new WeakMap<Buffer, Buffer>();

function macOf(secretKey: Buffer, meetingUuid: string): string {
  // A key of its own, so a MAC here can never be mistaken for any other use of the secret key.
  let key = derivedKeys.get(secretKey);
  if (!key) {
    key = createHmac('sha256', secretKey).update('termin manage link v1').digest();
    derivedKeys.set(secretKey, key);
  }
  return createHmac('sha256', key).update(meetingUuid).digest().subarray(0, 24).toString('base64url');
}
