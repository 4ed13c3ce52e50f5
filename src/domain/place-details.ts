import { PLACES, type Place } from './account.js';
import type { FieldError } from './errors.js';
import { isSingleLineText, toSingleLine } from './text.js';

/**
 * What a participant needs to attend at each place: an address for `offline`, a meeting-room
 * link (https) for the online places, a number or dial-in instructions for `phone-call`.
 * Topics have them, and so do hosts (their own, e.g. a personal Zoom room).
 *
 * `{ offline: 'ul. Prosta 1, Warszawa', zoom: 'https://zoom.us/j/123' }`
 */
export type PlaceDetails = Partial<Record<Place, string>>;

/** Places attended through a link. */
export const ONLINE_PLACES: readonly Place[] = ['google-meet', 'teamsForBusiness', 'skypeForBusiness', 'skypeForConsumer', 'zoom', 'webex'];

export const PLACE_DETAILS_MAX_LENGTH = 500;

export function isOnlinePlace(place: Place): boolean {
  return ONLINE_PLACES.includes(place);
}

/** Values trimmed, places in the canonical order (so equal details compare and store equal). */
export function normalizePlaceDetails(details: Readonly<Record<string, string | undefined>>): PlaceDetails {
  const normalized: PlaceDetails = {};
  for (const place of PLACES) {
    const value = details[place];
    if (value !== undefined) normalized[place] = value.trim();
  }
  return normalized;
}

/**
 * Rules the schema cannot express, at `pathPrefix/<place>`: each key a place in `allowed`
 * (`allowedMessage` says why not), each value one non-empty line of at most 500 characters,
 * an online place's an https link.
 *
 * `validatePlaceDetails({ zoom: 'http://x' }, ['zoom'], '/placeDetails', '…')`
 * → `[{ path: '/placeDetails/zoom', message: 'must be an https:// link to the meeting room' }]`.
 */
export function validatePlaceDetails(details: Readonly<Record<string, string | undefined>>, allowed: readonly Place[], pathPrefix: string, allowedMessage: string): FieldError[] {
  const errors: FieldError[] = [];
  for (const [key, value] of Object.entries(details)) {
    if (value === undefined) continue;
    const path = `${pathPrefix}/${key}`;
    if (!(PLACES as readonly string[]).includes(key)) {
      errors.push({ path, message: `is not a place (places: ${PLACES.join(', ')})` });
      continue;
    }
    const place = key as Place;
    if (!allowed.includes(place)) errors.push({ path, message: `${allowedMessage} (${allowed.join(', ') || 'none'})` });
    const text = value.trim();
    if (text === '') errors.push({ path, message: 'must not be empty; leave the place out instead' });
    else if (!isSingleLineText(text)) errors.push({ path, message: 'must be one line (no control characters)' });
    else if (text.length > PLACE_DETAILS_MAX_LENGTH) errors.push({ path, message: `must be at most ${PLACE_DETAILS_MAX_LENGTH} characters` });
    else if (isOnlinePlace(place) && !isHttpsLink(text)) errors.push({ path, message: 'must be an https:// link to the meeting room' });
  }
  return errors;
}

function isHttpsLink(text: string): boolean {
  if (/\s/.test(text)) return false;
  try {
    const url = new URL(text);
    return url.protocol === 'https:' && url.hostname !== '';
  } catch {
    return false;
  }
}

/** Only the places still offered: a topic that stops offering a place forgets its details. */
export function keepOfferedPlaces(details: PlaceDetails, places: readonly Place[]): PlaceDetails {
  return Object.fromEntries(Object.entries(details).filter(([place]) => places.includes(place as Place))) as PlaceDetails;
}

/** Where the detail came from: the host's or the topic's place details, the participant's phone, or the meeting's own room made through the host's connection. */
export type LocationSource = 'host' | 'topic' | 'participant' | 'room';

/**
 * Where a meeting happens, resolved when it is booked (and again when it moves to another
 * host), so later edits of place details leave booked meetings as they were sent. At most
 * one of `address` (offline), `url` (online) and `phone` (phone call) is set; `text` is that
 * value, null when nothing is known beyond the place.
 */
export interface MeetingLocation {
  place: Place;
  address: string | null;
  url: string | null;
  phone: string | null;
  text: string | null;
  source: LocationSource | null;
  /** The room's meeting id at its provider (Zoom's meeting number), when a room was made. */
  conferenceId?: string | null | undefined;
  /** The room's passcode, when its provider gave one. */
  password?: string | null | undefined;
  /**
   * `failed`: the provider refused the meeting's own room for good (a request it will never
   * accept, a conference that failed), so no link will come from it; `reason` says why, and
   * the host sends the participant a link. Absent otherwise: the room is there or on its way,
   * or the place has none.
   */
  status?: 'failed' | undefined;
  reason?: string | undefined;
}

/**
 * The location once the provider refused the meeting's room for good: as it was (a room a
 * refused move left keeps its link), marked `failed` with the reason in one line.
 *
 * `failedLocation({ place: 'zoom', url: null, … }, 'Zoom create a meeting: HTTP 400')`
 * → `{ place: 'zoom', url: null, …, status: 'failed', reason: 'Zoom create a meeting: HTTP 400' }`.
 */
export function failedLocation(location: MeetingLocation, reason: string): MeetingLocation {
  return { ...location, status: 'failed', reason: toSingleLine(reason).slice(0, 500) };
}

/**
 * The host's own detail for the place, else the topic's, else, for a phone call, the
 * participant's phone (the host calls them).
 *
 * `resolveLocation('zoom', { zoom: 'https://zoom.us/j/1' }, { zoom: 'https://zoom.us/j/2' }, null)`
 * → `{ place: 'zoom', url: 'https://zoom.us/j/1', text: 'https://zoom.us/j/1', source: 'host', address: null, phone: null }`.
 */
export function resolveLocation(place: Place, hostDetails: PlaceDetails, topicDetails: PlaceDetails, participantPhone: string | null): MeetingLocation {
  const fromHost = hostDetails[place];
  const fromTopic = topicDetails[place];
  const phone = participantPhone !== null && participantPhone.trim() !== '' ? participantPhone.trim() : null;
  const [value, source]: [string | null, LocationSource | null] =
    fromHost !== undefined && fromHost !== ''
      ? [fromHost, 'host']
      : fromTopic !== undefined && fromTopic !== ''
        ? [fromTopic, 'topic']
        : place === 'phone-call' && phone !== null
          ? [phone, 'participant']
          : [null, null];
  const text = value === null ? null : toSingleLine(value);
  return {
    place,
    address: place === 'offline' ? text : null,
    url: isOnlinePlace(place) ? text : null,
    phone: place === 'phone-call' ? text : null,
    text,
    source,
  };
}

/** A meeting booked before locations were stored: only what it always knew. */
export function locationWithoutDetails(place: Place, participantPhone: string | null): MeetingLocation {
  return resolveLocation(place, {}, {}, participantPhone);
}
