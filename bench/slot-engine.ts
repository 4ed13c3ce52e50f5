/**
 * The slot engine alone (no HTTP, no database): time to compute one host-month view with
 * 0, 200 and 2,000 busy meetings, and a 50-host team month view (50 calls). Goal: ≤ 0.2 ms
 * per host-month with 200 meetings. Run: npx tsx bench/slot-engine.ts
 */
import { createDefaultAvailability } from '../src/domain/availability.js';
import { computeSlots, type BusyMeeting, type HostCalendar, type SlotRules } from '../src/domain/slots.js';

const rules: SlotRules = {
  topicUuid: 'bench',
  durationMinutes: 30,
  slotIntervalMinutes: 30,
  bufferBeforeMinutes: 5,
  bufferAfterMinutes: 5,
  minimumNoticeMinutes: 60,
  bookingWindowDays: 120,
  dailyLimit: 12,
};
const now = Date.parse('2027-02-20T10:00:00Z');
const query = { now, participantTimezone: 'America/New_York', from: '2027-03-01', to: '2027-03-31' };

/** `count` meetings spread over March (host Europe/Warsaw), some of this topic, some of others. */
function busyMeetings(count: number): BusyMeeting[] {
  const start = Date.parse('2027-03-01T07:00:00Z');
  const span = 31 * 86_400_000;
  return Array.from({ length: count }, (_, i) => {
    const at = start + Math.floor((i * span) / Math.max(count, 1) / 900_000) * 900_000;
    return { start: at, end: at + 30 * 60_000, bufferBeforeMinutes: 10, bufferAfterMinutes: 10, topicUuid: i % 3 === 0 ? 'bench' : 'other' };
  });
}

function host(username: string, meetings: number): HostCalendar {
  return { username, availability: createDefaultAvailability('Europe/Warsaw'), busy: busyMeetings(meetings) };
}

function measure(name: string, iterations: number, run: () => unknown): void {
  for (let i = 0; i < Math.min(200, iterations); i += 1) run(); // warm up the JIT and the offset cache
  const samples: number[] = [];
  for (let i = 0; i < iterations; i += 1) {
    const started = process.hrtime.bigint();
    run();
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  samples.sort((a, b) => a - b);
  const mean = samples.reduce((sum, value) => sum + value, 0) / samples.length;
  const median = samples[Math.floor(samples.length / 2)]!;
  const p99 = samples[Math.floor(samples.length * 0.99)]!;
  console.log(name.padEnd(44), median.toFixed(4).padStart(10), mean.toFixed(4).padStart(10), p99.toFixed(4).padStart(10));
}

console.log(`slot engine, host Europe/Warsaw Mon–Fri 09:00–17:00, participant America/New_York, March 2027 (US DST change inside), Node ${process.version}`);
console.log('case'.padEnd(44), 'median ms'.padStart(10), 'mean ms'.padStart(10), 'p99 ms'.padStart(10));
for (const meetings of [0, 200, 2000]) {
  const calendar = host('anna', meetings);
  const slots = computeSlots(calendar, rules, query).reduce((sum, day) => sum + day.slots.length, 0);
  measure(`host-month, ${meetings} meetings (${slots} slots)`, 3000, () => computeSlots(calendar, rules, query));
}
const team = Array.from({ length: 50 }, (_, i) => host(`host-${i}`, 200));
measure('team month view, 50 hosts × 200 meetings', 200, () => team.map((member) => computeSlots(member, rules, query)));
