import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedConnections, seedDelivered } from '../../bench/jobs.bench.js';
import { ManualClock } from '../../src/platform/core/clock.js';
import { countUnder } from '../../src/platform/secrets/columns.js';
import { secretsStatus } from '../../src/platform/secrets/status.js';
import { childEnv, mainJs, requireBuild } from '../platform/outbox/process-support.js';
import { dialects, type Harness, startHarness } from '../support/harness.js';
import { waitFor } from '../support/wait-for.js';

const run = promisify(execFile);

let killed = 0;

/**
 * Starts `gateway <args>` and SIGKILLs it once `midway` holds; fails if the job ended on its own first (nothing was cut).
 * On PostgreSQL a statement the killed process had sent still runs (and commits) on its server backend, so this waits
 * until that process's backends are gone: only then is what the job left behind settled.
 */
async function killMidway(h: Harness, env: NodeJS.ProcessEnv, args: string[], midway: () => Promise<boolean>): Promise<void> {
  const appName = `gw-jobs-crash-${process.pid}-${++killed}`;
  const child: ChildProcess = spawn(process.execPath, [mainJs, ...args], { env: { ...env, PGAPPNAME: appName }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`gateway ${args.join(' ')} ended (${child.exitCode}) before it could be killed midway: ${stderr}`);
      return midway();
    },
    { what: `gateway ${args.join(' ')} midway`, timeoutMs: 120_000, intervalMs: 10 },
  );
  child.kill('SIGKILL');
  await exited;
  expect(child.signalCode).toBe('SIGKILL');
  if (h.dialect === 'postgres') {
    await waitFor(
      async () => {
        const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where application_name = ${appName}`.execute(h.gateway.database.db);
        return rows[0]?.n === 0;
      },
      { what: `the killed process's PostgreSQL backends (${appName}) to end`, timeoutMs: 60_000, intervalMs: 20 },
    );
  }
}

async function gatewayJson<T>(env: NodeJS.ProcessEnv, args: string[]): Promise<T> {
  const { stdout } = await run(process.execPath, [mainJs, ...args, '--json'], { env, maxBuffer: 10_000_000 });
  return JSON.parse(stdout) as T;
}

