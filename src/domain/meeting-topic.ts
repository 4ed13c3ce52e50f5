import type { Place } from './account.js';
import { NotFoundError, ValidationError, type FieldError } from './errors.js';
import { normalizeFormFields, validateFormFields, type FormField, type FormFieldInput } from './form.js';
import { isIso4217Currency } from './money.js';
import { keepOfferedPlaces, normalizePlaceDetails, validatePlaceDetails, type PlaceDetails } from './place-details.js';
import type { Reminder } from './reminders.js';
import type { SlotRuleSettings } from './slots.js';
import { slugProblem } from './user.js';
import { checkConfirmationMessage, validateTopicTranslations, type TopicTranslations } from './topic-translations.js';

export type { FormField } from './form.js';

/** Money in minor units of an ISO 4217 currency: `{ amount: 15000, currency: 'PLN' }` is 150.00 zł. */
export interface Money {
  amount: number;
  currency: string;
}

export interface PriceVariant {
  uuid: string;
  name: string;
  price: Money;
  /** The price of one length of a topic with several `durations`: chosen with that length. */
  durationMinutes?: number;
}

/** Everything about a topic that its creator chooses (the API's request shape, defaults filled). */
export interface TopicSettings extends SlotRuleSettings {
  /** The lengths a participant may choose, ascending, `durationMinutes` (the default) among them. */
  durations: number[];
  /** A booking may name guests (`guests`), who get the invitation and its updates. */
  allowGuests: boolean;
  weeklyLimit: number | null;
  monthlyLimit: number | null;
  /** An individual topic's choice of its host's schedule (uuid); null: the default hours. */
  schedule: string | null;
  /** A team topic's choice per host: `{ username: scheduleUuid }`; a host left out keeps the default hours. */
  hostSchedules: Readonly<Record<string, string>>;
  name: string;
  places: Place[];
  phoneRequired: boolean;
  price: Money | null;
  priceVariants: PriceVariant[];
  form: FormField[];
  /** Per offered place, what the participant needs: an address (offline), a room link (online places). */
  placeDetails: PlaceDetails;
  /** Shown on the booking page and in the confirmation; "" for none. */
  description: string;
  /** Plain text shown after booking: the confirmation page and the participant's confirmation e-mail; "" for none. */
  confirmationMessage: string;
  /** The topic's words in other languages (topic-translations.ts); what is missing falls back to the topic's own. */
  translations: TopicTranslations;
  /** A booking page, bookable without a key (POST /public/schedule). */
  public: boolean;
  /** The booking link's readable last part (`/book/anna/intro-call`), unique among its hosts' and team's topics; null: the uuid only. */
  slug: string | null;
  /** A participant may cancel or move the meeting (manage link) up to this long before its start. */
  cancellationNoticeMinutes: number;
  /** Bookings are requests (`pending_approval`, holding the slot) until the host approves or declines. */
  requiresApproval: boolean;
  /** A request not decided this many hours after booking (or by the start, if sooner) is declined. */
  approvalDeadlineHours: number;
  /** Participants per slot: more than one makes each slot a group meeting (see seats.ts). */
  seats: number;
  /** Round-robin team topics: each host's share of meetings, by username; a host not named weighs 1. */
  hostWeights: Record<string, number>;
  /**
   * Team topics: `round-robin` gives each meeting to one free host; `collective` needs every
   * host, so a slot is offered only when all are free and the meeting holds them all.
   */
  assignment: Assignment;
  /** Reminders before each confirmed meeting (e-mail or SMS, to the participant or the host), at most 5. */
  reminders: Reminder[];
}

export const ASSIGNMENTS = ['round-robin', 'collective'] as const;
export type Assignment = (typeof ASSIGNMENTS)[number];

export interface TopicHost {
  uuid: string;
  username: string;
  /** The host's calendar version when read with the topic (for cached schedules). */
  calendarVersion?: number;
}

export interface MeetingTopic extends TopicSettings {
  uuid: string;
  accountUuid: string;
  teamUuid: string | null;
  createdBy: string;
  /** Active hosts in the order given (deactivated users no longer appear as hosts). */
  hosts: TopicHost[];
  /** A team topic hosted by every current member of its team, newcomers included. */
  allTeamMembers: boolean;
  createdAt: number;
  updatedAt: number;
}

