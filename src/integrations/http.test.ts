import { describe, expect, it } from 'vitest';
import { scopesNamedIn } from './http.js';

/** The scopes a refusal names reach the host's message, and nothing else of the provider's text does. */
describe('scopesNamedIn', () => {
  it.each([
    ['Zoom 4711', 'Invalid access token, does not contain scopes:[meeting:write:meeting, meeting:update:meeting].', 'meeting:write:meeting, meeting:update:meeting'],
    ['Graph', "Missing scope permissions on the request. API requires one of 'Calendars.ReadWrite'. Scopes on the request 'User.Read'", 'Calendars.ReadWrite'],
    ['a text naming none', 'Request had insufficient authentication scopes.', ''],
    ['anything but scope-like words', 'does not contain scopes:[<b>x</b>, meeting:read:meeting]', 'meeting:read:meeting'],
  ])('%s', (_what, text, scopes) => {
    expect(scopesNamedIn(text)).toBe(scopes);
  });
});
