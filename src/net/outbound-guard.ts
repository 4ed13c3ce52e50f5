import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * The SSRF guard for every URL termin calls on someone else's behalf (webhook receivers,
 * CalDAV servers, ICS feeds). A URL is checked twice: when it is registered (so the
 * integrator gets a 400 at once) and again at connect time through `createGuardedLookup`,
 * because the name may resolve elsewhere by then (DNS rebinding).
 *
 * Nothing here knows HTTP statuses: the caller maps `OutboundUrlRefusedError` to a
 * validation problem at registration and to a failed attempt at delivery.
 */

/** Base of the outbound errors, each with a stable `code` callers can switch on. */
export class OutboundError extends Error {
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

export type RefusalReason = 'invalid-url' | 'scheme' | 'credentials' | 'forbidden-address' | 'unresolvable';

/**
 * The URL may not be called. The message names the host and the reason, never the path
 * or query, which may carry the receiver's own token.
 */
export class OutboundUrlRefusedError extends OutboundError {
  constructor(
    readonly reason: RefusalReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('ERR_OUTBOUND_URL_REFUSED', message, options);
  }
}

export interface GuardOptions {
  /** The operator's `ALLOW_PRIVATE_URLS`: skips the address check, never the URL shape check. */
  allowPrivate: boolean;
  /**
   * Resolves a host name to every address it has. Defaults to the system resolver
   * (`dns.lookup`, as `http.request` itself uses); tests inject one to play DNS rebinding.
   */
  resolver?: HostResolver | undefined;
}

export type HostResolver = (hostname: string) => Promise<LookupAddress[]>;

// Everything that is not ordinary global unicast: RFC 6890 and the IANA special-purpose
// registries. Documentation and benchmarking ranges are here too: nothing legitimate
// listens there, so a URL pointing at them is a mistake or a probe.
const FORBIDDEN_V4: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], // "this network"; 0.0.0.0 itself reaches the local host on Linux
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, including the cloud metadata service 169.254.169.254
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated)
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, including the broadcast address 255.255.255.255
];

// Checked only for addresses inside 2000::/3 (global unicast); everything outside it is
// refused outright, except the forms that embed an IPv4 address, which are judged by it.
const FORBIDDEN_V6_IN_GLOBAL: ReadonlyArray<readonly [string, number]> = [
  ['2001::', 23], // IETF protocol assignments, including Teredo 2001::/32 (tunnels to any IPv4)
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation (RFC 9637)
];

const forbiddenV4 = new BlockList();
for (const [prefix, bits] of FORBIDDEN_V4) forbiddenV4.addSubnet(prefix, bits, 'ipv4');
const forbiddenV6InGlobal = new BlockList();
for (const [prefix, bits] of FORBIDDEN_V6_IN_GLOBAL) forbiddenV6InGlobal.addSubnet(prefix, bits, 'ipv6');

/**
 * Whether an outbound connection to `ip` must be refused. Anything that is not a valid
 * IP address is refused too, so a caller can never skip the check by accident.
 *
 * @example
 * isForbiddenAddress('169.254.169.254') // true: link-local, the metadata service
 * isForbiddenAddress('::ffff:7f00:1')   // true: IPv4-mapped 127.0.0.1
 * isForbiddenAddress('64:ff9b::a00:1')  // true: NAT64 of 10.0.0.1
 * isForbiddenAddress('93.184.216.34')   // false
 */
export function isForbiddenAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 4) return forbiddenV4.check(ip, 'ipv4');
  if (family !== 6) return true;
  const address = stripZone(ip);
  const bytes = parseIPv6(address);
  if (bytes === null) return true;
  const embedded = embeddedIPv4(bytes);
  if (embedded !== undefined) return embedded === null || forbiddenV4.check(embedded, 'ipv4');
  // Global unicast is 2000::/3; the rest (ULA fc00::/7, link-local fe80::/10, site-local
  // fec0::/10, multicast ff00::/8, discard 100::/64, SRv6 5f00::/16, unassigned) is refused.
  if ((bytes[0]! & 0xe0) !== 0x20) return true;
  return forbiddenV6InGlobal.check(address, 'ipv6');
}