/** What a create or update request may say; omitted fields keep defaults (create) or current values (update). */
export type TopicSettingsInput = { [Field in keyof SlotRuleSettings]?: SlotRuleSettings[Field] | undefined } & {
  name?: string | undefined;
  places?: Place[] | undefined;
  phoneRequired?: boolean | undefined;
  price?: Money | null | undefined;
  priceVariants?: { uuid?: string | undefined; name: string; price: Money; durationMinutes?: number | undefined }[] | undefined;
  durations?: number[] | undefined;
  allowGuests?: boolean | undefined;
  form?: FormFieldInput[] | undefined;
  placeDetails?: Readonly<Record<string, string | undefined>> | undefined;
  description?: string | undefined;
  confirmationMessage?: string | undefined;
  translations?: TopicTranslations | undefined;
  public?: boolean | undefined;
  slug?: string | null | undefined;
  cancellationNoticeMinutes?: number | undefined;
  requiresApproval?: boolean | undefined;
  approvalDeadlineHours?: number | undefined;
  hostWeights?: Record<string, number> | undefined;
  assignment?: Assignment | undefined;
  reminders?: Reminder[] | undefined;
};

export const TOPIC_LIMITS = {
  durationMinutes: [5, 720],
  durations: [1, 6],
  slotIntervalMinutes: [5, 720],
  bufferMinutes: [0, 720],
  minimumNoticeMinutes: [0, 525_600],
  bookingWindowDays: [1, 730],
  dailyLimit: [1, 100],
  weeklyLimit: [1, 500],
  monthlyLimit: [1, 2000],
  cancellationNoticeMinutes: [0, 525_600],
  approvalDeadlineHours: [1, 720],
  seats: [1, 1000],
  hostWeight: [1, 100],
} as const;

/** A topic with a price or any price variants is paid: booking it needs a gateway. */
export function isPaidTopic(topic: Pick<TopicSettings, 'price' | 'priceVariants'>): boolean {
  return topic.price !== null || topic.priceVariants.length > 0;
}

/**
 * Fills a create request's omitted fields with the documented defaults, or an update's with
 * the current values: `resolveTopicSettings({ name: 'Intro', durationMinutes: 45 }, undefined, ['offline'], newId)`
 * gives a 45-minute topic on a 45-minute grid, no buffers, a 60-day window, offered offline.
 * Without `places` a new topic is offered at every place the account enables.
 * `newUuid` names new price variants; variants that come with a known uuid keep it.
 */
