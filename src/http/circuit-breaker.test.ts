import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from './circuit-breaker.js';

function breaker() {
  let now = 0;
  const events: string[] = [];
  const subject = new CircuitBreaker({ failuresToOpen: 3, coolDownMs: 30_000 }, () => now, {
    opened: (error, failures, coolDownMs) => events.push(`opened ${(error as Error).message} after ${failures}, ${coolDownMs / 1000} s`),
    closed: () => events.push('closed'),
  });
  return {
    subject,
    events,
    at(ms: number) {
      now = ms;
    },
    fail(times = 1) {
      for (let i = 0; i < times; i += 1) subject.attempt()!(new Error('timed out'));
    },
  };
}

describe('CircuitBreaker', () => {
  it('opens after 3 failures in a row, once, and lets nothing through during the cool-down', () => {
    const b = breaker();
    b.fail(2);
    expect(b.subject.state).toBe('closed');
    b.fail();
    expect(b.subject.state).toBe('open');
    expect(b.events).toEqual(['opened timed out after 3, 30 s']);
    b.at(29_999);
    expect(b.subject.attempt()).toBeNull();
  });

  it('counts failures in a row only: a success between starts the count again', () => {
    const b = breaker();
    b.fail(2);
    b.subject.attempt()!();
    b.fail(2);
    expect(b.subject.state).toBe('closed');
  });

  it('after the cool-down lets one trial through; a success closes it', () => {
    const b = breaker();
    b.fail(3);
    b.at(30_000);
    const trial = b.subject.attempt();
    expect(trial).not.toBeNull();
    expect(b.subject.state).toBe('half-open');
    expect(b.subject.attempt()).toBeNull();
    trial!();
    expect(b.subject.state).toBe('closed');
    expect(b.events).toEqual(['opened timed out after 3, 30 s', 'closed']);
    expect(b.subject.attempt()).not.toBeNull();
  });

  it('a failed trial opens it for another cool-down, without a second "opened"', () => {
    const b = breaker();
    b.fail(3);
    b.at(30_000);
    b.subject.attempt()!(new Error('timed out'));
    expect(b.subject.state).toBe('open');
    b.at(59_999);
    expect(b.subject.attempt()).toBeNull();
    b.at(60_000);
    expect(b.subject.attempt()).not.toBeNull();
    expect(b.events).toHaveLength(1);
  });

  it('ignores late outcomes of calls let through before it opened', () => {
    const b = breaker();
    const late = [b.subject.attempt()!, b.subject.attempt()!];
    b.fail(3);
    late[0]!();
    expect(b.subject.state).toBe('open');
    late[1]!(new Error('timed out'));
    b.at(30_000);
    expect(b.subject.attempt()).not.toBeNull();
    expect(b.events).toHaveLength(1);
  });

  it('starts a new trial when the last one never reported within a cool-down', () => {
    const b = breaker();
    b.fail(3);
    b.at(30_000);
    const lost = b.subject.attempt()!;
    b.at(59_999);
    expect(b.subject.attempt()).toBeNull();
    b.at(60_000);
    const next = b.subject.attempt();
    expect(next).not.toBeNull();
    lost();
    expect(b.subject.state).toBe('half-open');
    next!();
    expect(b.subject.state).toBe('closed');
  });
});
