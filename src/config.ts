import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { ConfigError } from './config-errors.js';

/** `https://a.example:8443` as a browser sends it in Origin: no wildcard, path, query or credentials. */
export function isExactOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value.replace(/\/$/, '').toLowerCase() && !value.includes('*');
  } catch {
    return false;
  }
}

/** SQLite's page cache per process, in MB: small, since the OS caches the file too (docs/decisions.md). */
export const DEFAULT_SQLITE_CACHE_MB = 4;
export const DEFAULT_DATABASE_POOL_SIZE = 10;
/** The embedded default: its folder is created on first start; any other SQLite folder must exist (see cli/database-folder.ts). */
export const DEFAULT_DATABASE_URL = 'sqlite:./data/gateway.sqlite';
export const SQLITE_SYNCHRONOUS = ['FULL', 'NORMAL'] as const;
export type SqliteSynchronous = (typeof SQLITE_SYNCHRONOUS)[number];

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: z
    .string()
    .default(DEFAULT_DATABASE_URL)
    .refine((v) => v.startsWith('sqlite:') || v.startsWith('postgres://') || v.startsWith('postgresql://'), {
      message: 'must start with sqlite: or postgres://',
    })
    // `sqlite:` alone would open a file named after nothing in the working folder.
    .refine((v) => v.trim() !== 'sqlite:', { message: 'sqlite: needs a file path, e.g. sqlite:./data/gateway.sqlite' }),
  REDIS_URL: z.string().url().optional(),
  HUB_URL: z.string().url().optional(),
  HUB_TOKEN: z.string().optional(),
  HUB_TIMEOUT_MS: z.coerce.number().int().positive().default(2000),
  /** Timeout of a background batch (up to 500 events); the in-request attempt uses HUB_TIMEOUT_MS. */
  HUB_BATCH_TIMEOUT_MS: z.coerce.number().int().positive().default(15_000),
  /** How long a worker owns the deliveries it claimed; must outlast a batch, or two workers could send one. */
  OUTBOX_LEASE_MS: z.coerce.number().int().positive().default(60_000),
  OUTBOX_POLL_MS: z.coerce.number().int().positive().default(500),
  OUTBOX_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(2),
  GATEWAY_SECRET: z.string().min(32).optional(),
  /** The secret before a change of GATEWAY_SECRET: still unwraps data keys until `secrets rotate` rewraps them. */
  GATEWAY_SECRET_PREVIOUS: z.string().min(32).optional(),
  GATEWAY_ADMIN_TOKEN: z.string().min(16).optional(),
  /** Opens GET /metrics to `Authorization: Bearer <token>` from anywhere; unset, only loopback clients read it. */
  METRICS_TOKEN: z.string().min(16).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** pretty: request logs as coloured lines (pino-pretty) when stdout is a terminal; piped or redirected they stay JSON. */
  LOG_FORMAT: z.enum(['json', 'pretty']).default('json'),
  SERVICE_NAME: z.string().min(1).default('tire-gateway'),
  BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(1024 * 1024),
  /** How long a client has to send a whole request, headers and body; past it 408 and the connection is closed. */
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  /** Open connections (requests in flight, behind TRUST_PROXY) one client address may hold; 0: no cap. */
  MAX_CONNECTIONS_PER_IP: z.coerce.number().int().min(0).max(100_000).default(128),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(600),
  /** With REDIS_URL: the `serve` processes sharing the limits; while Redis is down each admits limit / this (1: the full limit). */
  RATE_LIMIT_INSTANCES: z.coerce.number().int().min(1).max(1000).default(1),
  KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).default(2000),
  /** Browser origins that may POST /connect (exact scheme + host + port, comma-separated; no wildcard). */
  CONNECT_ALLOWED_ORIGINS: z
    .string()
    .default('')
    .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean))
    .refine((origins) => origins.every(isExactOrigin), { message: 'each entry must be an exact origin (scheme://host[:port]); no wildcard, path or credentials' }),
  /** The proxies whose X-Forwarded-For is believed (addresses or CIDRs, comma-separated); unset: none. */
  TRUST_PROXY: z.string().optional(),
  /** The gateway's public URL (OAuth redirect URIs are built on it); default http://HOST:PORT. */
  PUBLIC_URL: z.string().url().optional(),
  /** SQLite's page cache per process, in MB. */
  SQLITE_CACHE_MB: z.coerce.number().int().min(1).max(4096).default(DEFAULT_SQLITE_CACHE_MB),
  /** FULL: an answered write survives power loss (group commit shares the sync); NORMAL: it survives a process crash only. */
  SQLITE_SYNCHRONOUS: z.enum(SQLITE_SYNCHRONOUS).default('FULL'),
  /** PostgreSQL connections per process. */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(500).default(DEFAULT_DATABASE_POOL_SIZE),
  /** How long SQLite waits for another connection's write lock before the request fails with 503. */
  SQLITE_BUSY_TIMEOUT_MS: z.coerce.number().int().min(0).max(60_000).default(5000),
  /** How long `serve` may take to drain requests and stop workers after SIGTERM/SIGINT; past it, it exits with 1. */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /** How long delivered outbox rows are kept after delivery (7 days); queued and rejected ones are never purged. */
  RETENTION_OUTBOX_DELIVERED_MS: z.coerce.number().int().min(0).default(7 * 24 * 60 * 60 * 1000),
  /** How long idempotency records are kept after their 24 h replay window ends (1 day). */
  RETENTION_IDEMPOTENCY_MS: z.coerce.number().int().min(0).default(24 * 60 * 60 * 1000),
  /** How often each `serve` process purges what retention allows (10 minutes). */
  RETENTION_INTERVAL_MS: z.coerce.number().int().positive().default(10 * 60 * 1000),
  /** Rows one purge statement deletes at most; the purge yields between statements. */
  RETENTION_BATCH_SIZE: z.coerce.number().int().min(1).max(100_000).default(1000),
  /**
   * SQLite: the write time one slice of a job in slices aims at (retention, `secrets rotate`, an object's rewrite); its
   * size follows, and the job pauses as long after each slice, so other processes' writes get the lock in between.
   */
  SQLITE_SLICE_TARGET_MS: z.coerce.number().int().min(1).max(1000).default(10),
  ALLOWED_ORIGINS: z
    .string()
    .default('')
    .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean)),
  /**
   * How long after its last heartbeat a process counts as dead: its in-flight Idempotency-Keys and the interchanges it
   * was taking are then free for a retry. A live process heartbeats every quarter of this and holds them however long.
   */
  INSTANCE_TTL_MS: z.coerce.number().int().min(200).max(300_000).default(10_000),
  /** Worker threads for CPU-heavy pure work (X12 parse and validation); default: one fewer than the cores, at least 1. */
  WORKER_THREADS: z.coerce.number().int().min(1).max(64).default(Math.max(1, availableParallelism() - 1)),
  /** Tasks that may wait for a worker thread; past it a request is answered 503 with Retry-After. */
  WORKER_QUEUE: z.coerce.number().int().min(0).max(10_000).default(16),
});