export function resolveTopicSettings(input: TopicSettingsInput, current: TopicSettings | undefined, defaultPlaces: Place[], newUuid: () => string): TopicSettings {
  const durationMinutes = input.durationMinutes ?? current?.durationMinutes ?? 30;
  const knownVariants = new Set(current?.priceVariants.map((variant) => variant.uuid) ?? []);
  // A topic of one length follows a changed durationMinutes; one with a choice keeps it (validated).
  const durations = input.durations ? [...new Set(input.durations)].sort((a, b) => a - b) : current && current.durations.length > 1 ? current.durations : [durationMinutes];
  return {
    name: (input.name ?? current?.name ?? '').trim(),
    durationMinutes,
    durations,
    allowGuests: input.allowGuests ?? current?.allowGuests ?? false,
    // On update, a changed duration does not drag a custom interval along, but a create's default follows the duration.
    slotIntervalMinutes: input.slotIntervalMinutes ?? current?.slotIntervalMinutes ?? durationMinutes,
    bufferBeforeMinutes: input.bufferBeforeMinutes ?? current?.bufferBeforeMinutes ?? 0,
    bufferAfterMinutes: input.bufferAfterMinutes ?? current?.bufferAfterMinutes ?? 0,
    minimumNoticeMinutes: input.minimumNoticeMinutes ?? current?.minimumNoticeMinutes ?? 0,
    bookingWindowDays: input.bookingWindowDays ?? current?.bookingWindowDays ?? 60,
    dailyLimit: input.dailyLimit !== undefined ? input.dailyLimit : (current?.dailyLimit ?? null),
    weeklyLimit: input.weeklyLimit !== undefined ? input.weeklyLimit : (current?.weeklyLimit ?? null),
    monthlyLimit: input.monthlyLimit !== undefined ? input.monthlyLimit : (current?.monthlyLimit ?? null),
    schedule: input.schedule !== undefined ? input.schedule : (current?.schedule ?? null),
    hostSchedules: input.hostSchedules ? { ...input.hostSchedules } : (current?.hostSchedules ?? {}),
    places: input.places ? [...new Set(input.places)] : (current?.places ?? [...defaultPlaces]),
    phoneRequired: input.phoneRequired ?? current?.phoneRequired ?? false,
    price: input.price !== undefined ? input.price : (current?.price ?? null),
    priceVariants: input.priceVariants
      ? input.priceVariants.map((variant) => ({
          uuid: variant.uuid !== undefined && knownVariants.has(variant.uuid) ? variant.uuid : newUuid(),
          name: variant.name.trim(),
          price: variant.price,
          ...(variant.durationMinutes !== undefined ? { durationMinutes: variant.durationMinutes } : {}),
        }))
      : (current?.priceVariants ?? []),
    form: input.form ? normalizeFormFields(input.form) : (current?.form ?? []),
    // Details for places no longer offered are dropped, unless the request names them (then refused).
    placeDetails: input.placeDetails
      ? normalizePlaceDetails(input.placeDetails)
      : keepOfferedPlaces(current?.placeDetails ?? {}, input.places ? [...new Set(input.places)] : (current?.places ?? [...defaultPlaces])),
    description: input.description !== undefined ? input.description.trim() : (current?.description ?? ''),
    confirmationMessage: input.confirmationMessage !== undefined ? input.confirmationMessage.trim() : (current?.confirmationMessage ?? ''),
    translations: input.translations !== undefined ? structuredClone(input.translations) : (current?.translations ?? {}),
    public: input.public ?? current?.public ?? false,
    // An empty slug (a cleared form field) is none.
    slug: input.slug !== undefined ? input.slug?.trim() || null : (current?.slug ?? null),
    cancellationNoticeMinutes: input.cancellationNoticeMinutes ?? current?.cancellationNoticeMinutes ?? 0,
    requiresApproval: input.requiresApproval ?? current?.requiresApproval ?? false,
    approvalDeadlineHours: input.approvalDeadlineHours ?? current?.approvalDeadlineHours ?? 24,
    seats: input.seats ?? current?.seats ?? 1,
    hostWeights: input.hostWeights ? { ...input.hostWeights } : (current?.hostWeights ?? {}),
    assignment: input.assignment ?? current?.assignment ?? 'round-robin',
    reminders: input.reminders ? input.reminders.map(({ minutesBefore, channel, to }) => ({ minutesBefore, channel, to })) : (current?.reminders ?? []),
  };
}

