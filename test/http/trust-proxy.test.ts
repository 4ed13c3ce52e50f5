import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createTestApp, expectProblem, type TestApp } from '../helpers.js';

describe('TRUST_PROXY', () => {
  it('refuses true, which would believe any X-Forwarded-For, and says what to write instead', () => {
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(ConfigError);
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY=1.*TRUST_PROXY=10\.0\.0\.0\/8/);
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/33' })).toThrow(/CIDR/);
  });

  it('takes false, a hop count, or addresses and ranges', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1' }).trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1', '::1']);
  });

  describe('with one trusted hop', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp('sqlite', undefined, { TRUST_PROXY: '1', AUTH_FAILURES_PER_MINUTE: '3' });
    });
    afterAll(() => t.close());

    it('takes the address the proxy saw, so rotating the first X-Forwarded-For entry does not evade limits', async () => {
      const attempt = (i: number) =>
        t.app.inject({
          method: 'GET',
          url: '/api/v1/teams',
          remoteAddress: '127.0.0.1',
          headers: {
            accept: 'application/json',
            'x-forwarded-for': `10.9.${i}.1, 192.0.2.44`,
            'x-service-api-key': `tmn_${randomBytes(12).toString('base64url')}_${randomBytes(32).toString('base64url')}`,
          },
        });
      for (let i = 0; i < 3; i += 1) expectProblem(await attempt(i), 401, 'UNAUTHENTICATED');
      expectProblem(await attempt(99), 429, 'RATE_LIMITED');
    });
  });
});
