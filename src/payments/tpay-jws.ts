import { X509Certificate } from 'node:crypto';
import { flattenedVerify } from 'jose';
import { GatewayError, NotificationRejectedError } from './gateway.js';
import { isRetryableStatus, VendorCallError, type VendorHttp } from '../net/vendor-http.js';

/** Tpay's root CA, under the same origin as the signing certificates (docs-api.tpay.com/webhooks). */
export const TPAY_JWS_ROOT_PATH = '/x509/tpay-jws-root.pem';

/** Certificates are kept this long (tpay-openapi-php's CacheCertificateProvider keeps them 7200 s). */
const CERTIFICATE_TTL_MS = 2 * 60 * 60 * 1000;
/** Distinct certificate URLs kept at once; x5u is confined to Tpay's origin, so a handful in practice. */
const MAX_CACHED_CERTIFICATES = 16;
/** A PEM certificate is a few kilobytes; anything far larger is not one. */
const MAX_CERTIFICATE_BYTES = 64 * 1024;

/**
 * Checks Tpay's `X-JWS-Signature` the way Tpay's notification docs (docs-api.tpay.com/webhooks,
 * "Security": verification is mandatory, no IP list is published) and tpay-openapi-php's
 * `JWSVerifiedPaymentNotification::checkJwsSignature` do it:
 *
 * - the header is a JWS compact serialisation with a detached payload, `header..signature`;
 * - the protected header's `x5u` must lie under Tpay's own origin (`https://secure.tpay.com`,
 *   or `https://secure.sandbox.tpay.com` for the sandbox; configured as TPAY_JWS_URL);
 * - the certificate at `x5u` must be issued and signed by Tpay's root CA at
 *   `{TPAY_JWS_URL}/x509/tpay-jws-root.pem` and, stricter than the PHP library, which checks
 *   the signature only, be within its validity dates, as the root;
 * - the signature is RS256 over `header.base64url(raw body)`.
 *
 * Certificates are fetched with the gateway timeout, cached per URL (bounded, two hours, as
 * the PHP library does) and forgotten when a signature does not verify, so a rotated
 * certificate is picked up on the gateway's next attempt. A certificate that cannot be
 * fetched (network, 5xx) is a retryable GatewayError: the notification gets 502 and Tpay
 * sends it again; anything forged or malformed is a NotificationRejectedError.
 *
 * `verify(headers['x-jws-signature'], rawBody)` resolves when the body is Tpay's.
 */
export function createTpayJwsVerifier(options: { jwsUrl: string; timeoutMs: number; http: VendorHttp }) {
  const prefix = options.jwsUrl.replace(/\/+$/, '');
  const rootUrl = `${prefix}${TPAY_JWS_ROOT_PATH}`;
  const cache = new Map<string, { certificate: Promise<X509Certificate>; until: number }>();

  function certificateAt(url: string): Promise<X509Certificate> {
    const now = Date.now();
    const cached = cache.get(url);
    if (cached !== undefined && cached.until > now) return cached.certificate;
    cache.delete(url);
    while (cache.size >= MAX_CACHED_CERTIFICATES) cache.delete(cache.keys().next().value as string);
    const certificate = fetchCertificate(options.http, url, options.timeoutMs);
    cache.set(url, { certificate, until: now + CERTIFICATE_TTL_MS });
    // A failed fetch is not remembered: the next notification tries again.
    certificate.catch(() => {
      if (cache.get(url)?.certificate === certificate) cache.delete(url);
    });
    return certificate;
  }

  return {
    async verify(signatureHeader: string | undefined, rawBody: string): Promise<void> {
      if (signatureHeader === undefined || signatureHeader.trim() === '') throw new NotificationRejectedError('tpay notification: X-JWS-Signature missing');
      const parts = signatureHeader.trim().split('.');
      const [protectedHeader, embeddedPayload, signature] = parts;
      if (parts.length !== 3 || !protectedHeader || !signature) throw new NotificationRejectedError('tpay notification: X-JWS-Signature is not a JWS');
      const payload = Buffer.from(rawBody, 'utf8').toString('base64url');
      // Detached (RFC 7515 appendix F) as Tpay sends it; an embedded payload must be this very body.
      if (embeddedPayload !== '' && embeddedPayload !== payload) throw new NotificationRejectedError('tpay notification: the JWS is about another body');
      const x5u = x5uOf(protectedHeader);
      if (x5u === undefined || !isUnder(x5u, prefix)) throw new NotificationRejectedError('tpay notification: the JWS certificate is not under Tpay’s own address');
      // Both settle before anything is thrown, so no fetch outlives this notification's answer.
      const [signing, trusted] = await Promise.allSettled([certificateAt(x5u), certificateAt(rootUrl)]);
      if (signing.status === 'rejected') throw signing.reason;
      if (trusted.status === 'rejected') throw trusted.reason;
      const certificate = signing.value;
      const root = trusted.value;
      if (!isIssuedBy(certificate, root)) {
        cache.delete(x5u);
        cache.delete(rootUrl);
        throw new NotificationRejectedError('tpay notification: the signing certificate is not issued by Tpay’s root CA');
      }
      try {
        await flattenedVerify({ protected: protectedHeader, payload, signature }, certificate.publicKey, { algorithms: ['RS256'] });
      } catch {
        cache.delete(x5u);
        cache.delete(rootUrl);
        throw new NotificationRejectedError('tpay notification: the JWS signature does not verify');
      }
    },
  };
}

