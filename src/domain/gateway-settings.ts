import type { Gateway } from './account.js';
import type { FieldError } from './errors.js';

/**
 * Each gateway's settings, under the names the API documents. `secret` fields are
 * write-only: stored encrypted, never returned, never logged.
 */
export interface GatewayField {
  name: string;
  type: 'string' | 'integer';
  secret: boolean;
}

export const GATEWAY_FIELDS: Record<Gateway, readonly GatewayField[]> = {
  stripe: [
    { name: 'secretKey', type: 'string', secret: true },
    { name: 'webhookSecret', type: 'string', secret: true },
  ],
  p24: [
    { name: 'merchantId', type: 'integer', secret: false },
    { name: 'posId', type: 'integer', secret: false },
    { name: 'apiKey', type: 'string', secret: true },
    { name: 'crc', type: 'string', secret: true },
  ],
  payu: [
    { name: 'posId', type: 'string', secret: false },
    { name: 'clientId', type: 'string', secret: false },
    { name: 'clientSecret', type: 'string', secret: true },
    { name: 'secondKey', type: 'string', secret: true },
  ],
  paypal: [
    { name: 'clientId', type: 'string', secret: false },
    { name: 'clientSecret', type: 'string', secret: true },
    { name: 'webhookId', type: 'string', secret: false },
  ],
  tpay: [
    { name: 'clientId', type: 'string', secret: false },
    { name: 'clientSecret', type: 'string', secret: true },
    { name: 'merchantId', type: 'string', secret: false },
    { name: 'securityCode', type: 'string', secret: true },
  ],
};

/** A gateway's settings split in two: what may be shown, and what must be sealed. */
export interface SplitGatewaySettings {
  settings: Record<string, string | number>;
  secrets: Record<string, string>;
}

/**
 * Checks a settings object against the gateway's fields and splits it:
 * `splitGatewaySettings('p24', { merchantId: 1, posId: 1, apiKey: 'k', crc: 'c' }, '/gateways/p24')`
 * → `{ settings: { merchantId: 1, posId: 1 }, secrets: { apiKey: 'k', crc: 'c' } }`.
 * Every missing, mistyped or unknown field is reported at its path, an empty object too:
 * `{ "stripe": {} }` used to enable a gateway no booking could use, and nothing said so.
 * (Enabling without settings is spelled with the code alone, which keeps what was stored.)
 */
export function splitGatewaySettings(code: Gateway, input: Record<string, unknown>, basePath: string): { value: SplitGatewaySettings; errors: FieldError[] } {
  const fields = GATEWAY_FIELDS[code];
  const errors: FieldError[] = [];
  const value: SplitGatewaySettings = { settings: {}, secrets: {} };
  for (const name of Object.keys(input)) {
    if (!fields.some((field) => field.name === name)) {
      errors.push({ path: `${basePath}/${name}`, message: `is not a ${code} setting (known: ${fields.map((f) => f.name).join(', ')})` });
    }
  }
  for (const field of fields) {
    const raw = input[field.name];
    const path = `${basePath}/${field.name}`;
    if (raw === undefined || raw === null || raw === '') {
      errors.push({ path, message: `is required to configure ${code}` });
    } else if (field.type === 'integer' && !(Number.isSafeInteger(raw) && (raw as number) > 0) && !(typeof raw === 'string' && /^[1-9]\d{0,15}$/.test(raw))) {
      errors.push({ path, message: 'must be a positive integer' });
    } else if (field.type === 'string' && (typeof raw !== 'string' || raw.length > 500 || /[\u0000-\u001f\u007f]/.test(raw))) {
      errors.push({ path, message: 'must be a single-line string of at most 500 characters' });
    } else if (field.secret) {
      value.secrets[field.name] = String(raw).trim();
    } else {
      value.settings[field.name] = field.type === 'integer' ? Number(raw) : String(raw).trim();
    }
  }
  return { value, errors };
}

/** Every field the gateway needs is stored (given the names of the stored fields, secret or not). */
export function isGatewayConfigured(code: Gateway, storedFieldNames: readonly string[]): boolean {
  return GATEWAY_FIELDS[code].every((field) => storedFieldNames.includes(field.name));
}
