import type { Compilable, CompiledQuery, DialectAdapter, QueryResult } from 'kysely';
import type { Executor } from './schema.js';

/** Stand-ins the query is built with, one per named value; NUL never reaches a real value (the NUL guard refuses it). */
const MARKER = '\u0000prepared:';

/** How a call's values reach the query's parameters: by the name each stand-in carries. */
interface Binding<I> {
  /** The input the query is built with: a stand-in (MARKER and a name) in place of each value. */
  markers(input: I): I;
  /** Reads the value named `name` from a call's input; made once per parameter, when the query is compiled. */
  reader(name: string): (input: I) => unknown;
}

/** A stand-in for each value the first call names: the build may read them one by one or pass them whole (a row). */
function markersOf<P extends object>(values: P, prefix = ''): P {
  return Object.fromEntries(Object.keys(values).map((name) => [name, `${MARKER}${prefix}${name}`])) as P;
}

/** Values by their own names (a PreparedQuery's). */
function byName<P extends object>(): Binding<P> {
  return { markers: (values) => markersOf(values), reader: (name) => (values) => (values as Record<string, unknown>)[name] };
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
  private readonly compiled = new WeakMap<DialectAdapter, { query: CompiledQuery<R>; slots: ({ name: string; read: (values: P) => unknown } | undefined)[] }>();

  constructor(
    private readonly build: (db: Executor, values: P) => Compilable<R>,
    private readonly binding: Binding<P> = byName<P>(),
  ) {}

  async execute(db: Executor, values: P): Promise<R[]> {
    return (await this.result(db, values)).rows;
  }

  /** The driver's whole answer: rows, or the number of rows a write changed. */
  result(db: Executor, values: P): Promise<QueryResult<R>> {
    const { query, slots } = this.compiledFor(db, values);
    const parameters = query.parameters.map((constant, i) => {
      const slot = slots[i];
      if (slot === undefined) return constant;
      const value = slot.read(values);
      if (value === undefined) throw new TypeError(`prepared query: no value for ${slot.name}`);
      return value;
    });
    return db.executeQuery<R>({ ...query, parameters });
  }

  async takeFirst(db: Executor, values: P): Promise<R | undefined> {
    return (await this.execute(db, values))[0];
  }

  private compiledFor(db: Executor, values: P) {
    // One adapter per database: transactions of the same database share it, so they share the compiled query.
    const adapter = db.getExecutor().adapter;
    let entry = this.compiled.get(adapter);
    if (!entry) {
      const query = this.build(db, this.binding.markers(values)).compile();
      const slots = query.parameters.map((p) => {
        if (typeof p !== 'string' || !p.startsWith(MARKER)) return undefined;
        const name = p.slice(MARKER.length);
        return { name, read: this.binding.reader(name) };
      });
      entry = { query, slots };
      if (!statementNames.has(query.sql)) statementNames.set(query.sql, `gw_prepared_${statementNames.size + 1}`);
      this.compiled.set(adapter, entry);
    }
    return entry;
  }
}

/** One call of a PreparedList: its named values and its list (of values, or of rows with the same columns). */
interface ListInput<P, T> {
  values: P;
  list: T[];
}

/** A list's stand-ins are named `v:<name>` for a value, `l:<index>` for a list item, `l:<index>:<column>` for a row's. */
function listBinding<P extends object, T>(): Binding<ListInput<P, T>> {
  return {
    markers: ({ values, list }) => ({
      values: markersOf(values, 'v:'),
      list: list.map((item, i) => (item !== null && typeof item === 'object' ? markersOf(item, `l:${i}:`) : `${MARKER}l:${i}`) as T),
    }),
    reader: (name) => {
      const [kind, at = '', column] = name.split(':');
      if (kind === 'v') return ({ values }) => (values as Record<string, unknown>)[at];
      const index = Number(at);
      if (column === undefined) return ({ list }) => list[index];
      return ({ list }) => (list[index] as Record<string, unknown> | undefined)?.[column];
    },
  };
}

/**
 * A query over a list (an `in` list of keys, a multi-row insert) compiled once per list length, up to `maxLength`: each
 * length has its own SQL text, so each is a PreparedQuery of its own (a bounded set of statements). A longer list is
 * built per call. The list's items are values or rows (every row with the same columns).
 */
export class PreparedList<P extends object, T, R> {
  private readonly byLength = new Map<number, PreparedQuery<ListInput<P, T>, R>>();

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
      prepared = new PreparedQuery<ListInput<P, T>, R>((dbOf, input) => this.build(dbOf, input.values, input.list), listBinding<P, T>());
      this.byLength.set(list.length, prepared);
    }
    return prepared.result(db, { values, list });
  }
}
