import { Type, type Static } from 'typebox';
import { NextCursor, PageQuery } from './paging.js';
import { ASSIGNMENTS, TOPIC_LIMITS } from '../../domain/meeting-topic.js';
import { PlaceSchema } from './account.js';
import { MAX_MONEY_AMOUNT, MultiLine, NonBlankLine, Nullable, SingleLine, StringEnum, Timestamp, Uuid } from './common.js';
import { FORM_FIELD_TYPES, FORM_LIMITS } from '../../domain/form.js';
import { LANGS } from '../../domain/meeting.js';
import { CONFIRMATION_MESSAGE_MAX } from '../../domain/topic-translations.js';
import { PlaceDetailsRecordSchema, PlaceDetailsSchema } from './place-details.js';
import { REMINDER_CHANNELS, REMINDER_LIMITS, REMINDER_RECIPIENTS } from '../../domain/reminders.js';

const ReminderSchema = Type.Object(
  {
    minutesBefore: Type.Integer({
      minimum: REMINDER_LIMITS.minutesBefore[0],
      maximum: REMINDER_LIMITS.minutesBefore[1],
      description: 'How long before the start it goes out: 1 minute to 14 days (20160). An absolute interval: a DST change in between does not move it.',
      examples: [1440],
    }),
    channel: StringEnum(REMINDER_CHANNELS, {
      description: "`email`, or `sms` through the operator's provider (SMS_PROVIDER; without it `sms` is 400 naming the setting). A meeting booked without a phone gets no SMS.",
    }),
    to: StringEnum(REMINDER_RECIPIENTS, { description: 'The participant (in their language, with the manage link) or the host.' }),
  },
  { additionalProperties: false },
);

const FormShowIfSchema = Type.Object(
  {
    key: Type.String({ description: 'The key of an earlier question.' }),
    equals: Type.Union([SingleLine({ maxLength: FORM_LIMITS.optionLength }), Type.Number(), Type.Boolean()], {
      description: "The answer that makes this question apply (for a multiselect: one of the choices ticked); an answer of that question's type.",
    }),
  },
  {
    additionalProperties: false,
    description: 'Asked only when the earlier question `key` applies and its answer equals `equals`. Otherwise the question is not required, and an answer to it is refused (400).',
    examples: [{ key: 'size', equals: '51+' }],
  },
);

export const MoneySchema = Type.Object(
  {
    amount: Type.Integer({
      minimum: 0,
      maximum: MAX_MONEY_AMOUNT,
      description: `An integer in minor units: 15000 is 150.00. At most ${MAX_MONEY_AMOUNT.toLocaleString('en')}, so that a booking of the most dates still fits a 32-bit integer.`,
    }),
    currency: Type.String({ pattern: '^[A-Z]{3}$', description: 'An active ISO 4217 code (a withdrawn or unknown one is 400).', examples: ['PLN'] }),
  },
  { additionalProperties: false },
);

const minutes = (limits: readonly [number, number], description: string) => Type.Integer({ minimum: limits[0], maximum: limits[1], description });

function ConfirmationMessage(extra: string) {
  return MultiLine({
    maxLength: CONFIRMATION_MESSAGE_MAX,
    description:
      `Plain text shown after booking: on the confirmation page and in the participant's confirmation e-mail (what to bring, how to prepare); at most ${CONFIRMATION_MESSAGE_MAX} characters. ` +
      `http(s) links become clickable in HTML; nothing else is markup. ${extra}`,
  });
}

const TranslationSchema = Type.Object(
  {
    name: Type.Optional(NonBlankLine({ maxLength: 200 })),
    description: Type.Optional(MultiLine({ maxLength: 5000 })),
    confirmationMessage: Type.Optional(ConfirmationMessage('')),
    form: Type.Optional(
      Type.Record(
        Type.String({ pattern: '^[A-Za-z][A-Za-z0-9_-]{0,63}$' }),
        Type.Object(
          {
            label: Type.Optional(NonBlankLine({ maxLength: 200 })),
            options: Type.Optional(
              Type.Array(NonBlankLine({ maxLength: FORM_LIMITS.optionLength }), {
                maxItems: FORM_LIMITS.options,
                description: "A `select` question's choices in this language: as many as the question has, in its order (the answer stored is the topic's own option).",
              }),
            ),
          },
          { additionalProperties: false },
        ),
        { description: 'By question `key` (each must be a question of the topic; 400 at `/translations/<lang>/form/<key>` otherwise).' },
      ),
    ),
  },
  { additionalProperties: false },
);

