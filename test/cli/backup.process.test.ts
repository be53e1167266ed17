import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliRunner } from '../support/cli.js';
import { requireBuild, type ServeProcess, startServe } from '../platform/outbox/process-support.js';

/**
 * `backup` while `serve` takes orders, then `restore`: the copy passes integrity_check and holds every order answered
 * before the backup began; restore refuses a database a live process uses; PostgreSQL is pointed at its own tools.
 */
const ADMIN = 'backup-test-admin-token-0123456789';

describe('backup and restore of the embedded SQLite database', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-backup-'));
  const database = join(dir, 'gateway.sqlite');
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, DATABASE_URL: `sqlite:${database}`, GATEWAY_ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'silent' };
  const cli = cliRunner(env);
  let serve: ServeProcess | undefined;

  beforeAll(async () => {
    requireBuild();
    serve = await startServe(env);
  }, 60_000);

  afterAll(async () => {
    await serve?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  async function call(path: string, token: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
    if (serve === undefined) throw new Error('serve is not running');
    const res = await fetch(`${serve.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  }

  it('copies online under write load, and restores only onto a database no gateway runs on', async () => {
    expect((await call('/admin/v1/orgs', ADMIN, { slug: 'acme', name: 'Acme' })).status).toBe(201);
    const created = await call('/admin/v1/keys', ADMIN, { org: 'acme', scopes: ['products:write', 'orders:write', 'orders:read'] });
    const key = (created.json.key as { key: string }).key;
    expect((await call('/v1/products', key, { sku: 'TIRE-225', name: 'Tire 225', stock_qty: 1_000_000 })).status).toBe(201);

    const answered: { id: string; at: number }[] = [];
    const statuses: number[] = [];
    let writing = true;
    let n = 0;
    const writer = async () => {
      while (writing) {
        const res = await call('/v1/orders', key, { po_number: `PO-${++n}`, ship_to: 'Dealer 12, 1 Main St', lines: [{ sku: 'TIRE-225', quantity: 1, unit_price: '99.5' }] });
        statuses.push(res.status);
        if (res.status === 201) answered.push({ id: (res.json.order as { id: string }).id, at: Date.now() });
      }
    };
    const writers = [writer(), writer(), writer()];
    while (answered.length < 30) await new Promise((resolve) => setTimeout(resolve, 20));

    mkdirSync(join(dir, 'backups'));
    const file = join(dir, 'backups', 'one.sqlite');
    const began = Date.now();
    const before = answered.filter((a) => a.at < began).map((a) => a.id);
    const backup = await cli('backup', file);
    const ended = Date.now();
    // Orders answered after the backup returned: it cannot hold them, so the restored database must not either.
    while (answered.filter((a) => a.at > ended).length < 5) await new Promise((resolve) => setTimeout(resolve, 20));
    writing = false;
    await Promise.all(writers);
    const after = answered.filter((a) => a.at > ended).map((a) => a.id);

    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout).toContain(join(dir, 'gateway.secret'));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statuses.filter((s) => s !== 201)).toEqual([]);

    const again = await cli('backup', file);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/exists/);

    const refused = await cli('restore', file);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/a gateway is running on .*stop every serve process first/);

    await serve?.kill('SIGTERM');
    serve = undefined;
    const restored = await cli('restore', file);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toContain('gateway.secret');

    const db = new SQLite(database, { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      const ids = new Set((db.prepare('select id from orders').all() as { id: string }[]).map((r) => r.id));
      expect(before.filter((id) => !ids.has(id))).toEqual([]);
      expect(after.filter((id) => ids.has(id))).toEqual([]);
      expect(db.prepare('select count(*) as n from gateway_instances').get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }

    // The restored database serves, with the secret file beside it.
    serve = await startServe(env);
    const order = await call(`/v1/orders/${before[0]}`, key);
    expect(order.status).toBe(200);
    console.log(`backup under load: ${answered.length} orders answered, ${before.length} before the backup (all restored), ${after.length} after it (none restored)`);
  }, 120_000);

  it('refuses what it cannot restore, and points PostgreSQL at pg_dump', async () => {
    const missing = await cli('restore', join(dir, 'nowhere.sqlite'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no backup at/);

    const junk = join(dir, 'junk.sqlite');
    writeFileSync(junk, 'not a database at all, just some text that is long enough to have a header'.repeat(20));
    const bad = await cli('restore', junk);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/will not restore/);

    const pg = cliRunner({ ...env, DATABASE_URL: 'postgres://u@127.0.0.1:1/db', GATEWAY_SECRET: 'x'.repeat(32) });
    for (const command of ['backup', 'restore']) {
      const res = await pg(command, join(dir, 'pg.dump'));
      expect(res.code).toBe(1);
      expect(res.stderr.trim().split('\n')).toHaveLength(1);
      expect(res.stderr).toMatch(/pg_dump/);
    }
  });
});
