import { expect } from 'vitest';
import type { GatewayCredentials } from '../../src/payments/gateway.js';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { call, createTestAccount, type TestApp } from '../helpers.js';

/**
 * What the payment failure-path suites each set up: an account of its own with one gateway
 * configured, a paid 30-minute topic, its free slots, and bookings made through the API.
 * A fresh account per test keeps tests independent of each other's bookings and of order.
 */
type Slot = { start: string; username: string };

export interface PaidTopic {
  account: CreatedAccount;
  topic: { uuid: string };
  /** The topic's free slots now, in the host's (UTC) view. */
  offered(): Promise<Slot[]>;
}

export interface PaidBooking {
  email: string;
  meeting: string;
  payment: { uuid: string; expiresAt: string };
}

let participants = 0;

/** A new account with `gateway` configured from a stand-in's credentials, and a 150 PLN topic. */
export async function createPaidTopic(t: TestApp, gateway: string, credentials: GatewayCredentials): Promise<PaidTopic> {
  const account = await createTestAccount(t.ctx, { timezone: 'UTC', places: ['zoom'] });
  const gateways = { [gateway]: { ...credentials.settings, ...credentials.secrets } };
  expect((await call(t.app, account.apiKey, 'PATCH', '/api/v1/account', { gateways })).statusCode).toBe(200);
  const created = await call(t.app, account.apiKey, 'POST', '/api/v1/meeting-topics', {
    name: 'Consultation',
    durationMinutes: 30,
    places: ['zoom'],
    price: { amount: 15000, currency: 'PLN' },
  });
  expect(created.statusCode, created.body).toBe(201);
  const topic = created.json() as { uuid: string };
  const offered = async () => {
    const body = (await call(t.app, null, 'POST', '/api/v1/calculate-schedule', { username: account.owner.username, meetingTopic: topic.uuid, timezone: 'UTC', offset: 0 })).json();
    return (body.days as { slots: Slot[] }[]).flatMap((day) => day.slots);
  };
  return { account, topic, offered };
}

/** Books `slot` of the topic for a new participant, to be paid through `gateway`. */
export async function bookPaid(t: TestApp, paid: PaidTopic, gateway: string, slot: Slot): Promise<PaidBooking> {
  participants += 1;
  const email = `payer${participants}@example.com`;
  const response = await call(t.app, paid.account.apiKey, 'POST', '/api/v1/schedule', {
    dates: [slot],
    email,
    lang: 'en',
    name: `Payer ${participants}`,
    place: 'zoom',
    meetingTopic: paid.topic.uuid,
    timezone: 'UTC',
    gateway,
  });
  expect(response.statusCode, response.body).toBe(201);
  const body = response.json() as { meetings: { uuid: string }[]; payment: { uuid: string; expiresAt: string } };
  return { email, meeting: body.meetings[0]!.uuid, payment: body.payment };
}

/** A new paid topic and a booking of its first free slot. */
export async function bookFirstPaidSlot(t: TestApp, gateway: string, credentials: GatewayCredentials): Promise<PaidBooking & { account: CreatedAccount }> {
  const paid = await createPaidTopic(t, gateway, credentials);
  const slot = (await paid.offered())[0]!;
  return { account: paid.account, ...(await bookPaid(t, paid, gateway, slot)) };
}