/**
 * The IPv4 address an IPv6 one stands for, when it is one of the forms that reach an IPv4
 * host: `undefined` when it embeds none, `null` when it is in the IPv4-compatible range
 * `::/96` (deprecated, never routed; it also holds `::` and `::1`), which is refused whole.
 */
function embeddedIPv4(b: Uint8Array): string | null | undefined {
  const zeros = (from: number, to: number) => b.subarray(from, to).every((x) => x === 0);
  const v4 = (at: number) => `${b[at]}.${b[at + 1]}.${b[at + 2]}.${b[at + 3]}`;
  // ::ffff:a.b.c.d, IPv4-mapped: the socket layer connects to a.b.c.d itself.
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return v4(12);
  // ::ffff:0:a.b.c.d, IPv4-translated (SIIT).
  if (zeros(0, 8) && b[8] === 0xff && b[9] === 0xff && zeros(10, 12)) return v4(12);
  if (zeros(0, 12)) return null;
  // 64:ff9b::a.b.c.d, the well-known NAT64 prefix: a NAT64 gateway relays to a.b.c.d.
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12)) return v4(12);
  // 64:ff9b:1::/48, local-use NAT64 (RFC 8215): the mapping is the operator's own, so refuse.
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && b[4] === 0x00 && b[5] === 0x01) return null;
  // 2002:aabb:ccdd::/48, 6to4: a relay forwards to aa.bb.cc.dd.
  if (b[0] === 0x20 && b[1] === 0x02) return v4(2);
  return undefined;
}

function stripZone(ip: string): string {
  const percent = ip.indexOf('%');
  return percent === -1 ? ip : ip.slice(0, percent);
}

/** Sixteen bytes of a textual IPv6 address (RFC 4291 § 2.2 forms), or null. */
function parseIPv6(text: string): Uint8Array | null {
  let source = text;
  const extra: number[] = [];
  // A trailing dotted quad (::ffff:127.0.0.1, 64:ff9b::10.0.0.1) stands for the last two groups.
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    if (isIP(tail) !== 4) return null;
    const [a, b, c, d] = tail.split('.').map(Number) as [number, number, number, number];
    extra.push((a << 8) | b, (c << 8) | d);
    source = text.slice(0, lastColon + 1);
    if (!source.endsWith('::')) source = source.slice(0, -1);
  }
  let groups: string[];
  const wanted = 8 - extra.length;
  const double = source.indexOf('::');
  if (double !== -1) {
    if (source.indexOf('::', double + 1) !== -1) return null;
    const head = source.slice(0, double) === '' ? [] : source.slice(0, double).split(':');
    const rest = source.slice(double + 2) === '' ? [] : source.slice(double + 2).split(':');
    const missing = wanted - head.length - rest.length;
    if (missing < 1) return null;
    groups = [...head, ...Array<string>(missing).fill('0'), ...rest];
  } else {
    groups = source === '' ? [] : source.split(':');
    if (groups.length !== wanted) return null;
  }
  const words: number[] = [];
  for (const group of groups) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return null;
    words.push(Number.parseInt(group, 16));
  }
  words.push(...extra);
  if (words.length !== 8) return null;
  const bytes = new Uint8Array(16);
  words.forEach((word, i) => {
    bytes[2 * i] = word >> 8;
    bytes[2 * i + 1] = word & 0xff;
  });
  return bytes;
}

/**
 * The URL's shape: http or https, no user name or password (a credential in a URL leaks
 * into every log line that prints it), and a host. Synchronous, no DNS.
 */
