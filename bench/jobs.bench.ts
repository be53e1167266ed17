import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Gateway } from '../src/gateway.js';
import type { Db } from '../src/platform/db/schema.js';
import type { OutboxTable } from '../src/platform/outbox/outbox.tables.js';
import { inProcessGateway } from './support.js';

const DAY = 86_400_000;
/** Rows per seeding INSERT: under both dialects' bound-parameter limits. */
const SEED_CHUNK = 500;

/**
 * `n` telematics connections with encrypted credentials (paused, so no poller touches them), for `secrets rotate` over
 * them: `seedConnections(gw, orgId, 100_000)`, then `gw.vault.rotate(gw.encryptedColumns)` or
 * `./bin/gateway secrets rotate` on the same DATABASE_URL and GATEWAY_SECRET.
 */
export async function seedConnections(gw: Gateway, orgId: string, n: number): Promise<void> {
  const at = new Date().toISOString();
  for (let start = 0; start < n; start += SEED_CHUNK) {
    const rows = [];
    for (let i = start; i < Math.min(n, start + SEED_CHUNK); i++) {
      const id = `con_bench${String(i).padStart(8, '0')}`;
      rows.push({
        id,
        org_id: orgId,
        provider: 'vendor1_livelink',
        label: null,
        status: 'paused',
        credentials_ciphertext: await gw.vault.encrypt(JSON.stringify({ username: `fleet-${i}`, password: `pw-${i}` }), id),
        credentials_hint: 'fl***',
        connect_token_hash: `bench-${id}`,
        poll_interval_s: 300,
        created_at: at,
        updated_at: at,
        next_poll_at: '9999-12-31T00:00:00.000Z',
        breaker_state: 'closed',
        consecutive_failures: 0,
        cooldown_s: 0,
      });
    }
    await gw.database.db.insertInto('telematics_connections').values(rows).execute();
  }
}

/**
 * `n` outbox rows delivered `ageDays` ago (8: past the default 7 days' retention), for a retention purge of them:
 * `seedDelivered(gw, orgId, 1_000_000)`, then `gw.retention.runOnce()` or `./bin/gateway retention purge`.
 */
export async function seedDelivered(gw: Gateway, orgId: string, n: number, ageDays = 8): Promise<void> {
  const at = new Date(Date.now() - ageDays * DAY).toISOString();
  const prefix = `evt_bench_${randomBytes(3).toString('hex')}_`;
  await inChunks(gw.database.db, n, (i): OutboxTable => ({
    id: `${prefix}${String(i).padStart(8, '0')}`,
    org_id: orgId,
    destination: 'hub',
    target: null,
    type: 'order.created',
    content_type: 'application/json',
    payload: '{"id":"ord_bench","po_number":"PO-BENCH"}',
    status: 'delivered',
    attempts: 1,
    next_attempt_at: at,
    lease_owner: null,
    lease_until: null,
    last_error: null,
    created_at: at,
    delivered_at: at,
  }));
}

async function inChunks(db: Db, n: number, row: (i: number) => OutboxTable): Promise<void> {
  for (let start = 0; start < n; start += SEED_CHUNK) {
    const rows = Array.from({ length: Math.min(SEED_CHUNK, n - start) }, (_, k) => row(start + k));
    await db.insertInto('outbox').values(rows).execute();
  }
}

/** A job's slices: how many, the job's own rate, and the write time of its slices (each one transaction). */
export interface JobRun {
  items: number;
  slices: number;
  elapsedMs: number;
  perSecond: number;
  writeMs: { p50: number; p99: number; max: number };
}

export interface JobsBench {
  dialect: 'sqlite' | 'postgres';
  rotate: JobRun & { connections: number };
  purge: JobRun & { delivered: number };
}

function summary(items: number, elapsedMs: number, writes: number[]): JobRun {
  const sorted = [...writes].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { items, slices: writes.length, elapsedMs, perSecond: items / (elapsedMs / 1000), writeMs: { p50: at(0.5), p99: at(0.99), max: at(1) } };
}

/**
 * `secrets rotate` over `connections` connections and a retention purge of `delivered` delivered rows, each alone, in a
 * fresh database (SQLite by default; a PostgreSQL URL runs in a throwaway schema). `BENCH_ONLY=jobs npm run bench`.
 */
export async function benchJobs(opts: { connections?: number; delivered?: number; databaseUrl?: string } = {}): Promise<JobsBench> {
  const connections = opts.connections ?? 100_000;
  const delivered = opts.delivered ?? 1_000_000;
  const bench = await inProcessGateway('jobs', opts.databaseUrl);
  const gw = bench.gateway;
  try {
    const org = await gw.services.orgs.create('bench');
    await seedConnections(gw, org.id, connections);
    const rotateWrites: number[] = [];
    // Timed from the end of the first slice: before it the rotation waits one key-refresh interval (see SecretVault.rotate).
    let first = { at: 0, moved: 0 };
    const rotated = await gw.vault.rotate(gw.encryptedColumns, (slice) => {
      if (rotateWrites.length === 0) first = { at: performance.now(), moved: slice.moved };
      rotateWrites.push(slice.writeMs);
    });
    const rotateMs = performance.now() - first.at;

    await seedDelivered(gw, org.id, delivered);
    const purgeWrites: number[] = [];
    const started = performance.now();
    const report = await gw.retention.runOnce((batch) => purgeWrites.push(batch.writeMs));
    const purgeMs = performance.now() - started;
    return {
      dialect: bench.postgres ? 'postgres' : 'sqlite',
      rotate: { connections, ...summary(rotated.reencrypted - first.moved, rotateMs, rotateWrites) },
      purge: { delivered, ...summary(report.outbox_delivered?.deleted ?? 0, purgeMs, purgeWrites) },
    };
  } finally {
    await bench.close();
  }
}
