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
import type { WalCheckpointThread } from './sqlite-wal-checkpoint.js';
import type { WalSync } from './sqlite-wal-sync.js';
import type { Executor, Tx } from './schema.js';

/** Transactions per group commit at most: bounds how long the last member of a full batch waits. */
export const GROUP_COMMIT_MAX_MEMBERS = 64;

interface SqliteConnections {
  /** Where every write and every transaction runs. */
  write: Database.Database;
  /** A read-only connection to the same file for reads outside transactions; absent for `:memory:`. */
  read?: Database.Database;
  /** How long a transaction waits for another process's write lock (SQLITE_BUSY_TIMEOUT_MS); the write connection's own busy_timeout is 0. */
  lockWaitMs: number;
  /** Syncs each commit after COMMIT returns, off the event loop (the write connection then commits at NORMAL). */
  walSync?: WalSync;
  /** With walSync: where the WAL is checkpointed, off the event loop. */
  checkpointThread?: Pick<WalCheckpointThread, 'run' | 'close'>;
}

/** The two connections and how a statement is routed between them. */
class SqliteStore {
  readonly writer: GroupCommitter;
  /** The handle whose transaction began last: the running member's, since members run one at a time. */
  lastBegun: SqliteHandle | undefined;
  /** Where a statement is prepared to learn whether it writes: the read connection's cache, or the only one. */
  private readonly classifier: StatementCache;
  private readonly snapshot: ReadSnapshot | undefined;

  constructor(private readonly connections: SqliteConnections) {
    const writes = new StatementCache(connections.write);
    const reads = connections.read ? new StatementCache(connections.read) : undefined;
    this.classifier = reads ?? writes;
    this.snapshot = reads ? new ReadSnapshot(reads) : undefined;
    const { walSync, checkpointThread } = connections;
    const snapshot = this.snapshot;
    this.writer = new GroupCommitter(writes, {
      maxMembers: GROUP_COMMIT_MAX_MEMBERS,
      lockWaitMs: connections.lockWaitMs,
      ...(walSync === undefined || snapshot === undefined
        ? { beforeCommit: () => snapshot?.close() }
        : { beforeCommit: () => snapshot.pin(), walSync, afterSync: () => snapshot.unpin(), ...(checkpointThread ? { checkpoint: () => checkpointThread.run() } : {}) }),
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

  async close(): Promise<void> {
    await this.writer.flush();
    this.snapshot?.close();
    this.connections.read?.close();
    this.connections.write.close();
    this.connections.walSync?.close();
    await this.connections.checkpointThread?.close();
  }
}

/** What Kysely calls a connection: one caller's use of the store, inside a batch member while in a transaction. */
class SqliteHandle implements DatabaseConnection {
  member: Batch | undefined;
  /** Counts the transactions begun on this handle, so a transaction bound to it knows when it has ended (runDirect). */
  turn = 0;

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
    const handle = connection as SqliteHandle;
    handle.member = await this.store.writer.enter();
    handle.turn++;
    this.store.lastBegun = handle;
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
    return this.store.close();
  }

  private async end(handle: SqliteHandle, keep: boolean): Promise<void> {
    const member = handle.member;
    // Kysely rolls back after a failed commit: the member has already left then.
    if (!member) return;
    handle.member = undefined;
    await this.store.writer.leave(member, keep);
  }
}

/** Each SQLite database's store by its adapter, which the database's transactions share (runDirect). */
const storeOf = new WeakMap<DialectAdapter, SqliteStore>();
/** The handle a transaction runs on and which of its turns that is (bindTransaction). */
const boundHandles = new WeakMap<Tx, { handle: SqliteHandle; turn: number }>();

/**
 * Ties a transaction to its SQLite handle, called first thing in its callback: the members of a group commit run one
 * at a time, so the handle that began last is this transaction's. Nothing elsewhere (PostgreSQL).
 */
export function bindTransaction(tx: Tx): void {
  const handle = storeOf.get(tx.getExecutor().adapter)?.lastBegun;
  if (handle?.member !== undefined) boundHandles.set(tx, { handle, turn: handle.turn });
}

/**
 * A compiled statement run on SQLite straight, without Kysely's executor: it costs an executor object and a chain of
 * promises per statement, more than a point query here (no plugins to apply). Outside a transaction it is what a handle
 * does; in a bound transaction, on its handle while that transaction is open. Undefined where this does not apply
 * (PostgreSQL, a transaction not bound or ended): the caller goes through Kysely, which refuses an ended one.
 */
export function runDirect<R>(db: Executor, query: CompiledQuery): Promise<QueryResult<R>> | undefined {
  if (!db.isTransaction) return storeOf.get(db.getExecutor().adapter)?.execute(query) as Promise<QueryResult<R>> | undefined;
  const bound = boundHandles.get(db as Tx);
  if (bound === undefined || bound.handle.member === undefined || bound.handle.turn !== bound.turn) return undefined;
  return bound.handle.executeQuery<R>(query);
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
    const adapter = new SqliteAdapter();
    storeOf.set(adapter, this.store);
    return adapter;
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
}