const TopicTranslationsSchema = Type.Record(Type.String({ pattern: '^[a-z]{2}$' }), TranslationSchema, {
  maxProperties: 20,
  description:
    `The topic's own words in other languages, by language code (supported: ${LANGS.join(', ')}; another is 400 at \`/translations/<lang>\`): ` +
    "used wherever that language is shown (booking page, e-mails, manage page). Every field is optional; what is not translated shows the topic's own words. Replaced whole on update. Default {}.",
});

const settingsProperties = {
  name: NonBlankLine({ maxLength: 200 }),
  durationMinutes: minutes(TOPIC_LIMITS.durationMinutes, 'Length of the meeting; with `durations`, the default length.'),
  durations: Type.Optional(
    Type.Array(minutes(TOPIC_LIMITS.durationMinutes, 'A length in minutes.'), {
      minItems: TOPIC_LIMITS.durations[0],
      maxItems: TOPIC_LIMITS.durations[1],
      description:
        'The lengths a participant may choose, e.g. `[15, 30, 60]`: `durationMinutes` must be among them (the default). POST /calculate-schedule, POST /schedule and ' +
        'POST /explain-schedule take `duration`; slots, buffers, limits, seats and the grid then apply to that length, and a price variant with that ' +
        '`durationMinutes` is its price. Default `[durationMinutes]`; a topic of one length follows a changed `durationMinutes`.',
      examples: [[15, 30, 60]],
    }),
  ),
  allowGuests: Type.Optional(
    Type.Boolean({
      description:
        'A booking may name up to 10 `guests` (e-mail addresses): each is an ATTENDEE of the invitation and gets the confirmation, reschedule and cancel messages (not the manage link). Default false.',
    }),
  ),
  slotIntervalMinutes: Type.Optional(minutes(TOPIC_LIMITS.slotIntervalMinutes, 'Grid of start times from the start of each availability interval. Default: durationMinutes.')),
  bufferBeforeMinutes: Type.Optional(minutes(TOPIC_LIMITS.bufferMinutes, 'Time kept free before the meeting. Default 0.')),
  bufferAfterMinutes: Type.Optional(minutes(TOPIC_LIMITS.bufferMinutes, 'Time kept free after the meeting. Default 0.')),
  minimumNoticeMinutes: Type.Optional(minutes(TOPIC_LIMITS.minimumNoticeMinutes, 'No slot starts sooner than this after now. Default 0.')),
  bookingWindowDays: Type.Optional(minutes(TOPIC_LIMITS.bookingWindowDays, 'No slot starts later than now + this many days. Default 60.')),
  dailyLimit: Type.Optional(
    Nullable(
      Type.Integer({
        minimum: TOPIC_LIMITS.dailyLimit[0],
        maximum: TOPIC_LIMITS.dailyLimit[1],
        description: 'Most meetings of this topic per host per host-local day; null: no limit.',
      }),
    ),
  ),
  weeklyLimit: Type.Optional(
    Nullable(
      Type.Integer({
        minimum: TOPIC_LIMITS.weeklyLimit[0],
        maximum: TOPIC_LIMITS.weeklyLimit[1],
        description:
          "Most meetings of this topic per host per calendar week (Monday to Sunday) in the time zone of the host's hours, a week with a clock change included; null: no limit. " +
          'The dates of one booking count together. The host may also limit themselves across topics: PUT /users/{userUuid}/limits.',
      }),
    ),
  ),
  monthlyLimit: Type.Optional(
    Nullable(
      Type.Integer({
        minimum: TOPIC_LIMITS.monthlyLimit[0],
        maximum: TOPIC_LIMITS.monthlyLimit[1],
        description: "Most meetings of this topic per host per calendar month in the time zone of the host's hours; null: no limit.",
      }),
    ),
  ),
  schedule: Type.Optional(
    Type.Union([Uuid, Type.Null()], {
      description:
        "Individual topics: which of the host's schedules (POST /users/{userUuid}/schedules) gives the hours; null: the default hours " +
        "(`…/availability`). Another account's or user's schedule is 400. The host's meetings block them on every topic whichever hours apply.",
    }),
  ),
  hostSchedules: Type.Optional(
    Type.Record(SingleLine({ minLength: 1, maxLength: 120 }), Uuid, {
      maxProperties: 200,
      description:
        "Team topics: which of each host's schedules (POST /users/{userUuid}/schedules) gives their hours here, by username; a host left out " +
        "uses their default hours. Each must be that host's own schedule (400 otherwise). `{}` resets every host to the default.",
    }),
  ),
  places: Type.Optional(Type.Array(PlaceSchema, { minItems: 1, maxItems: 16, description: "Subset of the account's enabled places. Default: every place the account enables." })),
  phoneRequired: Type.Optional(Type.Boolean({ description: 'Bookings must give a phone number. Default false.' })),
  requiresApproval: Type.Optional(
    Type.Boolean({
      description: 'Bookings are requests: `pending_approval`, holding the slot, until the host approves (POST /meetings/{uuid}/approve) or declines. Default false.',
    }),
  ),
  approvalDeadlineHours: Type.Optional(
    Type.Integer({
      minimum: TOPIC_LIMITS.approvalDeadlineHours[0],
      maximum: TOPIC_LIMITS.approvalDeadlineHours[1],
      description: 'A request not decided this many hours after booking, or by its start if sooner, is declined ("not approved in time"). Default 24.',
    }),
  ),
  seats: Type.Optional(
    Type.Integer({
      minimum: TOPIC_LIMITS.seats[0],
      maximum: TOPIC_LIMITS.seats[1],
      description:
        'Participants per slot (group meetings: classes, workshops, webinars). A slot stays offered until this many participants hold it; ' +
        "each participant's booking is a meeting of its own (own manage link, payment, cancel that frees one seat) at the slot's start, " +
        'and the host gets one invitation listing the attendees. Default 1.',
    }),
  ),
  hostWeights: Type.Optional(
    Type.Record(SingleLine({ minLength: 1, maxLength: 120 }), Type.Integer({ minimum: TOPIC_LIMITS.hostWeight[0], maximum: TOPIC_LIMITS.hostWeight[1] }), {
      description:
        'Round-robin team topics: `{ username: weight }`, each 1 to 100; a host not named weighs 1. Over time each host gets a share of the ' +
        "topic's meetings in proportion to their weight: the team view offers a slot to the free host still below their " +
        "weight's share of the team's meetings of the topic that week (counting this one), and among those the smallest " +
        '(meetings + 1) / weight, so each stays within one meeting of their share. Default `{}` (equal).',
      examples: [{ 'anna-nowak': 3, 'jan-kowalski': 1 }],
    }),
  ),
  assignment: Type.Optional(
    StringEnum(ASSIGNMENTS, {
      description:
        'Team topics: who holds each meeting. `round-robin` (default): one free host, chosen as `hostWeights` say. `collective`: every host of ' +
        "the topic; a slot is offered (in the team view and in each host's view) only when all of them are free, by their own hours for the topic, " +
        'meetings, buffers, calendars and limits; `POST /schedule` may name any one host in `dates`, and the meeting holds them all ' +
        "(`hosts` in its record), each getting the invitation, its updates and its cancellation, and each host's calendars that take meetings get it. " +
        'An individual topic cannot be collective, nor can a topic with more than one seat (400).',
    }),
  ),
  reminders: Type.Optional(
    Type.Array(ReminderSchema, {
      maxItems: REMINDER_LIMITS.perTopic,
      description:
        'Reminders of each confirmed meeting, at most 5: each is sent once, `minutesBefore` before the start (not for a meeting confirmed later than that), ' +
        'moved by a reschedule, dropped by a cancel. One found due only from the start on (the server was down) is skipped, never sent late. The ' +
        "invitation's calendar entry carries an alarm for the reader's earliest reminder. Each sent one is the webhook event `meeting.reminder_sent`. Default [].",
    }),
  ),
  price: Type.Optional(Nullable(MoneySchema)),
  priceVariants: Type.Optional(
    Type.Array(
      Type.Object(
        {
          uuid: Type.Optional(Uuid),
          name: NonBlankLine({ maxLength: 200 }),
          price: MoneySchema,
          durationMinutes: Type.Optional(
            minutes(
              TOPIC_LIMITS.durationMinutes,
              "A price per length: one of the topic's `durations`. A booking of that `duration` without a `priceVariant` pays this variant's price; a booking naming a variant of another length is refused (400 at `/priceVariant`).",
            ),
          ),
        },
        { additionalProperties: false },
      ),
      {
        maxItems: 20,
        description: 'Each gets a uuid; send an existing uuid back on update to keep it.',
      },
    ),
  ),
  form: Type.Optional(
    Type.Array(
      Type.Object(
        {
          key: Type.String({ pattern: '^[A-Za-z][A-Za-z0-9_-]{0,63}$' }),
          label: NonBlankLine({ maxLength: 200, description: 'The question as the participant sees it.' }),
          required: Type.Optional(Type.Boolean({ description: 'Default false. A required checkbox must be ticked (true); a required multiselect needs one choice.' })),
          type: Type.Optional(
            StringEnum(FORM_FIELD_TYPES, {
              description:
                `Default \`text\`. The answer in \`form\` when booking: \`text\` one line (at most ${FORM_LIMITS.textAnswer} characters), ` +
                `\`textarea\` may span lines (at most ${FORM_LIMITS.textareaAnswer}), \`select\` one of \`options\` exactly, \`checkbox\` true or false, ` +
                '`email` an e-mail address, `phone` E.164 (`+48601234567`), `number` a number within `min`..`max` (a numeric string is read as one), ' +
                '`multiselect` an array of distinct `options` (stored in the order of the options), `date` `YYYY-MM-DD`.',
            }),
          ),
          options: Type.Optional(
            Type.Array(NonBlankLine({ maxLength: FORM_LIMITS.optionLength }), {
              minItems: 1,
              maxItems: FORM_LIMITS.options,
              description: '`select` and `multiselect` only (and required for them): the choices, in the order shown, no duplicates.',
            }),
          ),
          min: Type.Optional(Type.Number({ description: '`number` only: the smallest answer taken.' })),
          max: Type.Optional(Type.Number({ description: '`number` only: the largest answer taken (not less than `min`).' })),
          showIf: Type.Optional(FormShowIfSchema),
        },
        { additionalProperties: false },
      ),
      {
        maxItems: 30,
        description:
          'Questions the participant answers in `form` when booking (`{ "<key>": answer }`). A booking is refused (400, path `/form/<key>`) for a key ' +
          "that is no question, an answer that does not fit its type, a required question left unanswered, or an answer to a question whose `showIf` does not hold. The host's e-mail lists the answers.",
      },
    ),
  ),
  placeDetails: Type.Optional(PlaceDetailsSchema),
  description: Type.Optional(MultiLine({ maxLength: 5000, description: 'Shown on the booking page and in the confirmation e-mail. Default "".' })),
  confirmationMessage: Type.Optional(ConfirmationMessage('Default "".')),
  translations: Type.Optional(TopicTranslationsSchema),
  public: Type.Optional(
    Type.Boolean({ description: 'True: the topic has a booking page (GET /book/…) and is bookable without a key through POST /public/schedule. Default false.' }),
  ),
  slug: Type.Optional(
    Nullable(
      Type.String({
        maxLength: 60,
        description:
          "The booking link's readable last part: `/book/{username}/{slug}` opens the same page as `/book/{username}/{uuid}` (and " +
          '`/book/teams/{teamUuid}/{slug}` for a team topic). Lower-case letters, digits and single hyphens, at most 60, not shaped like a uuid ' +
          '(400 otherwise); unique among the live topics of each of its hosts and of its team (409 SLUG_TAKEN otherwise). null or "": none. Default null.',
        examples: ['intro-call'],
      }),
    ),
  ),
  cancellationNoticeMinutes: Type.Optional(
    minutes(
      TOPIC_LIMITS.cancellationNoticeMinutes,
      'A participant may cancel or move the meeting through the manage link in their confirmation up to this long before its start (the API key and the host may always). Default 0.',
    ),
  ),
  hosts: Type.Optional(
    Type.Array(SingleLine({ minLength: 1, maxLength: 120, description: 'A username.' }), {
      maxItems: 200,
      description: 'Usernames. Individual: default [caller]; team: default all members.',
    }),
  ),
  allTeamMembers: Type.Optional(
    Type.Boolean({ description: 'Team topics: hosted by every current member, members who join later included. Default for a team topic given no hosts.' }),
  ),
};

