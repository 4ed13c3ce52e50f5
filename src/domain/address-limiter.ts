/**
 * Counts what each client address does in fixed one-minute windows, in memory (per
 * instance): failed authentications (checked before any key lookup, so a client cycling
 * through made-up keys costs one map lookup per request, not a database query), or bookings
 * through the public page. An address at the limit is refused until its window ends. The
 * map is bounded: expired windows are swept, and past `maxAddresses` the oldest go first.
 *
 * With 2 a minute: `record(a, 0)`, `record(a, 10_000)` → `blockedFor(a, 20_000)` is 40 (s);
 * `blockedFor(a, 60_000)` is 0 (a new window).
 */
export class AddressLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    readonly perMinute: number,
    private readonly maxAddresses = 10_000,
    private readonly windowMs = 60_000,
  ) {}

  /** Seconds until `address` may act again; 0 when it may act now. */
  blockedFor(address: string, now: number): number {
    const window = this.windows.get(address);
    if (!window || now - window.start >= this.windowMs) return 0;
    if (window.count < this.perMinute) return 0;
    return Math.max(1, Math.ceil((window.start + this.windowMs - now) / 1000));
  }

  record(address: string, now: number): void {
    const window = this.windows.get(address);
    if (window && now - window.start < this.windowMs) {
      window.count += 1;
      return;
    }
    this.windows.delete(address);
    if (this.windows.size >= this.maxAddresses) this.evict(now);
    this.windows.set(address, { start: now, count: 1 });
  }

  private evict(now: number): void {
    for (const [address, window] of this.windows) {
      if (now - window.start >= this.windowMs) this.windows.delete(address);
    }
    // Insertion order is window-start order: drop the oldest until there is room.
    for (const address of this.windows.keys()) {
      if (this.windows.size < this.maxAddresses) break;
      this.windows.delete(address);
    }
  }
}

/** A limiter of `perMinute`, or null when the operator turned it off (0). */
export function createAddressLimiter(perMinute: number): AddressLimiter | null {
  return perMinute > 0 ? new AddressLimiter(perMinute) : null;
}
