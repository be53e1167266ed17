import type { Compilable, CompiledQuery, DialectAdapter, QueryResult } from 'kysely';
import type { Executor } from './schema.js';
import { runDirect } from './sqlite-dialect.js';

/** Stand-ins the query is built with, one per named value; NUL never reaches a real value (the NUL guard refuses it). */
const MARKER = '\u0000prepared:';

/** Where a bound parameter comes from: a named value, or an item of a PreparedList's list (a column of it, for a row). */
type Slot = { name: string } | { item: number; column: string | undefined };

/** A stand-in for each value the first call names: the build may read them one by one or pass them whole (a row). */
function markersOf<P extends object>(values: P): P {
  return Object.fromEntries(Object.keys(values).map((name) => [name, `${MARKER}v:${name}`])) as P;
}

/** Stand-ins for a list: each item, or each column of each row. */
function listMarkersOf<T>(list: readonly T[]): T[] {
  return list.map((item, i) =>
    item !== null && typeof item === 'object' ? (Object.fromEntries(Object.keys(item).map((column) => [column, `${MARKER}l:${i}:${column}`])) as T) : (`${MARKER}l:${i}` as T),
  );
}

function slotOf(parameter: unknown): Slot | undefined {
  if (typeof parameter !== 'string' || !parameter.startsWith(MARKER)) return undefined;
  const rest = parameter.slice(MARKER.length);
  if (rest.startsWith('v:')) return { name: rest.slice(2) };
  const [item, column] = rest.slice(2).split(':') as [string, string | undefined];
  return { item: Number(item), column };
}

/** The SQL text of every prepared query, with the name PostgreSQL keeps its parsed statement under per connection. */
const statementNames = new Map<string, string>();

/** The server-side statement name for `sql` when it is a prepared query's (a bounded set), else undefined. */
export function preparedStatementName(sql: string): string | undefined {
  return statementNames.get(sql);
}

interface Compiled<R> {
  query: CompiledQuery<R>;
  /** One per parameter of the query: where its value comes from, or undefined for a constant of the build. */
  slots: (Slot | undefined)[];
}

function compiledOf<R>(built: Compilable<R>): Compiled<R> {
  const query = built.compile();
  if (!statementNames.has(query.sql)) statementNames.set(query.sql, `gw_prepared_${statementNames.size + 1}`);
  return { query, slots: query.parameters.map(slotOf) };
}

/** The compiled query with this call's values in place of the stand-ins; a missing one (undefined) is refused. */
function bound<R>({ query, slots }: Compiled<R>, values: object, list: readonly unknown[] = []): CompiledQuery<R> {
  const named = values as Record<string, unknown>;
  const parameters = query.parameters.map((constant, i) => {
    const slot = slots[i];
    if (slot === undefined) return constant;
    let value: unknown;
    if ('name' in slot) value = named[slot.name];
    else if (slot.column === undefined) value = list[slot.item];
    else value = (list[slot.item] as Record<string, unknown> | undefined)?.[slot.column];
    if (value === undefined) throw new TypeError(`prepared query: no value for ${'name' in slot ? slot.name : `item ${slot.item} ${slot.column ?? ''}`}`);
    return value;
  });
  return { ...query, parameters };
}

/**
 * A query built and compiled once per database instead of on every call: Kysely's building and compiling cost more
 * than a primary-key read. The query is built with a stand-in for each named value; a call binds the real values in
 * their place, so every call must name the same values (a row always has all its columns; undefined is refused). The
 * SQL text is the same each time, so SQLite's driver reuses its prepared statement and PostgreSQL parses and plans it
 * once per connection (a named statement, see `preparedStatementName`).
 */
export class PreparedQuery<P extends object, R> {
  private readonly compiled = new WeakMap<DialectAdapter, Compiled<R>>();

  constructor(private readonly build: (db: Executor, values: P) => Compilable<R>) {}

  async execute(db: Executor, values: P): Promise<R[]> {
    return (await this.result(db, values)).rows;
  }

  /** The driver's whole answer: rows, or the number of rows a write changed. */
  result(db: Executor, values: P): Promise<QueryResult<R>> {
    // One adapter per database: transactions of the same database share it, so they share the compiled query.
    const adapter = db.getExecutor().adapter;
    let entry = this.compiled.get(adapter);
    if (!entry) {
      entry = compiledOf(this.build(db, markersOf(values)));
      this.compiled.set(adapter, entry);
    }
    const query = bound(entry, values);
    return runDirect<R>(db, query) ?? db.executeQuery<R>(query);
  }

  async takeFirst(db: Executor, values: P): Promise<R | undefined> {
    return (await this.execute(db, values))[0];
  }
}

/**
 * A query over a list (an `in` list of keys, a multi-row insert) compiled once per list length, up to `maxLength`: each
 * length has its own SQL text (a bounded set of statements). A longer list is built per call. The list's items are
 * values or rows (every row with the same columns); each parameter is bound from its item by position.
 */
export class PreparedList<P extends object, T, R> {
  private readonly compiled = new WeakMap<DialectAdapter, Map<number, Compiled<R>>>();

  constructor(
    private readonly build: (db: Executor, values: P, list: T[]) => Compilable<R>,
    private readonly maxLength = 16,
  ) {}

  async execute(db: Executor, values: P, list: T[]): Promise<R[]> {
    return (await this.result(db, values, list)).rows;
  }

  /**
   * For a query whose answer over a list is the union of its answers over the list's pieces (an `in` filter, no limit,
   * no order): a list longer than `maxLength` runs as compiled pieces of `maxLength` instead of a statement built per call
   * (building one costs more than running several prepared ones), and never binds more parameters than a piece holds.
   */
  async executeInPieces(db: Executor, values: P, list: T[]): Promise<R[]> {
    if (list.length <= this.maxLength) return this.execute(db, values, list);
    const rows: R[] = [];
    for (let at = 0; at < list.length; at += this.maxLength) rows.push(...(await this.execute(db, values, list.slice(at, at + this.maxLength))));
    return rows;
  }

  result(db: Executor, values: P, list: T[]): Promise<QueryResult<R>> {
    if (list.length > this.maxLength) return db.executeQuery<R>(this.build(db, values, list).compile());
    const adapter = db.getExecutor().adapter;
    let byLength = this.compiled.get(adapter);
    if (byLength === undefined) {
      byLength = new Map();
      this.compiled.set(adapter, byLength);
    }
    let entry = byLength.get(list.length);
    if (entry === undefined) {
      entry = compiledOf(this.build(db, markersOf(values), listMarkersOf(list)));
      byLength.set(list.length, entry);
    }
    const query = bound(entry, values, list);
    return runDirect<R>(db, query) ?? db.executeQuery<R>(query);
  }
}
