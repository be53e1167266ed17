import { CpuPool } from './platform/core/cpu-pool.js';
import { type Config, StartupError } from './config.js';
import { AuditService } from './platform/audit/audit.service.js';
import { ApiKeysService } from './platform/auth/api-keys.service.js';
import type { ScopeCatalog } from './platform/auth/scopes.js';
import { createKeyChanges } from './platform/auth/key-changes.js';
import { KeyVerifier } from './platform/auth/key-verifier.js';
import { PortalKeyVerifier } from './platform/auth/portal-key-verifier.js';
import { PortalKeysService } from './platform/auth/portal-keys.service.js';
import { type Clock, systemClock } from './platform/core/clock.js';
import { type DatabaseHandle, openDatabase } from './platform/db/database.js';
import { migrateToLatest } from './platform/db/migrate.js';
import { type PurgeTarget, RetentionWorker } from './platform/db/retention.js';
import { createMetricsRegistry } from './platform/core/metrics.js';
import { registerDatabaseMetrics } from './platform/db/database.metrics.js';
import { OrgsService } from './platform/orgs/orgs.service.js';
import { RateLimiter, createRateLimitStore } from './platform/ratelimit/rate-limiter.js';
import { createDeliveryWorker } from './platform/outbox/create-delivery-worker.js';
import { DeliveriesService } from './platform/outbox/deliveries.service.js';
import type { DeliveryWorker } from './platform/outbox/delivery-worker.js';
import { type Logger, pino } from 'pino';
import type { Registry } from 'prom-client';
import { sql } from 'kysely';
import { MODULES } from './modules/index.js';
import { buildServices, type ModuleDefinition, scopesOf, type Services } from './platform/module-definition.js';
import type { BackgroundWorker } from './platform/core/work-loop.js';
import { RequestsInFlight } from './platform/core/requests-in-flight.js';
import { type OperationEntry, operationsOf, tagsOf, webhooksOf } from './platform/operations/module.js';
import { idempotencyRetention, IdempotencyStore } from './platform/operations/idempotency.js';
import { InstanceLiveness } from './platform/instances/instance-liveness.js';
import { outboxRetention } from './platform/outbox/outbox.js';
import { resolveGatewaySecret } from './platform/secrets/gateway-secret.js';
import type { EncryptedColumn } from './platform/secrets/columns.js';
import { SecretVault } from './platform/secrets/vault.js';
import type { PageRoute } from './platform/http/html-page.js';
import type { StaticFile } from './platform/http/static-files.js';
import { slicePacing } from './platform/db/slice-pacer.js';
import { type AfterCommitHook, OperationInvoker } from './platform/operations/invoke.js';
import type { OpenApiTag, WebhookDoc } from './platform/operations/openapi.js';

/** Everything one process holds: config, database, clock, services. Built once; the app and the CLI share it. */
export interface Gateway {
  config: Config;
  database: DatabaseHandle;
  clock: Clock;
  services: Services;
  verifier: KeyVerifier;
  /** Portal keys (X-Portal-Key) and the origins active ones list. */
  portalVerifier: PortalKeyVerifier;
  limiter: RateLimiter;
  metrics: Registry;
  /** The process's logger (stderr, LOG_LEVEL): the delivery worker, retention and each module log on a child named for them. */
  log: Logger;
  /** Hub delivery: `serve` starts it; services use it to deliver right after commit. */
  delivery: DeliveryWorker;
  /** Every module's operations (REST, MCP and OpenAPI are generated from them) and the modules' OpenAPI tags. */
  operations: OperationEntry[];
  tags: OpenApiTag[];
  /** The events sent to subscribers' URLs, as the OpenAPI document's `webhooks` lists them. */
  webhooks: WebhookDoc[];
  /** Every scope a key can hold, as the modules declare them. */
  scopes: ScopeCatalog;
  /** The one way either door calls an operation. */
  invoker: OperationInvoker;
  /** This process as the owner of idempotency claims and EDI leases, heartbeating while it lives (INSTANCE_TTL_MS). */
  instances: InstanceLiveness;
  /** Encrypts secrets at rest under GATEWAY_SECRET. */
  vault: SecretVault;
  /** Worker threads for CPU-heavy pure work (WORKER_THREADS, WORKER_QUEUE); close() ends them. */
  cpu: CpuPool;
  /** Every module's background workers: `serve` starts them; close() stops them before the delivery worker. */
  workers: BackgroundWorker[];
  /** Purges delivered outbox rows and expired idempotency records on a schedule: `serve` starts it. */
  retention: RetentionWorker;
  /** Every module's HTML pages (OAuth redirects back). */
  pages: PageRoute[];
  /** Every module's static files (the portal widget). */
  files: StaticFile[];
  /** The requests this process is answering (the HTTP frame counts them): background work that yields reads it. */
  requests: RequestsInFlight;
  /** Every module's encrypted columns: what `secrets rotate` re-encrypts. */
  encryptedColumns: EncryptedColumn[];
  close(): Promise<void>;
}

