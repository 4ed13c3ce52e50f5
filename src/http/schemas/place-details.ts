import { Type, type TSchema } from 'typebox';
import type { Place } from '../../domain/account.js';
import { ONLINE_PLACES, PLACE_DETAILS_MAX_LENGTH } from '../../domain/place-details.js';
import { Nullable, SingleLine, StringEnum } from './common.js';
import { PlaceSchema } from './account.js';

const describe = (place: Place) =>
  place === 'offline'
    ? 'The address where the meeting takes place.'
    : place === 'phone-call'
      ? 'The number the participant calls, or dial-in instructions. Without one, the host calls the participant at the phone they gave.'
      : 'The meeting-room link: an https:// URL.';

const detailOf = (place: Place) => SingleLine({ minLength: 1, maxLength: PLACE_DETAILS_MAX_LENGTH, description: describe(place) });

const PLACE_DETAILS_DESCRIPTION =
  'Per place, what the participant needs to attend: an address for `offline`, a meeting-room link (https://) for the online places ' +
  `(${ONLINE_PLACES.join(', ')}), a number or instructions for \`phone-call\`. One line each, at most ${PLACE_DETAILS_MAX_LENGTH} characters. ` +
  "A meeting's `location` is resolved when it is booked: the host's own details (PUT /users/{userUuid}/place-details) for its place, " +
  "else the topic's, else, for `phone-call`, the participant's phone.";

function perPlace<T extends TSchema>(make: (place: Place) => T) {
  return {
    offline: Type.Optional(make('offline')),
    'phone-call': Type.Optional(make('phone-call')),
    'google-meet': Type.Optional(make('google-meet')),
    teamsForBusiness: Type.Optional(make('teamsForBusiness')),
    skypeForBusiness: Type.Optional(make('skypeForBusiness')),
    skypeForConsumer: Type.Optional(make('skypeForConsumer')),
    zoom: Type.Optional(make('zoom')),
    webex: Type.Optional(make('webex')),
  } satisfies Record<Place, unknown>;
}

/** `{ "offline": "ul. Prosta 1, Warszawa", "zoom": "https://…" }`: keys are places, unknown keys refused. */
export const PlaceDetailsSchema = Type.Object(perPlace(detailOf), { additionalProperties: false, description: PLACE_DETAILS_DESCRIPTION });

export const PlaceDetailsRecordSchema = Type.Object(
  perPlace((place) => Type.String({ description: describe(place) })),
  { description: PLACE_DETAILS_DESCRIPTION },
);

/** A meeting's resolved `location`. */
export const MeetingLocationSchema = Type.Object(
  {
    place: PlaceSchema,
    address: Nullable(Type.String({ description: '`offline`: the address; null otherwise or when none was set.' })),
    url: Nullable(Type.String({ description: 'Online places: the meeting-room link (https); null otherwise or when none was set.' })),
    phone: Nullable(Type.String({ description: "`phone-call`: the number to call (the host's or the topic's), or the participant's phone when neither gave one." })),
    text: Nullable(Type.String({ description: 'Whichever of address, url and phone is set, as one line; null when only the place is known.' })),
    source: Nullable(
      StringEnum(['host', 'topic', 'participant', 'room'] as const, {
        description:
          "Where the detail came from: the host's own place details, the topic's, the participant's phone, or the meeting's own room, made through the host's connection to the place's provider.",
      }),
    ),
    conferenceId: Nullable(Type.String({ description: "The room's id at its provider (Zoom's meeting number), when a room was made for the meeting." })),
    password: Nullable(Type.String({ description: "The room's passcode, when its provider gave one." })),
    status: Type.Optional(
      StringEnum(['failed'] as const, {
        description:
          "Present only as `failed`: the place's provider refused the meeting's own room for good (a request a retry cannot change, a conference " +
          'that failed), so no link will come from it; `reason` says why, the host was e-mailed and webhook `meeting.location_failed` sent, and ' +
          'the host sends the participant a link. Absent while the room is there or on its way (`url` null until it comes), and at places without rooms. ' +
          'A move of the meeting asks the provider once more.',
      }),
    ),
    reason: Type.Optional(Type.String({ description: 'With `status: "failed"`: why the provider refused the room, e.g. `Zoom create a meeting: HTTP 400`.' })),
  },
  {
    description:
      "Where the meeting happens, resolved when it was booked (and again when it moved to another host): the host's own place details for its place, " +
      "else the topic's, else, for `phone-call`, the participant's phone. Later changes of those details do not change booked meetings. " +
      'The e-mails and the invitation (iCalendar LOCATION, and URL for a link) show it.',
  },
);
