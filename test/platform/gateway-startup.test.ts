import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createGateway } from '../../src/gateway.js';
import { dialects } from '../support/harness.js';

/** A webhook timeout as long as the outbox lease: a module setting the gateway refuses once the database is open. */
const REFUSED = { WEBHOOK_TIMEOUT_MS: '60000', OUTBOX_LEASE_MS: '60000', LOG_LEVEL: 'silent' };
const REFUSAL = /^invalid configuration: OUTBOX_LEASE_MS \(60000\) must be longer than WEBHOOK_TIMEOUT_MS \(60000\)/;

describe('the webhook timeout against the outbox lease', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-startup-lease-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a webhook timeout the lease does not outlast, naming both settings; a shorter one starts', async () => {
    const env = { ...REFUSED, DATABASE_URL: `sqlite:${join(dir, 'gateway.sqlite')}` };
    await expect(createGateway(loadConfig(env))).rejects.toThrow(ConfigError);
    await expect(createGateway(loadConfig(env))).rejects.toThrow(REFUSAL);
    const started = await createGateway(loadConfig({ ...env, WEBHOOK_TIMEOUT_MS: '59999' }));
    await started.close();
  });
});

describe.each(dialects)('a gateway that fails to start after opening its database closes it (%s)', (dialect) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-startup-close-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('leaves no connection or handle open when a module setting is refused', async () => {
    if (dialect === 'sqlite') {
      // SQLite removes the WAL file when the last connection to the database closes; a leaked handle keeps it.
      const file = join(dir, 'gateway.sqlite');
      await expect(createGateway(loadConfig({ ...REFUSED, DATABASE_URL: `sqlite:${file}` }))).rejects.toThrow(REFUSAL);
      expect(existsSync(file)).toBe(true);
      expect(existsSync(`${file}-wal`)).toBe(false);
      return;
    }
    // Named connections: the pool's would stay open (idle) if nothing closed them.
    const name = `startup_close_${process.pid}_${Date.now()}`;
    const url = new URL(process.env.TEST_DATABASE_URL ?? '');
    url.searchParams.set('application_name', name);
    const env = { ...REFUSED, DATABASE_URL: url.toString(), GATEWAY_SECRET: 'x'.repeat(32) };
    await expect(createGateway(loadConfig(env), { migrate: false })).rejects.toThrow(REFUSAL);
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ n: string }>('select count(*) as n from pg_stat_activity where application_name = $1', [name]);
      expect(Number(rows[0]?.n)).toBe(0);
    } finally {
      await admin.end();
    }
  });
});

describe('SQLite journals of a started gateway', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-startup-journals-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  // A transaction runs on the write connection, whose setting this is (the read connection has its own).
  const tempStoreOfWriter = (gw: Awaited<ReturnType<typeof createGateway>>) =>
    gw.database.db.transaction().execute(async (tx) => (await sql<{ temp_store: number }>`pragma temp_store`.execute(tx)).rows[0]?.temp_store);

  it('keeps savepoint journals in memory once migrated, and in a file while a process migrates', async () => {
    const env = { LOG_LEVEL: 'silent', DATABASE_URL: `sqlite:${join(dir, 'gateway.sqlite')}` };
    const unmigrated = await createGateway(loadConfig(env), { migrate: false });
    try {
      expect(await tempStoreOfWriter(unmigrated)).toBe(0); // the default: a file
    } finally {
      await unmigrated.close();
    }
    const serving = await createGateway(loadConfig(env));
    try {
      expect(await tempStoreOfWriter(serving)).toBe(2); // MEMORY
    } finally {
      await serving.close();
    }
  });
});
