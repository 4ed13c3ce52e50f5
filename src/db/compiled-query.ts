import { CompiledQuery, type Compilable, type QueryResult } from 'kysely';
import type { DbOrTrx } from './database.js';

/** Where a parameter's value comes from: an argument, or one key of an object argument. */
class Slot {
  constructor(
    readonly index: number,
    readonly key: string | null,
  ) {}
}

type Build<A extends unknown[], O> = (db: DbOrTrx, ...args: A) => Compilable<O>;

/**
 * A query of fixed shape, built with Kysely and compiled once per dialect and argument shape,
 * then run with each call's values. On a booking, building and compiling its queries cost
 * about a fifth of the server's CPU (bench/bookings.ts profiles), for SQL text that never
 * changes. Arguments are scalars or flat objects of scalars (a row to insert): `build` is
 * first run with stand-ins and must only pass them on to Kysely as values, never look at
 * them (a branch on an argument would be taken once for all calls). The stand-ins must all
 * reach the SQL as parameters; a build that drops or inspects one is refused at once.
 *
 *   const findName = compileOnce((db, id: string) => db.selectFrom('users').select('username').where('id', '=', id));
 *   const { rows } = await findName(trx, userUuid);
 */
export function compileOnce<A extends unknown[], O>(build: Build<A, O>): (db: DbOrTrx, ...args: A) => Promise<QueryResult<O>> {
  const compiled = new Map<string, CompiledQuery<O>>();
  return async (db, ...args) => {
    const key = shapeKey(db, args);
    let query = compiled.get(key);
    if (query === undefined) {
      query = compileWithSlots(db, build, args);
      compiled.set(key, query);
    }
    const parameters = query.parameters.map((parameter) => (parameter instanceof Slot ? argumentOf(parameter, args) : parameter));
    return db.executeQuery<O>(CompiledQuery.raw(query.sql, parameters) as CompiledQuery<O>);
  };
}

/** The dialect (its adapter class) and, for object arguments, their keys in order. */
function shapeKey(db: DbOrTrx, args: readonly unknown[]): string {
  let key = db.getExecutor().adapter.constructor.name;
  for (const arg of args) key += isRow(arg) ? `|{${definedKeys(arg).join(',')}}` : '|_';
  return key;
}

function compileWithSlots<A extends unknown[], O>(db: DbOrTrx, build: Build<A, O>, args: A): CompiledQuery<O> {
  const stand = args.map((arg, index) => (isRow(arg) ? Object.fromEntries(definedKeys(arg).map((key) => [key, new Slot(index, key)])) : new Slot(index, null))) as A;
  const query = build(db, ...stand).compile();
  const used = new Set(query.parameters.filter((parameter): parameter is Slot => parameter instanceof Slot).map((slot) => `${slot.index}.${slot.key}`));
  stand.forEach((arg, index) => {
    const expected = arg instanceof Slot ? [`${index}.null`] : Object.keys(arg as object).map((key) => `${index}.${key}`);
    for (const name of expected) {
      if (!used.has(name)) throw new Error(`compileOnce: argument ${name} did not reach the query as a parameter (a build must not inspect its arguments)`);
    }
  });
  return query;
}

function argumentOf(slot: Slot, args: readonly unknown[]): unknown {
  const arg = args[slot.index];
  return slot.key === null ? arg : (arg as Record<string, unknown>)[slot.key];
}

/** A row's keys whose value is not undefined: Kysely leaves undefined columns out of an insert. */
function definedKeys(row: Record<string, unknown>): string[] {
  return Object.keys(row).filter((key) => row[key] !== undefined);
}

function isRow(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
}

/** Whether a compiled UPDATE or DELETE (see compileOnce) changed any row. */
export function changedAny(result: QueryResult<unknown>): boolean {
  return (result.numAffectedRows ?? 0n) > 0n;
}
