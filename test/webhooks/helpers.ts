import { Webhook } from 'standardwebhooks';
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { call } from '../helpers.js';

/** The string headers of a received request, as `Webhook.verify` takes them. */
export function stringHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (typeof value === 'string') out[name] = value;
  return out;
}

/** The first free slot of a topic from now on, as POST /calculate-schedule offers it. */
export async function firstFreeSlots(app: FastifyInstance, username: string, topicUuid: string, count = 1): Promise<{ start: string; username: string }[]> {
  const slots: { start: string; username: string }[] = [];
  for (let offset = 0; offset < 70 && slots.length < count; offset += 7) {
    const schedule = await call(app, null, 'POST', '/api/v1/calculate-schedule', { username, meetingTopic: topicUuid, timezone: 'Europe/Warsaw', offset });
    if (schedule.statusCode !== 200) throw new Error(`calculate-schedule: ${schedule.statusCode} ${schedule.body}`);
    for (const day of (schedule.json() as { days: { slots: { start: string; username: string }[] }[] }).days) slots.push(...day.slots);
  }
  if (slots.length < count) throw new Error('no free slots');
  return slots.slice(0, count);
}

export function bookingBody(topicUuid: string, slot: { start: string; username: string }, i = 0) {
  return { dates: [slot], email: `jan${i}@example.com`, lang: 'pl', name: `Jan Kowalski ${i}`, place: 'zoom', meetingTopic: topicUuid, timezone: 'Europe/Warsaw' };
}

/** Polls until `check` gives a value (for state another process or a timer produces), or fails after `ms`. */
export async function eventually<T>(check: () => Promise<T | undefined | null | false>, ms = 20_000, what = 'the condition'): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * `Webhook.verify` as a receiver whose clock agrees with the service's: the test clock is
 * years ahead, and the library refuses timestamps more than 5 minutes from its own now.
 */
export function verifyAt(now: number, secret: string, body: string, headers: Record<string, string>): unknown {
  const realNow = Date.now;
  Date.now = () => now;
  try {
    return new Webhook(secret).verify(body, headers);
  } finally {
    Date.now = realNow;
  }
}
