import { randomBytes } from 'node:crypto';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import { createGateway, type Gateway } from '../../src/gateway.js';
import type { CreatedKey } from '../../src/platform/auth/api-keys.service.js';
import { ManualClock } from '../../src/platform/core/clock.js';
import type { ModuleDefinition } from '../../src/platform/module-definition.js';
import { sharedVendorSim } from './shared-vendor-sim.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type DialectName = 'sqlite' | 'postgres';

/**
 * SQLite always; PostgreSQL too when TEST_DATABASE_URL is set. Suites run once per entry.
 * TEST_DIALECTS=postgres narrows a run to PostgreSQL (CI runs SQLite first, then PostgreSQL + Redis).
 */
export const dialects: DialectName[] = (process.env.TEST_DATABASE_URL ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const)).filter(
  (d) => !process.env.TEST_DIALECTS || process.env.TEST_DIALECTS.split(',').includes(d),
);

export interface Harness {
  dialect: DialectName;
  gateway: Gateway;
  app: FastifyInstance;
  clock: ManualClock;
  config: Config;
  /** Databases URL and schema this harness runs in, for processes it starts. */
  databaseUrl: string;
  databaseSchema?: string;
  /** Its rate limiter's Redis prefix: a second gateway given the same one shares its budgets. */
  redisKeyPrefix: string;
  org(slug: string): Promise<{ id: string; slug: string }>;
  key(orgSlug: string, scopes: string, opts?: { expiresIn?: string; rateLimit?: number }): Promise<CreatedKey>;
  request(opts: InjectOptions & { key?: string }): Promise<LightMyRequestResponse & { body: string; json<T = Record<string, unknown>>(): T }>;
  /**
   * The next call of this operation "dies" right after its unit of work commits (or its refusal is settled), before
   * anything answers: the invoker's after-commit hook throws, as a crash would end the process there.
   */
  crashAfterCommit(operation: string): void;
  close(): Promise<void>;
}

/** What a call armed with crashAfterCommit fails with, in place of its answer. */
export const CRASH_MESSAGE = 'process died after commit';

/** The operator token every harness has (so operator routes exist); `env: { GATEWAY_ADMIN_TOKEN: undefined }` removes it. */
export const HARNESS_ADMIN_TOKEN = 'harness-admin-token-0123456789';

export interface HarnessOptions {
  /** Config over the defaults; `undefined` removes a default. */
  env?: Record<string, string | undefined>;
  clock?: ManualClock;
  /** Modules to serve instead of all of them (tests of the module mechanism add a throwaway one). */
  modules?: readonly ModuleDefinition[];
  /** Migrate up to, not including, this migration (a migration's test starts from the schema before it). */
  migrateBefore?: string;
}

/** A gateway on a fresh database (a temp SQLite file, or a fresh PostgreSQL schema), with the app ready to inject. */
export async function startHarness(dialect: DialectName, opts: HarnessOptions = {}): Promise<Harness> {
  const clock = opts.clock ?? new ManualClock(new Date('2026-06-01T12:00:00.000Z'));
  let databaseUrl: string;
  let databaseSchema: string | undefined;
  let cleanup: () => Promise<void>;
  if (dialect === 'postgres') {
    const url = process.env.TEST_DATABASE_URL ?? '';
    databaseSchema = `t_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create schema ${databaseSchema}`);
    await admin.end();
    databaseUrl = url;
    const schema = databaseSchema;
    cleanup = async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`drop schema if exists ${schema} cascade`);
      await c.end();
    };
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'gw-test-'));
    databaseUrl = `sqlite:${join(dir, 'gateway.sqlite')}`;
    cleanup = () => Promise.resolve(rmSync(dir, { recursive: true, force: true }));
  }
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    GATEWAY_SECRET: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'silent',
    KEY_CACHE_TTL_MS: '2000',
    ...(process.env.TEST_REDIS_URL ? { REDIS_URL: process.env.TEST_REDIS_URL } : {}),
    GATEWAY_ADMIN_TOKEN: HARNESS_ADMIN_TOKEN,
    // Every provider at the process's shared simulator, so fixtures can connect and poll; a test can point elsewhere.
    VENDOR_SIM_URL: (await sharedVendorSim()).url,
    // The clock stands still in tests: a vendor budget counted on it would never refill (its own test sets one).
    VENDOR_RATE_LIMIT_PER_MINUTE: '100000',
    ...opts.env,
  });
  const redisKeyPrefix = `test:${randomBytes(6).toString('hex')}:`;
  const armed = new Set<string>();
  const gateway = await createGateway(config, {
    clock,
    afterCommit: (op) => {
      if (armed.delete(op.name)) throw new Error(`${CRASH_MESSAGE} (${op.name})`);
    },
    ...(databaseSchema ? { databaseSchema } : {}),
    redisKeyPrefix,
    ...(opts.modules ? { modules: opts.modules } : {}),
    ...(opts.migrateBefore ? { migrateBefore: opts.migrateBefore } : {}),
  });
  const app = await buildApp(gateway, { logger: false });
  await app.ready();

  return {
    dialect,
    gateway,
    app,
    clock,
    config,
    databaseUrl,
    ...(databaseSchema ? { databaseSchema } : {}),
    redisKeyPrefix,
    org: async (slug) => {
      const existing = (await gateway.services.orgs.list()).find((o) => o.slug === slug);
      return existing ?? gateway.services.orgs.create(slug);
    },
    key: async (orgSlug, scopes, keyOpts = {}) => {
      const existing = (await gateway.services.orgs.list()).find((o) => o.slug === orgSlug);
      if (!existing) await gateway.services.orgs.create(orgSlug);
      return gateway.services.apiKeys.create({ orgSlug, scopes, ...keyOpts });
    },
    request: async ({ key, ...inject }) => {
      const headers = { ...(inject.headers ?? {}), ...(key ? { authorization: `Bearer ${key}` } : {}) };
      const res = await app.inject({ ...inject, headers });
      return Object.assign(res, { json: <T>() => JSON.parse(res.body) as T });
    },
    crashAfterCommit: (operation) => void armed.add(operation),
    close: async () => {
      await app.close();
      await gateway.close();
      await cleanup();
    },
  };
}
