import type { Compilable, CompiledQuery, DialectAdapter } from 'kysely';
import type { Executor } from './schema.js';

/** Stand-ins the query is built with, one per named value; NUL never reaches a real value (the NUL guard refuses it). */
const MARKER = '\u0000prepared:';

/** The SQL text of every prepared query, with the name PostgreSQL keeps its parsed statement under per connection. */
const statementNames = new Map<string, string>();

/** The server-side statement name for `sql` when it is a prepared query's (a bounded set), else undefined. */
export function preparedStatementName(sql: string): string | undefined {
  return statementNames.get(sql);
}

type Markers<P> = { readonly [K in keyof P]: P[K] };

/**
 * A query built and compiled once per database instead of on every call: Kysely's building and compiling cost more
 * than a primary-key read. The query is built with a stand-in for each named value; a call binds the real values in
 * their place. The SQL text is the same each time, so SQLite's driver reuses its prepared statement and PostgreSQL
 * parses and plans it once per connection (a named statement, see `preparedStatementName`).
 */
export class PreparedQuery<P extends Record<string, unknown>, R> {
  private readonly compiled = new WeakMap<DialectAdapter, { query: CompiledQuery<R>; slots: (keyof P | undefined)[] }>();

  constructor(private readonly build: (db: Executor, values: Markers<P>) => Compilable<R>) {}

  async execute(db: Executor, values: P): Promise<R[]> {
    const { query, slots } = this.compiledFor(db);
    const parameters = query.parameters.map((constant, i) => {
      const name = slots[i];
      return name === undefined ? constant : values[name];
    });
    return (await db.executeQuery<R>({ ...query, parameters })).rows;
  }

  async takeFirst(db: Executor, values: P): Promise<R | undefined> {
    return (await this.execute(db, values))[0];
  }

  private compiledFor(db: Executor): { query: CompiledQuery<R>; slots: (keyof P | undefined)[] } {
    // One adapter per database: transactions of the same database share it, so they share the compiled query.
    const adapter = db.getExecutor().adapter;
    let entry = this.compiled.get(adapter);
    if (!entry) {
      const markers = new Proxy({} as Markers<P>, { get: (_target, name) => `${MARKER}${String(name)}` });
      const query = this.build(db, markers).compile();
      const slots = query.parameters.map((p) => (typeof p === 'string' && p.startsWith(MARKER) ? (p.slice(MARKER.length) as keyof P) : undefined));
      entry = { query, slots };
      if (!statementNames.has(query.sql)) statementNames.set(query.sql, `gw_prepared_${statementNames.size + 1}`);
      this.compiled.set(adapter, entry);
    }
    return entry;
  }
}
