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
