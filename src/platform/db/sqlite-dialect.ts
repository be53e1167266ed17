import type Database from 'better-sqlite3';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import { type Batch, GroupCommitter, type GroupCommitStats } from './sqlite-group-commit.js';
import { ReadSnapshot } from './sqlite-read-snapshot.js';
import { StatementCache } from './sqlite-statement-cache.js';

/** Transactions per group commit at most: bounds how long the last member of a full batch waits. */
export const GROUP_COMMIT_MAX_MEMBERS = 64;

interface SqliteConnections {
  /** Where every write and every transaction runs. */
  write: Database.Database;
  /** A read-only connection to the same file for reads outside transactions; absent for `:memory:`. */
  read?: Database.Database;
}

/** The two connections and how a statement is routed between them. */
class SqliteStore {
  readonly writer: GroupCommitter;
  /** Where a statement is prepared to learn whether it writes: the read connection's cache, or the only one. */
  private readonly classifier: StatementCache;
  private readonly snapshot: ReadSnapshot | undefined;

  constructor(private readonly connections: SqliteConnections) {
    const writes = new StatementCache(connections.write);
    const reads = connections.read ? new StatementCache(connections.read) : undefined;
    this.classifier = reads ?? writes;
    this.snapshot = reads ? new ReadSnapshot(reads) : undefined;
    this.writer = new GroupCommitter(writes, {
      maxMembers: GROUP_COMMIT_MAX_MEMBERS,
      beforeCommit: () => this.snapshot?.close(),
    });
  }

  /**
   * A statement outside a transaction: a read on the read snapshot, a write as a one-statement member of the batch.
   * With one connection (`:memory:`) a read takes its turn on it too, and does not wait for the batch to commit.
   */
  execute(query: CompiledQuery): Promise<QueryResult<unknown>> {
    let readonly: boolean;
    try {
      readonly = this.classifier.get(query.sql).readonly;
      // A read answers at once: no async frame of its own on the hottest path.
      if (readonly && this.snapshot) return Promise.resolve(this.snapshot.run(query.sql, query.parameters));
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    return this.write(query, readonly);
  }

  /** A statement outside a transaction that writes (or any, on one connection): a one-statement member of the batch. */
  private async write(query: CompiledQuery, readonly: boolean): Promise<QueryResult<unknown>> {
    const batch = await this.writer.enter();
    let result: QueryResult<unknown>;
    try {
      result = this.writer.run(batch, query.sql, query.parameters);
    } catch (err) {
      await this.writer.leave(batch, false);
      throw err;
    }
    await this.writer.leave(batch, !readonly);
    return result;
  }

  close(): void {
    this.writer.flush();
    this.snapshot?.close();
    this.connections.read?.close();
    this.connections.write.close();
  }
}

/** What Kysely calls a connection: one caller's use of the store, inside a batch member while in a transaction. */
class SqliteHandle implements DatabaseConnection {
  member: Batch | undefined;

  constructor(readonly store: SqliteStore) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.member) {
      try {
        return Promise.resolve(this.store.writer.run(this.member, query.sql, query.parameters) as QueryResult<R>);
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
    }
    return this.store.execute(query) as Promise<QueryResult<R>>;
  }

  /** No caller streams (Kysely's `stream()`); said plainly rather than holding a snapshot open across turns. */
  streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming queries are not supported on SQLite here: page with limit/cursor instead');
  }
}

/** Free handles kept for reuse at most: more than this many queries and transactions at once is rare. */
const MAX_FREE_HANDLES = 64;

class GatewaySqliteDriver implements Driver {
  /**
   * Handles given back, handed out again: Kysely remembers every connection it has seen in a WeakSet, and a new handle
   * per query cost an insertion there (and its garbage) on every read.
   */
  private readonly free: SqliteHandle[] = [];

  constructor(private readonly store: SqliteStore) {}

  async init(): Promise<void> {}

  acquireConnection(): Promise<DatabaseConnection> {
    return Promise.resolve(this.free.pop() ?? new SqliteHandle(this.store));
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    (connection as SqliteHandle).member = await this.store.writer.enter();
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await this.end(connection as SqliteHandle, true);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await this.end(connection as SqliteHandle, false);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    const handle = connection as SqliteHandle;
    // A handle still in a transaction's batch (never, once Kysely has committed or rolled back) is not shared.
    if (handle.member === undefined && this.free.length < MAX_FREE_HANDLES) this.free.push(handle);
    return Promise.resolve();
  }

  destroy(): Promise<void> {
    this.store.close();
    return Promise.resolve();
  }

  private async end(handle: SqliteHandle, keep: boolean): Promise<void> {
    const member = handle.member;
    // Kysely rolls back after a failed commit: the member has already left then.
    if (!member) return;
    handle.member = undefined;
    await this.store.writer.leave(member, keep);
  }
}

/**
 * Kysely's SQLite dialect with our driver: reads outside transactions on a read-only connection sharing one snapshot
 * per event-loop turn, and every write through group commit (docs/decisions.md, "Performance").
 */
export class GatewaySqliteDialect implements Dialect {
  private readonly store: SqliteStore;

  constructor(connections: SqliteConnections) {
    this.store = new SqliteStore(connections);
  }

  /** Batches committed and the transactions they held. */
  get groupCommitStats(): GroupCommitStats {
    return this.store.writer.stats;
  }

  createDriver(): Driver {
    return new GatewaySqliteDriver(this.store);
  }

  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }

  createAdapter(): DialectAdapter {
    return new SqliteAdapter();
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
}
