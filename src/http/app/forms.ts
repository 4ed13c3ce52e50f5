import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type TObject, type TProperties, type TSchema } from 'typebox';
import { DomainError, ForbiddenError, type FieldError, ValidationError } from '../../domain/errors.js';
import { isCsrfTokenValid } from '../../scheduling/host-app/sign-in.js';
import type { UseCaseContext } from '../../scheduling/context.js';
import { mapValidationErrors } from '../problems.js';

/**
 * The app's forms: HTML forms posted as application/x-www-form-urlencoded, each with a
 * TypeBox schema of its fields like the JSON routes' bodies, so Fastify validates them. A
 * form that does not match its schema is not a JSON 400: the route gets the problems
 * (`attachValidation`) and puts them back into the page, next to the fields, like any other
 * refusal of the use case it calls.
 */

/** A posted HTML form: each name's values, repeated names (checkboxes) in order. */
export type FormBody = Record<string, string | string[]>;

const FORM_BODY_LIMIT = 64 * 1024;

export function parseForm(text: string): FormBody {
  const body: FormBody = {};
  for (const [name, value] of new URLSearchParams(text)) {
    const current = body[name];
    if (current === undefined) body[name] = value;
    else body[name] = Array.isArray(current) ? [...current, value] : [current, value];
  }
  return body;
}

/** Forms are read into a FormBody (a name given once is a string, a repeated one an array), for the routes' schemas to check. */
export function registerFormParser(app: FastifyInstance): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT }, (_request, body, done) => {
    done(null, parseForm(typeof body === 'string' ? body : body.toString('utf8')));
  });
}

// ── Schemas of form fields ───────────────────────────────────────────────────────────────

/** A text input, select or hidden field: the browser always sends it, empty or not. */
export const TextField = Type.String();
/** A field the form may leave out or send empty, read as "none" (an optional reason, a calendar's password). */
export const OptionalField = Type.Optional(Type.String());
/** A ticked checkbox sends `on` (its value); an unticked one sends nothing. */
export const Checkbox = Type.Optional(Type.Literal('on'));
/** Checkboxes sharing a name: absent when none is ticked, a string for one, an array for several. */
export const RepeatedField = Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())]));

/**
 * The schema of a form's body: its fields and the CSRF token every form carries; any other
 * field is refused, as in the JSON API. `formSchema({ reason: OptionalField })`.
 */
export function formSchema<Fields extends TProperties>(
  fields: Fields,
  options: { patternProperties?: Record<string, TSchema> } = {},
): TObject<Fields & { csrf: typeof TextField }> {
  return Type.Object({ ...fields, csrf: TextField }, { additionalProperties: false, ...options });
}

/**
 * A form route's options: the body's schema (the route stays out of the OpenAPI document, which
 * is the JSON API's), with a mismatch handed to the route instead of answered with a JSON 400.
 */
export function formRoute(body: TObject) {
  return { schema: { hide: true, body }, attachValidation: true } as const;
}

/** Options of a page read with GET: out of the OpenAPI document like every page. */
export const PAGE_ROUTE = { schema: { hide: true } } as const;

// ── Reading a form, and its problems back into it ────────────────────────────────────────

/** A single field's value (the first, should it come repeated), or '' when absent. */
export function field(body: FormBody | undefined, name: string): string {
  const value = body?.[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

/** Every value of a repeated field, in order. */
export function fields(body: FormBody | undefined, name: string): string[] {
  const value = body?.[name];
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/** The fields the form's schema refused, each at its path (`/name`), or [] when it matched. */
export function formErrorsOf(request: FastifyRequest): FieldError[] {
  const invalid = request.validationError;
  return invalid ? mapValidationErrors(invalid.validation ?? [], invalid.validationContext) : [];
}

/** Throws the form's schema problems as a ValidationError: the route's catch shows them on the page, or the error page does. */
export function requireValidForm(request: FastifyRequest): void {
  const errors = formErrorsOf(request);
  if (errors.length > 0) throw new ValidationError(errors);
}

/** A refusal the member can act on (a taken address, the last admin, the plan's limit, a wrong field) comes back on the page; the rest are error pages. */
export function isCorrectable(error: unknown): error is DomainError {
  return error instanceof DomainError && error.code !== 'NOT_FOUND' && error.code !== 'FORBIDDEN';
}

// ── CSRF ─────────────────────────────────────────────────────────────────────────────────

/**
 * Every change needs the form's token, bound to `binding` (the session, or before sign-in the
 * browser's nonce cookie; null when the browser has neither): another site can make the
 * browser post, but not read the token.
 */
export function requireFormToken(secretKey: UseCaseContext['secretKey'], binding: string | null, body: unknown): void {
  const token = (body as FormBody | undefined)?.csrf;
  if (binding === null || !isCsrfTokenValid(secretKey, binding, token))
    throw new ForbiddenError('The form has expired or did not come from this site: reload the page and try again');
}

/**
 * A post only a page of this site may make (confirming a sign-in link): the browser says
 * where the post comes from, and another site's post is refused.
 *
 * - `Sec-Fetch-Site`, when sent, must be `same-origin` (a sibling subdomain's or another
 *   port's post is `same-site`, refused too). Every current browser sends it (Chromium 76+,
 *   Firefox 90+, Safari 16.4+), and no page can set or change it.
 * - `Origin`, when it names a site, must be PUBLIC_URL's origin or the one the request was
 *   sent to. `Origin: null` says nothing: our own pages send it, as their referrer policy is
 *   `no-referrer`, so refusing it would lock out browsers that do not send `Sec-Fetch-Site`.
 * - With neither (curl, a test, a browser from before 2020) the post passes this check.
 *
 * What passes here still needs the form's CSRF value, bound to a cookie of the browser's own
 * (SameSite=Lax: not sent with another site's post) that another site can neither read nor
 * compute the value from; this check is the second lock, not the only one.
 */
export function requireSameOrigin(request: FastifyRequest, publicOrigin: string): void {
  const site = request.headers['sec-fetch-site'];
  const origin = request.headers.origin;
  const fromHere =
    (site === undefined || site === 'same-origin') && (origin === undefined || origin === 'null' || origin === publicOrigin || origin === `${request.protocol}://${request.host}`);
  if (!fromHere) throw new ForbiddenError('This form can only be sent from its own page on this site: open the link from your e-mail again');
}
