/**
 * Compiling every route's request validators and response serializers (Ajv and
 * fast-json-stringify) took most of a start-up: 1.4 s and 1.8 s of CPU on this machine,
 * before /healthz could answer. Each is compiled on its route's first use instead, and the
 * ones still waiting are compiled by `warmUp()` in the background once the server listens,
 * a few at a time between requests. A schema that cannot compile still fails: at that first
 * use, or in the warm-up's log line, and the test suite compiles every route.
 */
export interface DeferredCompiles {
  /** A function that builds `make()` the first time it is called, then calls it. */
  defer<F extends (...args: never[]) => unknown>(make: () => F): F;
  /** Compiles everything still deferred, yielding to the event loop between each; resolves with how many. */
  warmUp(onError: (error: unknown) => void): Promise<number>;
}

export function createDeferredCompiles(): DeferredCompiles {
  const waiting = new Set<() => unknown>();
  return {
    defer<F extends (...args: never[]) => unknown>(make: () => F): F {
      let compiled: F | undefined;
      const build = (): F => {
        waiting.delete(build);
        compiled ??= make();
        return compiled;
      };
      waiting.add(build);
      const run = (...args: Parameters<F>) => {
        const target = compiled ?? build();
        const result = target(...args);
        // Ajv reports through the function's `errors`, which Fastify reads from what it was given.
        if ('errors' in target) (run as unknown as { errors: unknown }).errors = (target as unknown as { errors: unknown }).errors;
        return result;
      };
      return run as unknown as F;
    },
    async warmUp(onError) {
      let count = 0;
      for (const build of [...waiting]) {
        await new Promise((resolve) => setImmediate(resolve));
        try {
          build();
          count += 1;
        } catch (error) {
          waiting.delete(build);
          onError(error);
        }
      }
      return count;
    },
  };
}