export const CreateTopicBodySchema = Type.Object({ ...settingsProperties, team: Type.Optional(Nullable(Uuid)) }, { additionalProperties: false });
export type CreateTopicBody = Static<typeof CreateTopicBodySchema>;

export const UpdateTopicBodySchema = Type.Object(
  { ...settingsProperties, name: Type.Optional(settingsProperties.name), durationMinutes: Type.Optional(settingsProperties.durationMinutes) },
  { additionalProperties: false, minProperties: 1 },
);

export const MeetingTopicSchema = Type.Object(
  {
    uuid: Uuid,
    name: Type.String(),
    durationMinutes: Type.Integer({ description: 'The default length.' }),
    durations: Type.Array(Type.Integer(), { description: 'The lengths a participant may choose, ascending; `durationMinutes` among them.' }),
    allowGuests: Type.Boolean({ description: 'A booking may name guests.' }),
    slotIntervalMinutes: Type.Integer(),
    bufferBeforeMinutes: Type.Integer(),
    bufferAfterMinutes: Type.Integer(),
    minimumNoticeMinutes: Type.Integer(),
    bookingWindowDays: Type.Integer(),
    dailyLimit: Nullable(Type.Integer()),
    weeklyLimit: Nullable(Type.Integer()),
    monthlyLimit: Nullable(Type.Integer()),
    schedule: Type.Union([Uuid, Type.Null()], { description: "The host's schedule the topic uses; null: the default hours (`…/availability`)." }),
    hostSchedules: Type.Record(Type.String(), Uuid, { description: 'Team topics: the schedule each host uses here, by username; absent: their default hours.' }),
    places: Type.Array(PlaceSchema),
    phoneRequired: Type.Boolean(),
    requiresApproval: Type.Boolean(),
    approvalDeadlineHours: Type.Integer(),
    seats: Type.Integer({ description: 'Participants per slot; more than one: group meetings.' }),
    hostWeights: Type.Record(Type.String(), Type.Integer(), { description: 'Round-robin weights by username; a host not named weighs 1.' }),
    assignment: StringEnum(ASSIGNMENTS, { description: '`round-robin`: each meeting has one host; `collective` (team topics): each meeting holds every host.' }),
    reminders: Type.Array(ReminderSchema, { description: 'Reminders before each confirmed meeting.' }),
    price: Nullable(MoneySchema),
    priceVariants: Type.Array(
      Type.Object({ uuid: Uuid, name: Type.String(), price: MoneySchema, durationMinutes: Type.Optional(Type.Integer({ description: 'The length this price is for.' })) }),
    ),
    form: Type.Array(
      Type.Object({
        key: Type.String(),
        label: Type.String(),
        required: Type.Boolean(),
        type: StringEnum(FORM_FIELD_TYPES, { description: 'Questions created before types existed read as `text`.' }),
        options: Type.Optional(Type.Array(Type.String(), { description: '`select` and `multiselect` questions: the choices.' })),
        min: Type.Optional(Type.Number({ description: '`number` questions: the smallest answer taken.' })),
        max: Type.Optional(Type.Number({ description: '`number` questions: the largest answer taken.' })),
        showIf: Type.Optional(FormShowIfSchema),
      }),
    ),
    placeDetails: PlaceDetailsRecordSchema,
    description: Type.String({ description: 'Shown on the booking page and in the confirmation.' }),
    confirmationMessage: Type.String({ description: 'Shown after booking: the confirmation page and the participant\'s confirmation e-mail; "" for none.' }),
    translations: TopicTranslationsSchema,
    public: Type.Boolean({ description: 'True: a booking page, bookable without a key.' }),
    slug: Nullable(Type.String({ description: "The booking link's readable last part (`/book/{username}/{slug}`); null: the uuid only." })),
    cancellationNoticeMinutes: Type.Integer({ description: 'A participant may cancel or move up to this long before the start.' }),
    team: Nullable(Uuid),
    hosts: Type.Array(Type.String(), { description: 'Usernames of the active hosts.' }),
    allTeamMembers: Type.Boolean({ description: 'Hosted by whoever is in the team now.' }),
    paid: Type.Boolean({ description: 'True when the topic has a price or price variants: booking needs a gateway.' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'MeetingTopic', title: 'MeetingTopic' },
);

export const MeetingTopicListSchema = Type.Object({ meetingTopics: Type.Array(Type.Ref('MeetingTopic')), nextCursor: NextCursor });
export const MeetingTopicQuerySchema = Type.Object(
  {
    team: Type.Optional(Uuid),
    username: Type.Optional(SingleLine({ minLength: 1, maxLength: 120, description: "A host's username." })),
    ...PageQuery('Topics').properties,
  },
  { additionalProperties: false },
);

/** `GET /meetings/{uuid}/reminders`: each reminder that came due, and what became of it. */
export const MeetingRemindersSchema = Type.Object({
  reminders: Type.Array(
    Type.Object({
      minutesBefore: Type.Integer(),
      channel: StringEnum(REMINDER_CHANNELS),
      to: StringEnum(REMINDER_RECIPIENTS),
      dueAt: Timestamp,
      status: StringEnum(['sent', 'skipped', 'failed'] as const, {
        description:
          '`skipped`: found due only from the start on (not sent late), or an SMS with no phone, to a country the server does not allow, or over its ' +
          'daily limit per number; `failed`: the SMS provider refused it for good.',
      }),
      detail: Nullable(Type.String({ description: 'Why it was skipped or failed, or the SMS provider’s message id.' })),
      recordedAt: Timestamp,
    }),
  ),
});
