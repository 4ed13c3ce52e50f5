import { validateAvailability, type Availability } from './availability.js';
import type { FieldError } from './errors.js';

/**
 * A host's named hours beside their default ones (`…/availability`): "Summer", "Evenings
 * only". A topic picks one (`schedule`, or per host `hostSchedules`); its meetings still
 * block the host on every topic, whichever hours each topic uses.
 */
export interface Schedule extends Availability {
  uuid: string;
  userUuid: string;
  name: string;
  createdAt: number;
  updatedAt: number;
}

/** Most named schedules one host keeps. */
export const MAX_SCHEDULES_PER_USER = 50;

/**
 * Every problem of a schedule's name and hours, with JSON Pointer paths:
 * `validateSchedule({ name: ' ', timezone: 'Mars/Base', … })` → `/name` and `/timezone`.
 */
export function validateSchedule(name: string, hours: Availability): FieldError[] {
  const errors: FieldError[] = [];
  if (name.trim() === '') errors.push({ path: '/name', message: 'must not be empty' });
  errors.push(...validateAvailability(hours));
  return errors;
}
