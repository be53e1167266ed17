import type { Compilable, CompiledQuery, DialectAdapter, QueryResult } from 'kysely';
import type { Executor } from './schema.js';

/** Stand-ins the query is built with, one per named value; NUL never reaches a real value (the NUL guard refuses it). */
const MARKER = '\u0000prepared:';

/** A stand-in for each value the first call names: the build may read them one by one or pass them whole (a row). */
function markersOf<P extends object>(values: P): P {
  return Object.fromEntries(Object.keys(values).map((name) => [name, `${MARKER}${name}`])) as P;
}

/** The SQL text of every prepared query, with the name PostgreSQL keeps its parsed statement under per connection. */
const statementNames = new Map<string, string>();

/** The server-side statement name for `sql` when it is a prepared query's (a bounded set), else undefined. */
export function preparedStatementName(sql: string): string | undefined {
  return statementNames.get(sql);
}

/**
 * A query built and compiled once per database instead of on every call: Kysely's building and compiling cost more
 * than a primary-key read. The query is built with a stand-in for each named value; a call binds the real values in
 * their place, so every call must name the same values (a row always has all its columns; undefined is refused). The
 * SQL text is the same each time, so SQLite's driver reuses its prepared statement and PostgreSQL parses and plans it
 * once per connection (a named statement, see `preparedStatementName`).
 */
export class PreparedQuery<P extends object, R> {
  private readonly compiled = new WeakMap<DialectAdapter, { query: CompiledQuery<R>; slots: (keyof P | undefined)[] }>();

  constructor(private readonly build: (db: Executor, values: P) => Compilable<R>) {}

  async execute(db: Executor, values: P): Promise<R[]> {
    return (await this.result(db, values)).rows;
  }

  /** The driver's whole answer: rows, or the number of rows a write changed. */
  result(db: Executor, values: P): Promise<QueryResult<R>> {
    const { query, slots } = this.compiledFor(db, values);
    const parameters = query.parameters.map((constant, i) => {
      const name = slots[i];
      if (name === undefined) return constant;
      const value = (values as Record<keyof P, unknown>)[name];
      if (value === undefined) throw new TypeError(`prepared query: no value for ${String(name)}`);
      return value;
    });
    return db.executeQuery<R>({ ...query, parameters });
  }

  async takeFirst(db: Executor, values: P): Promise<R | undefined> {
    return (await this.execute(db, values))[0];
  }

  private compiledFor(db: Executor, values: P): { query: CompiledQuery<R>; slots: (keyof P | undefined)[] } {
    // One adapter per database: transactions of the same database share it, so they share the compiled query.
    const adapter = db.getExecutor().adapter;
    let entry = this.compiled.get(adapter);
    if (!entry) {
      const query = this.build(db, markersOf(values)).compile();
      const slots = query.parameters.map((p) => (typeof p === 'string' && p.startsWith(MARKER) ? (p.slice(MARKER.length) as keyof P) : undefined));
      entry = { query, slots };
      if (!statementNames.has(query.sql)) statementNames.set(query.sql, `gw_prepared_${statementNames.size + 1}`);
      this.compiled.set(adapter, entry);
    }
    return entry;
  }
}

/** The named values and the list one call of a PreparedList binds, flattened to one record of names. */
type Flat = Record<string, unknown>;

function flatten(values: object, list: readonly unknown[]): Flat {
  const flat: Flat = {};
  for (const [name, value] of Object.entries(values)) flat[`v:${name}`] = value;
  list.forEach((item, i) => {
    if (item !== null && typeof item === 'object') for (const [name, value] of Object.entries(item)) flat[`l:${i}:${name}`] = value;
    else flat[`l:${i}`] = item;
  });
  return flat;
}

/** The values and the list back from a flattened record (of stand-ins, when the query is built). */
function unflatten(flat: Flat): { values: Record<string, unknown>; list: unknown[] } {
  const values: Record<string, unknown> = {};
  const list: unknown[] = [];
  for (const [key, value] of Object.entries(flat)) {
    const [kind, a, b] = key.split(':') as [string, string, string | undefined];
    if (kind === 'v') values[a] = value;
    else if (b === undefined) list[Number(a)] = value;
    else ((list[Number(a)] ??= {}) as Record<string, unknown>)[b] = value;
  }
  return { values, list };
}

/**
 * A query over a list (an `in` list of keys, a multi-row insert) compiled once per list length, up to `maxLength`: each
 * length has its own SQL text, so each is a PreparedQuery of its own (a bounded set of statements). A longer list is
 * built per call. The list's items are values or rows (every row with the same columns).
 */
export class PreparedList<P extends object, T, R> {
  private readonly byLength = new Map<number, PreparedQuery<Flat, R>>();

  constructor(
    private readonly build: (db: Executor, values: P, list: T[]) => Compilable<R>,
    private readonly maxLength = 16,
  ) {}

  async execute(db: Executor, values: P, list: T[]): Promise<R[]> {
    return (await this.result(db, values, list)).rows;
  }

  result(db: Executor, values: P, list: T[]): Promise<QueryResult<R>> {
    if (list.length > this.maxLength) return db.executeQuery<R>(this.build(db, values, list).compile());
    let prepared = this.byLength.get(list.length);
    if (prepared === undefined) {
      prepared = new PreparedQuery<Flat, R>((dbOf, flat) => {
        const { values: v, list: l } = unflatten(flat);
        return this.build(dbOf, v as P, l as T[]);
      });
      this.byLength.set(list.length, prepared);
    }
    return prepared.result(db, flatten(values, list));
  }
}
