import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { assertAllowedUrl, createGuardedLookup, isForbiddenAddress, OutboundUrlRefusedError } from './outbound-guard.js';

// Table rows only: nothing in this file opens a connection.
const FORBIDDEN: ReadonlyArray<readonly [string, string]> = [
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback, end of 127/8'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', '"this network" 0/8'],
  ['10.0.0.1', 'private 10/8'],
  ['172.16.0.1', 'private 172.16/12, start'],
  ['172.31.255.255', 'private 172.16/12, end'],
  ['192.168.1.1', 'private 192.168/16'],
  ['169.254.169.254', 'link-local: cloud metadata'],
  ['169.254.0.1', 'link-local'],
  ['100.64.0.1', 'CGNAT 100.64/10, start'],
  ['100.127.255.255', 'CGNAT 100.64/10, end'],
  ['192.0.0.8', 'IETF protocol assignments'],
  ['192.0.2.10', 'TEST-NET-1'],
  ['198.18.0.1', 'benchmarking'],
  ['198.51.100.7', 'TEST-NET-2'],
  ['203.0.113.9', 'TEST-NET-3'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast (SSDP)'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'broadcast'],
  ['::1', 'IPv6 loopback'],
  ['::', 'IPv6 unspecified'],
  ['0:0:0:0:0:0:0:1', 'IPv6 loopback, uncompressed'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback, dotted'],
  ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
  ['::FFFF:7F00:0001', 'IPv4-mapped loopback, upper case'],
  ['::ffff:169.254.169.254', 'IPv4-mapped metadata'],
  ['::ffff:a00:1', 'IPv4-mapped 10.0.0.1'],
  ['::127.0.0.1', 'IPv4-compatible loopback'],
  ['::7f00:1', 'IPv4-compatible loopback, hex'],
  ['::5db8:d822', 'IPv4-compatible (deprecated) even of a public address'],
  ['::ffff:0:127.0.0.1', 'IPv4-translated loopback'],
  ['64:ff9b::127.0.0.1', 'NAT64 of loopback'],
  ['64:ff9b::a9fe:a9fe', 'NAT64 of the metadata address'],
  ['64:ff9b:1::5db8:d822', 'local-use NAT64 prefix'],
  ['2002:7f00:1::1', '6to4 of loopback'],
  ['2002:a00:1::', '6to4 of 10.0.0.1'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
  ['2001:db8::1', 'IPv6 documentation'],
  ['3fff::1', 'IPv6 documentation (RFC 9637)'],
  ['fc00::1', 'unique local fc00::/7'],
  ['fd12:3456:789a::1', 'unique local fd00::/8'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local with a zone'],
  ['febf::1', 'link-local, end of fe80::/10'],
  ['fec0::1', 'site-local (deprecated)'],
  ['ff02::1', 'multicast'],
  ['100::1', 'discard-only'],
  ['fd00:ec2::254', 'AWS metadata over IPv6 (unique local)'],
  ['localhost', 'not an address: refused rather than guessed'],
  ['127.1', 'shorthand IPv4 is not an address'],
  ['', 'empty'],
];

const ALLOWED: ReadonlyArray<readonly [string, string]> = [
  ['93.184.216.34', 'public IPv4'],
  ['8.8.8.8', 'public IPv4'],
  ['1.1.1.1', 'public IPv4'],
  ['172.15.255.255', 'just below 172.16/12'],
  ['172.32.0.1', 'just above 172.16/12'],
  ['100.63.255.255', 'just below CGNAT'],
  ['100.128.0.1', 'just above CGNAT'],
  ['169.253.255.255', 'just below link-local'],
  ['223.255.255.255', 'just below multicast'],
  ['2606:4700::1', 'public IPv6'],
  ['2a00:1450:4001:80b::200e', 'public IPv6'],
  ['::ffff:93.184.216.34', 'IPv4-mapped public address'],
  ['64:ff9b::5db8:d822', 'NAT64 of a public address'],
  ['2002:5db8:d822::1', '6to4 of a public address'],
  ['2001:200::1', 'just above 2001::/23'],
];

describe('isForbiddenAddress', () => {
  it.each(FORBIDDEN)('refuses %s (%s)', (ip) => {
    expect(isForbiddenAddress(ip)).toBe(true);
  });
  it.each(ALLOWED)('allows %s (%s)', (ip) => {
    expect(isForbiddenAddress(ip)).toBe(false);
  });
});

function fixedResolver(...addresses: string[]) {
  return async (): Promise<LookupAddress[]> => addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
}

async function refusal(promise: Promise<unknown>): Promise<OutboundUrlRefusedError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OutboundUrlRefusedError);
  return error as OutboundUrlRefusedError;
}

describe('assertAllowedUrl', () => {
  it.each([
    ['ftp://example.com/', 'scheme'],
    ['file:///etc/passwd', 'scheme'],
    ['gopher://example.com/', 'scheme'],
    ['https://user:pass@example.com/', 'credentials'],
    ['https://token@example.com/', 'credentials'],
    ['not a url', 'invalid-url'],
    ['http://127.0.0.1:8080/', 'forbidden-address'],
    ['http://2130706433/', 'forbidden-address'], // 127.0.0.1 as a number, normalised by URL
    ['http://0x7f.1/', 'forbidden-address'],
    ['http://[::1]/', 'forbidden-address'],
    ['http://[::ffff:127.0.0.1]/', 'forbidden-address'],
    ['http://169.254.169.254/latest/meta-data/', 'forbidden-address'],
    ['http://10.0.0.1/', 'forbidden-address'],
    ['http://localhost/', 'forbidden-address'],
  ] as const)('refuses %s (%s)', async (url, reason) => {
    const error = await refusal(assertAllowedUrl(url, { allowPrivate: false }));
    expect(error.reason).toBe(reason);
  });

  it('does not echo the path or query, which may carry the receiver token', async () => {
    const error = await refusal(assertAllowedUrl('http://10.0.0.1/hooks?token=s3cret', { allowPrivate: false }));
    expect(error.message).toContain('10.0.0.1');
    expect(error.message).not.toContain('s3cret');
  });

  it('refuses a name when any one of its records is forbidden', async () => {
    const resolver = fixedResolver('93.184.216.34', '10.0.0.5');
    const error = await refusal(assertAllowedUrl('https://hooks.example.test/', { allowPrivate: false, resolver }));
    expect(error.message).toContain('hooks.example.test (10.0.0.5)');
  });

  it('refuses a name that does not resolve', async () => {
    const resolver = async (): Promise<LookupAddress[]> => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    const error = await refusal(assertAllowedUrl('https://nowhere.example.test/', { allowPrivate: false, resolver }));
    expect(error.reason).toBe('unresolvable');
  });

  it('accepts a name whose every record is public, and public literals', async () => {
    const resolver = fixedResolver('93.184.216.34', '2606:4700::1');
    const url = await assertAllowedUrl('https://hooks.example.test/t?x=1', { allowPrivate: false, resolver });
    expect(url.href).toBe('https://hooks.example.test/t?x=1');
    await expect(assertAllowedUrl('https://93.184.216.34/', { allowPrivate: false })).resolves.toBeInstanceOf(URL);
  });

  it('with allowPrivate, allows private addresses but still checks the shape', async () => {
    await expect(assertAllowedUrl('http://127.0.0.1:3000/', { allowPrivate: true })).resolves.toBeInstanceOf(URL);
    expect((await refusal(assertAllowedUrl('ftp://127.0.0.1/', { allowPrivate: true }))).reason).toBe('scheme');
  });
});

describe('createGuardedLookup', () => {
  function lookupOnce(lookup: ReturnType<typeof createGuardedLookup>, all: boolean) {
    return new Promise<{ error: NodeJS.ErrnoException | null; address: unknown; family: number | undefined }>((resolve) => {
      lookup('hooks.example.test', { all }, (error, address, family) => resolve({ error, address, family }));
    });
  }

  it('refuses at connect time a name that now resolves to a forbidden address (rebinding)', async () => {
    let records = ['93.184.216.34'];
    const resolver = async (): Promise<LookupAddress[]> => records.map((address) => ({ address, family: 4 }));
    await assertAllowedUrl('https://hooks.example.test/', { allowPrivate: false, resolver });
    records = ['127.0.0.1'];
    const lookup = createGuardedLookup({ allowPrivate: false, resolver });
    for (const all of [false, true]) {
      const { error } = await lookupOnce(lookup, all);
      expect(error).toBeInstanceOf(OutboundUrlRefusedError);
    }
  });

  it('answers in both callback shapes Node uses', async () => {
    const lookup = createGuardedLookup({ allowPrivate: false, resolver: fixedResolver('93.184.216.34', '2606:4700::1') });
    expect(await lookupOnce(lookup, false)).toEqual({ error: null, address: '93.184.216.34', family: 4 });
    expect(await lookupOnce(lookup, true)).toEqual({
      error: null,
      address: [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:4700::1', family: 6 },
      ],
      family: undefined,
    });
  });

  it('with allowPrivate, passes private addresses through', async () => {
    const lookup = createGuardedLookup({ allowPrivate: true, resolver: fixedResolver('127.0.0.1') });
    expect(await lookupOnce(lookup, false)).toEqual({ error: null, address: '127.0.0.1', family: 4 });
  });
});
