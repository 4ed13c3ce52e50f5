/** Lets the event loop run what is waiting (requests, timers, I/O) before going on. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Runs `work` on `items` `size` at a time, letting the event loop run between chunks. On SQLite
 * every statement runs synchronously on the event loop, so the tens of thousands of rows of a
 * big calendar written in one go held every other request up for all of it (a sync of 25 000
 * events: half a second); a chunk of a few hundred rows takes a few milliseconds. Chunks also
 * keep each statement's parameters well inside both databases' limits (SQLite 32 766,
 * PostgreSQL 65 535).
 */
export async function inChunks<T>(items: readonly T[], size: number, work: (chunk: T[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += size) {
    if (i > 0) await yieldToEventLoop();
    await work(items.slice(i, i + size));
  }
}