interface GatewayOptions {
  clock?: Clock;
  /** PostgreSQL schema to run in (tests isolate themselves this way). */
  databaseSchema?: string;
  migrate?: boolean;
  /** Tests only: migrate up to, not including, this migration (the schema as it was before it). */
  migrateBefore?: string;
  /** Redis key namespace for shared counters (tests isolate themselves this way). */
  redisKeyPrefix?: string;
  /** The modules to serve; all of them (src/modules/index.ts) unless a test narrows or extends the list. */
  modules?: readonly ModuleDefinition[];
  /** Tests only: runs after a write commits, before it answers (the exactly-once suite throws there, as a crash). */
  afterCommit?: AfterCommitHook;
}

/** Runs a start-up step; a failure closes what is open and becomes one StartupError line naming the dependency. */
async function startOrExplain<T>(what: string, cleanup: () => Promise<void>, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    await cleanup().catch(() => undefined);
    throw new StartupError(`cannot use ${what}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

/**
 * Retention over the platform's tables (the outbox purges its delivered rows, the idempotency store its expired records)
 * and what the modules add (`modules`: webhook events).
 */
export function createRetentionWorker(config: Config, database: DatabaseHandle, clock: Clock, log?: Logger, modules: readonly PurgeTarget[] = []): RetentionWorker {
  return new RetentionWorker({
    targets: [outboxRetention(database, config.RETENTION_OUTBOX_DELIVERED_MS), idempotencyRetention(database, config.RETENTION_IDEMPOTENCY_MS), ...modules],
    clock,
    intervalMs: config.RETENTION_INTERVAL_MS,
    batchSize: config.RETENTION_BATCH_SIZE,
    pacing: slicePacing(database.dialect, config.SQLITE_SLICE_TARGET_MS),
    ...(log ? { log } : {}),
  });
}

export async function createGateway(config: Config, opts: GatewayOptions = {}): Promise<Gateway> {
  const clock = opts.clock ?? systemClock;
  const modules = opts.modules ?? MODULES;
  const secret = resolveGatewaySecret(config);
  const log = pino({ level: config.LOG_LEVEL }, pino.destination(2));
  const database = openDatabase(config.DATABASE_URL, {
    cacheMb: config.SQLITE_CACHE_MB,
    busyTimeoutMs: config.SQLITE_BUSY_TIMEOUT_MS,
    synchronous: config.SQLITE_SYNCHRONOUS,
    poolSize: config.DATABASE_POOL_SIZE,
    log,
    ...(opts.databaseSchema ? { schema: opts.databaseSchema } : {}),
  });
  // What start-up has opened so far, closed newest first when a later step fails: nothing is left holding the database.
  const opened: (() => Promise<unknown>)[] = [() => database.close()];
  const closeOpened = async () => {
    for (const close of opened.splice(0).reverse()) await close().catch(() => undefined);
  };
  await startOrExplain('the database at DATABASE_URL', closeOpened, async () => {
    if (opts.migrate ?? true) {
      await migrateToLatest(database.db, modules, opts.migrateBefore === undefined ? {} : { before: opts.migrateBefore });
      database.journalsInMemory?.();
    } else await sql`select 1`.execute(database.db);
  });
  const db = database.db;
  const vault = new SecretVault(db, clock, { secret, previous: config.GATEWAY_SECRET_PREVIOUS }, { pacing: slicePacing(database.dialect, config.SQLITE_SLICE_TARGET_MS) });
  // A wrong GATEWAY_SECRET fails start, not the first decrypt; unmigrated, the table may not exist yet.
  if (opts.migrate ?? true) await startOrExplain('GATEWAY_SECRET', closeOpened, () => vault.currentKeyId());
  const scopes = scopesOf(modules);
  const orgs = new OrgsService(db, clock, modules.flatMap((m) => (m.settings ? [m.settings] : [])));
  const metrics = createMetricsRegistry();
  registerDatabaseMetrics(metrics, database);
  // On stderr: CLI commands print their output on stdout. Workers and modules log on children named for them.
  const delivery = createDeliveryWorker(config, database, clock, metrics, log.child({ name: 'delivery-worker' }));
  opened.push(() => delivery.close());
  const instances = new InstanceLiveness(db, database.dialect, { ttlMs: config.INSTANCE_TTL_MS, log: log.child({ name: 'instances' }) });
  const rateLimitStore = await startOrExplain('Redis at REDIS_URL', closeOpened, () =>
    createRateLimitStore(config.REDIS_URL, {
      ...(opts.redisKeyPrefix ? { keyPrefix: opts.redisKeyPrefix } : {}),
      fallback: { instances: config.RATE_LIMIT_INSTANCES, log: log.child({ name: 'redis' }), metrics },
    }),
  );
  opened.push(() => rateLimitStore.close());
  // Key revocations reach every instance's verifier through this channel (REDIS_URL), in the same namespace as the counters.
  const keyChanges = await startOrExplain('Redis at REDIS_URL', closeOpened, () =>
    createKeyChanges(config.REDIS_URL, { channel: `${opts.redisKeyPrefix ?? 'gw:'}key-changes`, log: log.child({ name: 'key-changes' }) }),
  );
  opened.push(() => keyChanges.close());
  const limiter = new RateLimiter(rateLimitStore, clock);
  const cpu = new CpuPool({ threads: config.WORKER_THREADS, queue: config.WORKER_QUEUE });
  opened.push(() => cpu.close());
  // A module can still refuse to start (a bad module setting): what is open is closed before the error goes up.
  try {
    const platform = {
      orgs,
      apiKeys: new ApiKeysService(db, clock, scopes, keyChanges),
      portalKeys: new PortalKeysService(db, clock, keyChanges),
      deliveries: new DeliveriesService(db, orgs),
      audit: new AuditService(db),
    };
    const requests = new RequestsInFlight();
    const services = buildServices(modules, { config, db, dialect: database.dialect, clock, delivery, vault, limiter, log, cpu, instances, load: requests }, platform);
    const workers = modules.flatMap((m) => m.workers?.(services) ?? []);
    const retention = createRetentionWorker(config, database, clock, log.child({ name: 'retention' }), modules.flatMap((m) => m.retention?.({ config, database }) ?? []));
    return {
      config,
      database,
      clock,
      services,
      verifier: new KeyVerifier(db, clock, config.KEY_CACHE_TTL_MS, keyChanges),
      portalVerifier: new PortalKeyVerifier(db, clock, config.KEY_CACHE_TTL_MS, keyChanges),
      limiter,
      metrics,
      log,
      delivery,
      operations: operationsOf(modules, services, scopes),
      tags: tagsOf(modules),
      webhooks: webhooksOf(modules),
      scopes,
      invoker: new OperationInvoker({ db, idempotency: new IdempotencyStore(db, clock, instances), delivery, ...(opts.afterCommit ? { afterCommit: opts.afterCommit } : {}) }),
      instances,
      vault,
      cpu,
      workers,
      retention,
      pages: modules.flatMap((m) => (m.pages?.(services) ?? []).map((route) => ({ ...route, tag: m.tag?.name ?? 'other' }))),
      files: modules.flatMap((m) => m.files ?? []),
      encryptedColumns: modules.flatMap((m) => m.encryptedColumns ?? []),
      requests,
      async close() {
        await Promise.all([...workers.map((w) => w.stop()), retention.stop()]);
        // After the workers: a poll that finished last queued deliveries; the delivery worker hands back what it holds.
        await delivery.close();
        // After every worker and request: leaving the registry frees at once whatever this process still held.
        await instances.stop();
        await cpu.close();
        await limiter.close();
        await keyChanges.close();
        await database.close();
      },
    };
  } catch (err) {
    await closeOpened();
    throw err;
  }
}
