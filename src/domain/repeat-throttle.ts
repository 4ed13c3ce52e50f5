/**
 * Which of a run of identical events to report: the first at once, then at most one per
 * `intervalMs`, each with the number held back since the one before. A fault that fails
 * every request (a full disk, a database refusing connections) is then logged once a minute
 * with a count, instead of once per request with a stack each.
 *
 * With a minute: `admit('full', 0)` → 0 (report it), `admit('full', 1_000)` and
 * `admit('full', 30_000)` → null (held back), `admit('full', 61_000)` → 2 (report it: two
 * held back since), `admit('full', 200_000)` → 0 (a run of its own again).
 *
 * Keys live in memory, at most `maxKeys` of them (the least recently reported dropped first),
 * so errors whose messages vary cannot grow it.
 */
export class RepeatThrottle {
  private readonly runs = new Map<string, { reportedAt: number; heldBack: number }>();

  constructor(
    private readonly intervalMs = 60_000,
    private readonly maxKeys = 1_000,
  ) {}

  /** Null: hold this one back. Otherwise report it, with how many were held back since the last report. */
  admit(key: string, now: number): number | null {
    const run = this.runs.get(key);
    if (run && now - run.reportedAt < this.intervalMs) {
      run.heldBack += 1;
      return null;
    }
    // Re-inserted, so the Map's first key is always the least recently reported.
    this.runs.delete(key);
    if (this.runs.size >= this.maxKeys) this.runs.delete(this.runs.keys().next().value!);
    this.runs.set(key, { reportedAt: now, heldBack: 0 });
    return run?.heldBack ?? 0;
  }

  /**
   * Logs `error` this way through `write` (a logger's `error` or `warn`): the first of a run
   * with the error itself (the logger prints its stack), then one line per interval with only
   * its type, code and message and how many more there were. Errors are alike when `message`
   * and their type are, and their code, or without one their message: a code names the
   * condition, while the text varies with details (`could not extend file "base/1/16390"`).
   * `fields` (which job) are logged, not compared.
   */
  logError(write: (fields: Record<string, unknown>, message: string) => void, error: unknown, message: string, now: number, fields: Record<string, unknown> = {}): void {
    const { name, code, message: text } = (error ?? {}) as { name?: unknown; code?: unknown; message?: unknown };
    const heldBack = this.admit(JSON.stringify([message, name, code ?? text]), now);
    if (heldBack === null) return;
    if (heldBack === 0) write({ ...fields, err: error }, message);
    else write({ ...fields, err: { type: name, code, message: text }, repeated: heldBack }, `${message} (${heldBack} more like it since the last line)`);
  }
}
