import pg from 'pg';
import type { PostgresHost, PostgresTargets } from './postgres-hosts.js';
import { isTransientDatabaseError } from './faults.js';

/**
 * Host selection for a DATABASE_URL with several hosts, as libpq's target_session_attrs does it (pg 8 has none; see
 * docs/decisions.md): new connections go to the host last found acceptable; when something on it fails, the next
 * connection probes the list again, starting after it, so a promoted standby is found without a restart.
 */

/** SQLSTATE read_only_sql_transaction: a write sent to a server that no longer accepts them (a standby). */
export const READ_ONLY_SQL_TRANSACTION = '25006';

/** No listed host accepts writes now (the primary gone, the standby not yet promoted): transient, answered 503. */
export class NoWritableHostError extends Error {
  /** sqlclient_unable_to_establish_sqlconnection, so faults.ts treats it like any refused connection. */
  readonly code = '08001';
}

type Probe = (host: PostgresHost) => Promise<boolean>;

export class WritableHostLocator {
  private current: PostgresHost | undefined;
  private searching: Promise<PostgresHost> | undefined;
  private startAt = 0;

  constructor(
    private readonly hosts: readonly PostgresHost[],
    private readonly probe: Probe,
  ) {}

  /** The host a new connection goes to; one search at a time however many connections wait for it. */
  host(): Promise<PostgresHost> {
    if (this.current !== undefined) return Promise.resolve(this.current);
    this.searching ??= this.search().finally(() => {
      this.searching = undefined;
    });
    return this.searching;
  }

  /** A connection to `host` failed or was refused a write: the next one searches again, starting after it. */
  forget(host: PostgresHost): void {
    if (this.current !== host) return;
    this.current = undefined;
    this.startAt = (this.hosts.indexOf(host) + 1) % this.hosts.length;
  }

  private async search(): Promise<PostgresHost> {
    const reasons: string[] = [];
    for (let i = 0; i < this.hosts.length; i++) {
      const host = this.hosts[(this.startAt + i) % this.hosts.length] as PostgresHost;
      try {
        if (await this.probe(host)) {
          this.current = host;
          return host;
        }
        reasons.push(`${host.host}:${host.port} does not accept writes`);
      } catch (err) {
        reasons.push(`${host.host}:${host.port}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    throw new NoWritableHostError(`no PostgreSQL host accepts writes (${reasons.join('; ')})`);
  }
}

/** The statement that tells whether a connected session fits, per mode ('any' fits once connected). */
const FITS: Record<Exclude<PostgresTargets['targetSessionAttrs'], 'any'>, { sql: string; fits: (row: Record<string, unknown>) => boolean }> = {
  // libpq's read-write test: not in hot standby and default_transaction_read_only off, both seen in this one setting.
  'read-write': { sql: 'show transaction_read_only', fits: (row) => row.transaction_read_only === 'off' },
  primary: { sql: 'select pg_catalog.pg_is_in_recovery() as in_recovery', fits: (row) => row.in_recovery === false },
};

async function sessionFits(client: pg.Client, targets: PostgresTargets): Promise<boolean> {
  if (targets.targetSessionAttrs === 'any') return true;
  const check = FITS[targets.targetSessionAttrs];
  const { rows } = await client.query<Record<string, unknown>>(check.sql);
  return rows[0] !== undefined && check.fits(rows[0]);
}

/** One throwaway connection to `host`: does a session there fit target_session_attrs? */
function probeWith(config: pg.ClientConfig, targets: PostgresTargets): Probe {
  return async (host) => {
    const client = new pg.Client(config);
    client.host = host.host;
    client.port = host.port;
    client.on('error', () => undefined);
    try {
      await client.connect();
      return await sessionFits(client, targets);
    } finally {
      void client.end().catch(() => undefined);
    }
  };
}

type ClientClass = new (config: pg.ClientConfig) => pg.Client;

/**
 * pg's pool options for several hosts: its clients connect to the locator's host and check the session fits before the
 * pool hands them out; a client refused a write (25006) ends, so the pool drops it instead of reusing it.
 */
export function failoverPoolOptions(targets: PostgresTargets, config: pg.ClientConfig, Base: ClientClass): pg.PoolConfig {
  const timeoutMs = targets.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const clientConfig = { ...config, connectionString: targets.url, connectionTimeoutMillis: timeoutMs };
  const locator = new WritableHostLocator(targets.hosts, probeWith(clientConfig, targets));

  class FailoverClient extends Base {
    private target: PostgresHost | undefined;

    // The pool hands its own options (its longer timeout among them); a client connects within one host's timeout.
    constructor() {
      super(clientConfig);
      this.on('error', () => this.lost());
    }

    override connect(): Promise<pg.Client>;
    override connect(callback: (err: Error | null, client?: pg.Client) => void): void;
    override connect(callback?: (err: Error | null, client?: pg.Client) => void): Promise<pg.Client> | void {
      const connecting = this.connectToTarget();
      if (callback === undefined) return connecting;
      connecting.then(
        (client) => callback(null, client),
        (err: unknown) => callback(err instanceof Error ? err : new Error(String(err))),
      );
    }

    override query(...args: unknown[]): never {
      const result = (super.query.bind(this) as (...a: unknown[]) => unknown)(...args);
      if (result instanceof Promise) result.catch((err: unknown) => this.failed(err));
      return result as never;
    }

    private async connectToTarget(): Promise<pg.Client> {
      const target = await locator.host();
      this.target = target;
      this.host = target.host;
      this.port = target.port;
      try {
        await super.connect();
        if (!(await sessionFits(this, targets))) throw new NoWritableHostError(`${target.host}:${target.port} no longer accepts writes`);
        return this;
      } catch (err) {
        locator.forget(target);
        void this.end().catch(() => undefined);
        throw err;
      }
    }

    /** Connection-level trouble: look for the writable host again. A refused write also retires this client. */
    private failed(err: unknown): void {
      if ((err as { code?: unknown }).code === READ_ONLY_SQL_TRANSACTION) {
        this.lost();
        // Ending marks the client so the pool discards it on release rather than handing a standby's session out again.
        void this.end().catch(() => undefined);
      } else if (isTransientDatabaseError(err)) {
        this.lost();
      }
    }

    private lost(): void {
      if (this.target !== undefined) locator.forget(this.target);
    }
  }

  return {
    ...clientConfig,
    Client: FailoverClient,
    // A search may try every host before connecting: the pool waits that long, never indefinitely.
    connectionTimeoutMillis: timeoutMs * (targets.hosts.length + 2),
  };
}

/** libpq waits indefinitely without connect_timeout; a gateway answering requests should not (docs/operations.md). */
export const DEFAULT_CONNECT_TIMEOUT_MS = 5000;
