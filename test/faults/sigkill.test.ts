import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../helpers.js';
import { book, createBookingFixture, freeSlots, missingMeetings, type BookingOutcome } from './booking.js';
import { startServer } from '../process.js';

/**
 * SIGKILL in the middle of booking traffic: nothing runs on the way out, so only what the
 * database committed before the 201 was sent survives. Every acknowledged booking must.
 */
describe('SIGKILL mid-booking', () => {
  for (const dialect of DIALECTS) {
    it(`loses no acknowledged booking (${dialect})`, async () => {
      const fixture = await createBookingFixture(dialect);
      try {
        const server = await startServer(fixture.serverEnv);
        const slots = await freeSlots(server.url, fixture, 120);
        const outcomes: BookingOutcome[] = [];
        let next = 0;
        let killed = false;
        await Promise.all(
          Array.from({ length: 8 }, async () => {
            while (next < slots.length && !killed) {
              const i = next++;
              const outcome = await book(server.url, fixture, slots[i]!, i);
              outcomes.push(outcome);
              // Kill once some bookings are acknowledged, with others in flight.
              if (!killed && outcomes.filter((o) => o.status === 201).length >= 15) {
                killed = true;
                server.child.kill('SIGKILL');
              }
            }
          }),
        );
        expect(await server.exited).toBe('SIGKILL');
        const acknowledged = outcomes.flatMap((outcome) => outcome.meetingUuids);
        expect(acknowledged.length).toBeGreaterThanOrEqual(15);
        expect(outcomes.every((outcome) => outcome.status === 201 || outcome.status === 'network-error')).toBe(true);
        expect(await missingMeetings(fixture, acknowledged)).toEqual([]);
      } finally {
        await fixture.close();
      }
    }, 60_000);
  }
});
