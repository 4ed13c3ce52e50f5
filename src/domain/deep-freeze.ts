/**
 * Freezes `value` and everything inside it, for objects that several holders share (the
 * configuration, remembered database answers, kept request bodies), so that none can change
 * another's. A part already frozen is taken as frozen through: freezing a tree twice costs
 * nothing the second time.
 */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  for (const inner of Object.values(value)) deepFreeze(inner);
  return Object.freeze(value);
}
