import type { FieldError } from './errors.js';

/**
 * A span a host is away (`POST /users/{userUuid}/time-off`): they are offered nowhere in it
 * (the slot engine's TIME_OFF), and a stand-in (`delegateUuid`, another active user of the
 * account) may take their place. Meetings already booked in it stay: the answer lists them.
 */
export interface TimeOff {
  uuid: string;
  userUuid: string;
  start: number;
  end: number;
  reason: string | null;
  delegateUuid: string | null;
  createdAt: number;
}

/** The longest single time off: a year (a longer absence is a deactivation). */
export const MAX_TIME_OFF_DAYS = 366;
export const MAX_TIME_OFF_REASON = 500;
/** Most time off entries that have not ended yet, per host. */
export const MAX_OPEN_TIME_OFF = 200;

/**
 * Every problem of a time off's span and reason: `validateTimeOff(end, start, …)` →
 * `[{ path: '/end', message: 'must be after start' }]`. An end in the past is refused too:
 * time off that is over changes nothing.
 */
export function validateTimeOff(input: { start: number; end: number; reason?: string | null | undefined }, now: number): FieldError[] {
  const errors: FieldError[] = [];
  if (!(input.end > input.start)) errors.push({ path: '/end', message: 'must be after start' });
  else if (input.end - input.start > MAX_TIME_OFF_DAYS * 86_400_000) errors.push({ path: '/end', message: `must be at most ${MAX_TIME_OFF_DAYS} days after start` });
  else if (input.end <= now) errors.push({ path: '/end', message: 'must be in the future' });
  if ((input.reason ?? '').length > MAX_TIME_OFF_REASON) errors.push({ path: '/reason', message: `must be at most ${MAX_TIME_OFF_REASON} characters` });
  return errors;
}