export function checkUrlShape(url: string | URL): URL {
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : new URL(url.href);
  } catch (error) {
    throw new OutboundUrlRefusedError('invalid-url', 'The URL is not a valid absolute URL.', { cause: error });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new OutboundUrlRefusedError('scheme', `Only http and https URLs are allowed, not ${parsed.protocol.slice(0, -1)}.`);
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new OutboundUrlRefusedError('credentials', 'The URL must not contain a user name or password.');
  }
  if (parsed.hostname === '') throw new OutboundUrlRefusedError('invalid-url', 'The URL has no host.');
  return parsed;
}

/** The host of a parsed URL as an address when it is an IP literal (brackets removed). */
export function ipLiteralOf(url: URL): string | null {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return isIP(host) === 0 ? null : host;
}

function refusedAddress(host: string, address: string): OutboundUrlRefusedError {
  const shown = host === address ? address : `${host} (${address})`;
  return new OutboundUrlRefusedError('forbidden-address', `${shown} is a loopback, private, link-local or otherwise reserved address; outbound requests there are not allowed.`);
}

/** Throws when any of `addresses` is forbidden (one bad record is enough to refuse). */
export function assertAddressesAllowed(host: string, addresses: readonly string[]): void {
  for (const address of addresses) {
    if (isForbiddenAddress(address)) throw refusedAddress(host, address);
  }
}

const systemResolver: HostResolver = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)));
  });

/**
 * Checks a URL before it is stored: its shape, then every A and AAAA record of its host.
 * Resolves to the parsed URL.
 *
 * @example
 * await assertAllowedUrl('https://hooks.example.com/termin', { allowPrivate: false }) // URL
 * await assertAllowedUrl('http://169.254.169.254/latest/meta-data', { allowPrivate: false })
 * // throws OutboundUrlRefusedError (reason 'forbidden-address')
 */
export async function assertAllowedUrl(url: string | URL, options: GuardOptions): Promise<URL> {
  const parsed = checkUrlShape(url);
  if (options.allowPrivate) return parsed;
  const literal = ipLiteralOf(parsed);
  if (literal !== null) {
    assertAddressesAllowed(literal, [literal]);
    return parsed;
  }
  let addresses: LookupAddress[];
  try {
    addresses = await (options.resolver ?? systemResolver)(parsed.hostname);
  } catch (error) {
    throw new OutboundUrlRefusedError('unresolvable', `The host ${parsed.hostname} could not be resolved.`, { cause: error });
  }
  if (addresses.length === 0) {
    throw new OutboundUrlRefusedError('unresolvable', `The host ${parsed.hostname} has no addresses.`);
  }
  assertAddressesAllowed(
    parsed.hostname,
    addresses.map((a) => a.address),
  );
  return parsed;
}

/**
 * A `lookup` for `http.request`/`net.connect` that resolves every address of the host and
 * refuses the connection when any is forbidden, so the check happens at connect time on the
 * very addresses the socket will use. Node skips `lookup` for IP-literal hosts: callers
 * check those themselves (`sendOutbound` does).
 */
export function createGuardedLookup(options: GuardOptions): LookupFunction {
  const resolver = options.resolver ?? systemResolver;
  return (hostname, lookupOptions, callback) => {
    const family = lookupOptions.family === 'IPv4' ? 4 : lookupOptions.family === 'IPv6' ? 6 : (lookupOptions.family ?? 0);
    resolver(hostname).then(
      (all) => {
        if (!options.allowPrivate) {
          try {
            // Every record, not only the family asked for: the same rule as at registration.
            assertAddressesAllowed(
              hostname,
              all.map((a) => a.address),
            );
          } catch (error) {
            callback(error as NodeJS.ErrnoException, '', 0);
            return;
          }
        }
        const addresses = family === 0 ? all : all.filter((a) => a.family === family);
        if (addresses.length === 0) {
          callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname }), '', 0);
          return;
        }
        if (lookupOptions.all) {
          callback(null, addresses);
        } else {
          const first = addresses[0]!;
          callback(null, first.address, first.family);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}
