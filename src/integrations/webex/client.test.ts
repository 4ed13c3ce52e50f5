import { describe, expect, it } from 'vitest';
import { webexTokenError } from './client.js';

/** Webex's token endpoint speaks its API's error shape: the OAuth error inside it decides between "connect again" and "try later". */
describe('webexTokenError', () => {
  const webex = (message: string) => ({ message, errors: [{ description: message }], trackingId: 'ROUTER_1' });
  it.each([
    ['a refused refresh token', 400, webex("POST failed: HTTP/1.1 400 Bad Request (url = …, error = '(invalid_grant) Invalid refresh token.')"), 'invalid_grant'],
    [
      'a used authorization code, named in errors only',
      400,
      { message: 'Bad request', errors: [{ description: '(invalid_grant) Authorization code has been used.' }] },
      'invalid_grant',
    ],
    ['wrong app credentials', 401, webex('The request requires a valid access token set in the Authorization request header.'), 'invalid_client'],
    ['a bad request naming its error', 400, webex("error = '(invalid_request) redirect_uri mismatch'"), 'invalid_request'],
  ])('reads %s (HTTP %i) as %s', (_what, status, body, error) => {
    expect(webexTokenError(status, body)?.error).toBe(error);
  });

  it.each([
    ['an answer already in RFC 6749 shape', 400, { error: 'invalid_grant', error_description: 'x' }],
    ['an outage', 503, webex('Service Unavailable')],
    ['an HTML page', 502, undefined],
    ['a 400 that names no OAuth error', 400, webex('Something went wrong')],
  ])('leaves %s (HTTP %i) as it is', (_what, status, body) => {
    expect(webexTokenError(status, body)).toBeNull();
  });
});