function x5uOf(protectedHeader: string): string | undefined {
  try {
    const header: unknown = JSON.parse(Buffer.from(protectedHeader, 'base64url').toString('utf8'));
    const x5u = header !== null && typeof header === 'object' ? (header as Record<string, unknown>).x5u : undefined;
    return typeof x5u === 'string' ? x5u : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `https://secure.tpay.com/x509/notifications-jws.pem` is under `https://secure.tpay.com`;
 * `https://secure.tpay.com.evil.example/…` and `https://secure.tpay.com@evil.example/…` are not
 * (the PHP library's bare prefix test would let the first through).
 */
function isUnder(x5u: string, prefix: string): boolean {
  try {
    const url = new URL(x5u);
    const base = new URL(`${prefix}/`);
    return url.origin === base.origin && url.username === '' && url.password === '' && url.href.startsWith(base.href);
  } catch {
    return false;
  }
}

function isIssuedBy(certificate: X509Certificate, root: X509Certificate): boolean {
  const now = Date.now();
  const current = (cert: X509Certificate) => Date.parse(cert.validFrom) <= now && now <= Date.parse(cert.validTo);
  // The official check (openssl_x509_verify against the root) plus names and dates; nothing is
  // demanded of the root's CA flag, which Tpay's documents do not promise.
  return certificate.checkIssued(root) && certificate.verify(root.publicKey) && current(certificate) && current(root) && certificate.publicKey.asymmetricKeyType === 'rsa';
}

async function fetchCertificate(http: VendorHttp, url: string, timeoutMs: number): Promise<X509Certificate> {
  let pem: string;
  try {
    const answer = await http.call({ method: 'GET', url, headers: { accept: '*/*' }, timeoutMs, maxAnswerBytes: MAX_CERTIFICATE_BYTES });
    // Redirects are refused: the certificate must come from where x5u (under Tpay's origin) says.
    if (answer.status >= 300 && answer.status < 400) throw new GatewayError('tpay x509: the notification certificate could not be fetched', true);
    if (answer.status !== 200) throw refusalOf(answer.status);
    pem = answer.text;
  } catch (error) {
    if (!(error instanceof VendorCallError)) throw error;
    // An error page that is too large or breaks off still says what its status says.
    if (error.status !== undefined && error.status !== 200) throw refusalOf(error.status);
    if (error.kind === 'too-large') throw new NotificationRejectedError('tpay notification: x5u is not a certificate');
    if (error.kind === 'cut-off') throw new GatewayError('tpay x509: the certificate was cut off', true);
    throw new GatewayError('tpay x509: the notification certificate could not be fetched', true);
  }
  try {
    return new X509Certificate(pem);
  } catch {
    throw new NotificationRejectedError('tpay notification: x5u is not a certificate');
  }
}

function refusalOf(status: number): Error {
  if (isRetryableStatus(status)) return new GatewayError(`tpay x509: HTTP ${status}`, true, status);
  return new NotificationRejectedError(`tpay notification: no certificate at x5u (HTTP ${status})`);
}