/** The environment as given: module settings are read from it by their modules (parseEnv). */
export type Environment = Readonly<Record<string, string | undefined>>;

export type Config = z.infer<typeof envSchema> & {
  /** The environment the config was read from: each module reads its own settings from it. */
  environment: Environment;
};

export { ConfigError, StartupError } from './config-errors.js';

/** Settings read from the environment with `schema`; a bad value throws one clear line naming the variable. */
export function parseEnv<T extends z.ZodType>(schema: T, env: Environment): z.output<T> {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  const first = parsed.error.issues[0];
  throw new ConfigError(`invalid configuration: ${first?.path.join('.') ?? '?'}: ${first?.message ?? 'invalid'}`);
}

/** Parses the gateway's own settings once; a bad value fails start with one clear line. */
export function loadConfig(env: Environment = process.env): Config {
  const parsed = parseEnv(envSchema, env);
  if (parsed.OUTBOX_LEASE_MS <= parsed.HUB_BATCH_TIMEOUT_MS || parsed.OUTBOX_LEASE_MS <= parsed.HUB_TIMEOUT_MS) {
    throw new ConfigError('invalid configuration: OUTBOX_LEASE_MS must be longer than HUB_BATCH_TIMEOUT_MS and HUB_TIMEOUT_MS');
  }
  if (isPostgresUrl(parsed.DATABASE_URL) && !parsed.GATEWAY_SECRET) {
    throw new ConfigError('invalid configuration: GATEWAY_SECRET is required with PostgreSQL (at least 32 characters)');
  }
  return { ...parsed, environment: env };
}

export function isPostgresUrl(url: string): boolean {
  return url.startsWith('postgres://') || url.startsWith('postgresql://');
}