describe.each(dialects)('big jobs killed midway finish on the next run (%s)', (dialect) => {
  let h: Harness;
  let orgId: string;
  const dir = mkdtempSync(join(tmpdir(), 'gw-jobs-crash-'));

  beforeAll(async () => {
    requireBuild();
    // Real time: the child processes run on the system clock.
    h = await startHarness(dialect, { clock: new ManualClock(new Date()) });
    orgId = (await h.org('acme')).id;
  });
  afterAll(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('secrets rotate: resumed under the key it made, each value re-encrypted once', { timeout: 240_000 }, async () => {
    const total = 8_000;
    await seedConnections(h.gateway, orgId, total);
    const db = h.gateway.database.db;
    const column = { table: 'telematics_connections', idColumn: 'id', column: 'credentials_ciphertext' };
    const oldKey = await h.gateway.vault.currentKeyId();
    const env = childEnv(h);

    await killMidway(h, env, ['secrets', 'rotate'], async () => (await countUnder(db, column, oldKey)) < total);
    const cut = await secretsStatus(db, [column]);
    const newKey = cut.current_key_id;
    expect(newKey).not.toBe(oldKey);
    const left = cut.keys.find((k) => k.id === oldKey)?.values ?? 0;
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThan(total);

    const resumed = await gatewayJson<{ key_id: string; reencrypted: number; resumed: boolean }>(env, ['secrets', 'rotate']);
    expect(resumed).toEqual({ key_id: newKey, reencrypted: left, resumed: true });
    const after = await secretsStatus(db, [column]);
    expect(after.keys.map((k) => [k.id, k.values])).toEqual([[oldKey, 0], [newKey, total]]);
    const sample = await db.selectFrom('telematics_connections').select(['id', 'credentials_ciphertext']).where('id', '=', 'con_bench00001234').executeTakeFirstOrThrow();
    expect(JSON.parse(await h.gateway.vault.decrypt(sample.credentials_ciphertext ?? '', sample.id))).toEqual({ username: 'fleet-1234', password: 'pw-1234' });
  });

  it('retention purge: the next purge deletes what is left, and only delivered rows past retention', { timeout: 240_000 }, async () => {
    const total = 60_000;
    const db = h.gateway.database.db;
    await db.deleteFrom('outbox').execute();
    await seedDelivered(h.gateway, orgId, total);
    await seedDelivered(h.gateway, orgId, 30, 2);
    const count = async () => Number((await db.selectFrom('outbox').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const env = childEnv(h, { RETENTION_BATCH_SIZE: '200' });

    await killMidway(h, env, ['retention', 'purge'], async () => (await count()) < total + 30);
    const left = (await count()) - 30;
    expect(left).toBeGreaterThan(0);
    expect(left % 200, 'whole statements only').toBe(0);

    const report = await gatewayJson<Record<string, { deleted: number }>>(env, ['retention', 'purge']);
    expect(report.outbox_delivered?.deleted).toBe(left);
    expect(await count()).toBe(30);
  });

  it('objects define: the next define finishes the rewrite, each row rewritten once', { timeout: 240_000 }, async () => {
    const total = 12_000;
    const def = {
      key: 'tires',
      label: 'Tires',
      read_scope: 'objects:tires:read',
      write_scope: 'objects:tires:write',
      key_field: 'sku',
      fields: [
        { name: 'sku', type: 'string', required: true },
        { name: 'size', type: 'string', required: true },
      ],
    };
    await h.gateway.services.objects.define('acme', def);
    const key = (await h.key('acme', 'objects:tires:read,objects:tires:write', { rateLimit: 100_000 })).key;
    for (let start = 0; start < total; start += 1000) {
      const rows = Array.from({ length: 1000 }, (_, i) => ({ sku: `T-${start + i}`, size: `${200 + ((start + i) % 5) * 10}/55R16` }));
      expect((await h.request({ method: 'POST', url: '/v1/objects/tires', key, payload: { rows } })).statusCode).toBe(200);
    }
    const file = join(dir, 'tires.json');
    writeFileSync(file, JSON.stringify({ ...def, fields: [def.fields[0], { ...def.fields[1], filterable: true }] }));
    const db = h.gateway.database.db;
    const state = () => db.selectFrom('object_definitions').select(['version', 'rewrite_after', 'rewrite_through']).where('key', '=', 'tires').executeTakeFirstOrThrow();
    const env = childEnv(h);

    await killMidway(h, env, ['objects', 'define', '--org', 'acme', '--file', file], async () => Number((await state()).rewrite_after ?? 0) > 0);
    const cut = await state();
    expect(Number(cut.version)).toBe(2);
    const after = Number(cut.rewrite_after);
    expect(after).toBeLessThan(total);
    const filtered = await h.request({ method: 'GET', url: '/v1/objects/tires?size=210/55R16', key });
    expect(filtered.statusCode, 'a filter on the field being rewritten waits').toBe(409);

    const resumed = await gatewayJson<{ rows_resumed: number; rows_rewritten: number; definition: { version: number } }>(env, ['objects', 'define', '--org', 'acme', '--file', file]);
    expect(resumed).toMatchObject({ rows_resumed: total - after, rows_rewritten: 0, definition: { version: 3 } });
    expect(await state()).toMatchObject({ rewrite_after: null, rewrite_through: null });
    const page = await h.request({ method: 'GET', url: '/v1/objects/tires?size=210/55R16&limit=1000', key });
    expect(page.statusCode, page.body).toBe(200);
    expect(page.json<{ rows: unknown[]; next_cursor: string | null }>().rows).toHaveLength(1000);
    const unfiltered = await db.selectFrom('object_rows').select((eb) => eb.fn.countAll<number>().as('n')).where('s1', 'is', null).executeTakeFirstOrThrow();
    expect(Number(unfiltered.n), 'every row holds its size in its slot').toBe(0);
  });
});
