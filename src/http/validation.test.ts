import { describe, expect, it } from 'vitest';
import { createDeferredCompiles } from './deferred-compile.js';
import { createValidatorCompiler } from './validation.js';

// A schema that forgot the NUL rule: the validator's own walk must still refuse U+0000 at its place.
const schema = {
  type: 'object',
  properties: { name: { type: 'string' }, nested: { type: 'object', properties: { list: { type: 'array', items: { type: 'string' } } } } },
};

function validatorFor() {
  const compile = createValidatorCompiler(createDeferredCompiles());
  return compile({ schema, httpPart: 'body', method: 'POST', url: '/x' }) as ((data: unknown) => boolean) & { errors?: { instancePath?: string }[] | null };
}

describe('the NUL walk of every validator', () => {
  it('lets clean bodies through', () => {
    const validate = validatorFor();
    expect(validate({ name: 'Jan', nested: { list: ['a', 'b'] } })).toBe(true);
    expect(validate.errors).toBeNull();
  });

  it.each([
    [{ name: 'Jan\u0000' }, '/name'],
    [{ nested: { list: ['a', 'b\u0000'] } }, '/nested/list/1'],
    [{ nested: { 'a\u0000': 'x' } }, '/nested/a\u0000'],
  ])('refuses %j at %s', (body, path) => {
    const validate = validatorFor();
    expect(validate(body)).toBe(false);
    expect(validate.errors?.map((error) => error.instancePath)).toEqual([path]);
  });
});