/** Rules the JSON schema cannot express; paths point at the request fields. */
export function validateTopicSettings(settings: TopicSettings, accountPlaces: readonly Place[]): FieldError[] {
  const errors: FieldError[] = [];
  const range = (path: string, value: number, [min, max]: readonly [number, number]) => {
    if (!Number.isInteger(value) || value < min || value > max) errors.push({ path, message: `must be an integer from ${min} to ${max}` });
  };
  if (settings.name === '') errors.push({ path: '/name', message: 'must not be empty' });
  const slug = settings.slug === null ? null : slugProblem(settings.slug);
  if (slug !== null) errors.push({ path: '/slug', message: slug });
  range('/durationMinutes', settings.durationMinutes, TOPIC_LIMITS.durationMinutes);
  if (settings.durations.length < TOPIC_LIMITS.durations[0] || settings.durations.length > TOPIC_LIMITS.durations[1]) {
    errors.push({ path: '/durations', message: `must list ${TOPIC_LIMITS.durations[0]} to ${TOPIC_LIMITS.durations[1]} lengths` });
  }
  for (const [index, duration] of settings.durations.entries()) range(`/durations/${index}`, duration, TOPIC_LIMITS.durationMinutes);
  if (!settings.durations.includes(settings.durationMinutes))
    errors.push({ path: '/durations', message: `must include durationMinutes (${settings.durationMinutes}), the default length` });
  range('/slotIntervalMinutes', settings.slotIntervalMinutes, TOPIC_LIMITS.slotIntervalMinutes);
  range('/bufferBeforeMinutes', settings.bufferBeforeMinutes, TOPIC_LIMITS.bufferMinutes);
  range('/bufferAfterMinutes', settings.bufferAfterMinutes, TOPIC_LIMITS.bufferMinutes);
  range('/minimumNoticeMinutes', settings.minimumNoticeMinutes, TOPIC_LIMITS.minimumNoticeMinutes);
  range('/bookingWindowDays', settings.bookingWindowDays, TOPIC_LIMITS.bookingWindowDays);
  if (settings.dailyLimit !== null) range('/dailyLimit', settings.dailyLimit, TOPIC_LIMITS.dailyLimit);
  if (settings.weeklyLimit !== null) range('/weeklyLimit', settings.weeklyLimit, TOPIC_LIMITS.weeklyLimit);
  if (settings.monthlyLimit !== null) range('/monthlyLimit', settings.monthlyLimit, TOPIC_LIMITS.monthlyLimit);
  range('/cancellationNoticeMinutes', settings.cancellationNoticeMinutes, TOPIC_LIMITS.cancellationNoticeMinutes);
  range('/approvalDeadlineHours', settings.approvalDeadlineHours, TOPIC_LIMITS.approvalDeadlineHours);
  range('/seats', settings.seats, TOPIC_LIMITS.seats);
  for (const [username, weight] of Object.entries(settings.hostWeights)) {
    range(`/hostWeights/${username.replaceAll('~', '~0').replaceAll('/', '~1')}`, weight, TOPIC_LIMITS.hostWeight);
  }
  if (settings.places.length === 0) errors.push({ path: '/places', message: 'must offer at least one place' });
  settings.places.forEach((place, index) => {
    if (!accountPlaces.includes(place)) errors.push({ path: `/places/${index}`, message: `is not enabled for the account (enabled: ${accountPlaces.join(', ')})` });
  });
  if (settings.price) validateMoney(settings.price, '/price', errors);
  const variantNames = new Set<string>();
  settings.priceVariants.forEach((variant, index) => {
    if (variant.name === '') errors.push({ path: `/priceVariants/${index}/name`, message: 'must not be empty' });
    if (variantNames.has(variant.name.toLowerCase())) errors.push({ path: `/priceVariants/${index}/name`, message: 'duplicates an earlier variant' });
    variantNames.add(variant.name.toLowerCase());
    validateMoney(variant.price, `/priceVariants/${index}/price`, errors);
    if (variant.durationMinutes !== undefined && !settings.durations.includes(variant.durationMinutes)) {
      errors.push({ path: `/priceVariants/${index}/durationMinutes`, message: `must be one of the topic's durations (${settings.durations.join(', ')})` });
    }
  });
  const currencies = new Set([settings.price, ...settings.priceVariants.map((v) => v.price)].filter((m): m is Money => m !== null).map((m) => m.currency));
  if (currencies.size > 1) errors.push({ path: '/priceVariants', message: 'must use the same currency as the price' });
  errors.push(...validateFormFields(settings.form));
  errors.push(...checkConfirmationMessage(settings.confirmationMessage, '/confirmationMessage'));
  errors.push(...validateTopicTranslations(settings.translations, settings.form));
  errors.push(...validatePlaceDetails(settings.placeDetails, settings.places, '/placeDetails', 'is not a place the topic offers'));
  return errors;
}

