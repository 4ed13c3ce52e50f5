import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTEGRATION_PROVIDERS } from '../../src/domain/integrations.js';
import { createTestApp, type TestApp } from '../helpers.js';

/** The guide an admin follows to register each provider's app says what the running service will ask for. */
describe('the integrations guide', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite', undefined, { PUBLIC_URL: 'https://book.acme.example' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('gives every provider its exact redirect URI and every scope its adapter asks for', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs/integrations' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    for (const provider of INTEGRATION_PROVIDERS) {
      const section = page.body.slice(page.body.indexOf(`<section id="${provider}">`));
      expect(section.length, provider).toBeLessThan(page.body.length);
      expect(section).toContain(`https://book.acme.example/oauth/${provider}/callback`);
      const own = section.slice(0, section.indexOf('</section>'));
      for (const scope of t.ctx.integrations.oauth[provider].scopes) expect(own, `${provider} ${scope}`).toContain(`<code>${scope}</code>`);
    }
    expect(page.body).toMatch(/skypeForBusiness.*retired/s);
    // The API reference points there.
    expect((await t.app.inject({ method: 'GET', url: '/docs' })).body).toContain('href="/docs/integrations"');
  });
});
