import { describe, expect, it } from 'vitest';
import { checkMicrosoftTenant, splitIntegrationSettings } from './integrations.js';

describe('checkMicrosoftTenant', () => {
  it.each([
    ['common', true],
    ['organizations', true],
    ['consumers', true],
    ['Common', true],
    ['72f988bf-86f1-41af-91ab-2d7cd011db47', true],
    ['contoso.onmicrosoft.com', true],
    ['book.acme-dental.pl', true],
    ['72f988bf-86f1-41af-91ab', false],
    ['contoso', false],
    ['contoso/../common', false],
    ['contoso.com/oauth2', false],
    ['a b.com', false],
    ['contoso.com?x=1', false],
    ['-contoso.com', false],
    ['%2e%2e', false],
  ])('%s → %s', (tenant, valid) => {
    expect(checkMicrosoftTenant(tenant) === null).toBe(valid);
  });
});

describe('splitIntegrationSettings for microsoft', () => {
  it('fills the tenant with common when left out', () => {
    expect(splitIntegrationSettings('microsoft', { clientId: 'id', clientSecret: 's' }, '/integrations/microsoft')).toEqual({
      value: { settings: { clientId: 'id', tenant: 'common' }, secrets: { clientSecret: 's' } },
      errors: [],
    });
  });

  it('reports a tenant that is not one at its path, and stores nothing of it', () => {
    const { value, errors } = splitIntegrationSettings('microsoft', { clientId: 'id', clientSecret: 's', tenant: 'x/y' }, '/integrations/microsoft');
    expect(errors.map((e) => e.path)).toEqual(['/integrations/microsoft/tenant']);
    expect(value.settings.tenant).toBeUndefined();
  });
});