function validateMoney(money: Money, path: string, errors: FieldError[]): void {
  if (!Number.isInteger(money.amount) || money.amount < 0) errors.push({ path: `${path}/amount`, message: 'must be a non-negative integer in minor units' });
  // The active codes of ISO 4217 only (money.ts): a price in ZZZ could never be paid, and its decimals would be a guess.
  if (!/^[A-Z]{3}$/.test(money.currency) || !isIso4217Currency(money.currency)) {
    errors.push({ path: `${path}/currency`, message: 'must be an active ISO 4217 currency code such as PLN or EUR' });
  }
}

/**
 * A request's `hostWeights` against the topic's hosts: weights are for team topics, and
 * name only their hosts (a typo would otherwise weigh nobody, silently). Ranges are
 * checked with the other settings (validateTopicSettings).
 * `checkHostWeights({ anna: 3 }, null, ['anna'])` → `[{ path: '/hostWeights', message: 'is only for team topics' }]`.
 */
export function checkHostWeights(weights: Record<string, number> | undefined, teamUuid: string | null, hostUsernames: readonly string[]): FieldError[] {
  if (weights === undefined || Object.keys(weights).length === 0) return [];
  if (teamUuid === null) return [{ path: '/hostWeights', message: 'is only for team topics' }];
  const hosts = new Set(hostUsernames);
  return Object.keys(weights)
    .filter((username) => !hosts.has(username))
    .map((username) => ({ path: `/hostWeights/${username.replaceAll('~', '~0').replaceAll('/', '~1')}`, message: 'is not a host of the topic' }));
}

/**
 * A topic's `assignment` against its kind: only a team topic can need all of its hosts at
 * once (an individual topic's hosts are each booked alone), and a collective slot takes one
 * participant (a group's one host invitation per slot has no form for several hosts yet).
 * `checkAssignment({ assignment: 'collective', seats: 1 }, null)` → `[{ path: '/assignment', message: 'collective is only for team topics' }]`.
 */
export function checkAssignment(settings: Pick<TopicSettings, 'assignment' | 'seats'>, teamUuid: string | null): FieldError[] {
  if (settings.assignment !== 'collective') return [];
  if (teamUuid === null) return [{ path: '/assignment', message: 'collective is only for team topics' }];
  if (settings.seats > 1) return [{ path: '/seats', message: 'must be 1 for a collective topic' }];
  return [];
}

/**
 * The topic as booked for one of its lengths: every rule that reads `durationMinutes` (slots,
 * buffers, limits, seats, explanations) then applies to the chosen length. Undefined: the
 * default length. `topicForDuration({ durationMinutes: 30, durations: [30, 60] }, 60)` → `{ durationMinutes: 60, … }`;
 * 45 throws a ValidationError at `/duration`.
 */
export function topicForDuration<T extends Pick<TopicSettings, 'durationMinutes' | 'durations'>>(topic: T, duration: number | undefined): T {
  if (duration === undefined || duration === topic.durationMinutes) return topic;
  if (!topic.durations.includes(duration)) throw new ValidationError([{ path: '/duration', message: `must be one of the topic's durations (${topic.durations.join(', ')})` }]);
  return { ...topic, durationMinutes: duration };
}

/** A collective topic's meetings hold every host of the topic. */
export function isCollective(topic: Pick<MeetingTopic, 'assignment' | 'teamUuid'>): boolean {
  return topic.assignment === 'collective' && topic.teamUuid !== null;
}

/**
 * A scheduling request's `team` against the topic: required (and equal) for a team topic.
 * It matters only for team meetings; an individual topic ignores it, so a client
 * that always sends its team is not refused. Calculation and booking share this rule.
 */
export function checkTopicTeam(topic: Pick<MeetingTopic, 'teamUuid'>, team: string | undefined): void {
  if (topic.teamUuid === null) return;
  if (team === undefined) throw new ValidationError([{ path: '/team', message: 'is required: the meeting topic belongs to a team' }]);
  if (team !== topic.teamUuid) throw new NotFoundError('team');
}

/** The topic's active host with that username; 404 names where the username came from. */
export function findTopicHost(topic: Pick<MeetingTopic, 'hosts'>, username: string, path: string): TopicHost {
  const host = topic.hosts.find((candidate) => candidate.username === username);
  if (!host) throw new NotFoundError(`host "${username}" of this meeting topic (${path})`);
  return host;
}
