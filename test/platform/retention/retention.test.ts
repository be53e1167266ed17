import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../../src/platform/db/database.js';
import { createRetentionWorker } from '../../../src/gateway.js';
import type { OutboxTable } from '../../../src/platform/outbox/outbox.tables.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';
import { waitFor } from '../../support/wait-for.js';

const DAY = 24 * 60 * 60 * 1000;

describe.each(dialects)('retention (%s)', (dialect) => {
  let h: Harness;
  let orgId: string;
  let seq = 0;

  beforeAll(async () => {
    h = await startHarness(dialect, { env: { RETENTION_BATCH_SIZE: '1000', RETENTION_OUTBOX_DELIVERED_MS: String(7 * DAY), RETENTION_IDEMPOTENCY_MS: String(DAY) } });
    orgId = (await h.org('acme')).id;
  });
  afterAll(async () => {
    await h.close();
  });
  beforeEach(async () => {
    await h.gateway.database.db.deleteFrom('outbox').execute();
    await h.gateway.database.db.deleteFrom('idempotency_keys').execute();
  });

  const ago = (ms: number) => new Date(h.clock.now().getTime() - ms).toISOString();

  /** `n` outbox rows in one state, created `ageMs` ago (delivered then too when delivered), inserted in chunks. */
  async function outbox(n: number, status: OutboxTable['status'], ageMs: number, prefix: string): Promise<void> {
    const rows: OutboxTable[] = Array.from({ length: n }, () => {
      seq += 1;
      return {
        id: `${prefix}-${String(seq).padStart(6, '0')}`,
        org_id: orgId,
        destination: 'hub',
        target: null,
        type: 'order.created',
        content_type: 'application/json',
        payload: '{}',
        status,
        attempts: status === 'queued' ? 0 : 1,
        next_attempt_at: ago(ageMs),
        lease_owner: status === 'delivering' ? 'someone:1' : null,
        lease_until: status === 'delivering' ? ago(ageMs - 60_000) : null,
        last_error: status === 'rejected' ? 'refused' : null,
        created_at: ago(ageMs),
        delivered_at: status === 'delivered' ? ago(ageMs) : null,
      };
    });
    for (let i = 0; i < rows.length; i += 60) await h.gateway.database.db.insertInto('outbox').values(rows.slice(i, i + 60)).execute();
  }

  async function idempotency(key: string, expiredAgoMs: number): Promise<void> {
    await h.gateway.database.db
      .insertInto('idempotency_keys')
      .values({
        org_id: orgId,
        key,
        fingerprint: 'f',
        state: 'done',
        status_code: 201,
        content_type: 'application/json',
        response_body: '{"status":201,"output":{}}',
        owner_id: null,
        locked_until: ago(expiredAgoMs + DAY),
        created_at: ago(expiredAgoMs + DAY),
        expires_at: ago(expiredAgoMs),
      })
      .execute();
  }

  const outboxIds = async () => (await h.gateway.database.db.selectFrom('outbox').select('id').orderBy('id').execute()).map((r) => r.id);
  const idempotencyKeys = async () => (await h.gateway.database.db.selectFrom('idempotency_keys').select('key').orderBy('key').execute()).map((r) => r.key);

  it("an order whose delivered event was purged still reads as delivered, not queued", async () => {
    const { key } = await h.key('acme', 'all');
    const product = await h.request({ method: 'POST', url: '/v1/products', key, payload: { sku: 'RET-1', name: 'Retained tire', stock_qty: 5 } });
    expect(product.statusCode, product.body).toBe(201);
    const created = await h.request({ method: 'POST', url: '/v1/orders', key, payload: { po_number: 'PO-RET-1', ship_to: 'Dock 1', lines: [{ sku: 'RET-1', quantity: 1, unit_price: '10' }] } });
    expect(created.statusCode, created.body).toBe(201);
    const order = created.json<{ order: { id: string } }>().order;
    await h.gateway.database.db.updateTable('outbox').set({ status: 'delivered', attempts: 1, created_at: ago(8 * DAY), delivered_at: ago(8 * DAY) }).execute();
    expect((await h.gateway.retention.runOnce()).outbox_delivered?.deleted).toBeGreaterThanOrEqual(1);
    const read = await h.request({ method: 'GET', url: `/v1/orders/${order.id}`, key });
    expect(read.json<{ order: { delivery: { status: string } } }>().order.delivery.status).toBe('delivered');
    const list = await h.request({ method: 'GET', url: '/v1/orders', key });
    expect(list.json<{ orders: { id: string; delivery: { status: string } }[] }>().orders.find((o) => o.id === order.id)?.delivery.status).toBe('delivered');
  });

  it('purges delivered rows past retention in bounded batches, and keeps newer, queued, in-flight and rejected ones', async () => {
    await outbox(2500, 'delivered', 8 * DAY, 'old');
    await outbox(5, 'delivered', 6 * DAY, 'recent');
    await outbox(5, 'queued', 30 * DAY, 'queued');
    await outbox(5, 'delivering', 30 * DAY, 'inflight');
    await outbox(5, 'rejected', 30 * DAY, 'rejected');
    const report = await h.gateway.retention.runOnce();
    // 1000 + 1000 + 500: the third statement deletes fewer than a batch, so the purge ends there.
    expect(report.outbox_delivered).toEqual({ deleted: 2500, batches: 3 });
    const left = await outboxIds();
    expect(left).toHaveLength(20);
    expect(left.filter((id) => id.startsWith('old-'))).toEqual([]);
    expect(new Set(left.map((id) => id.split('-')[0]))).toEqual(new Set(['recent', 'queued', 'inflight', 'rejected']));
    expect(await h.gateway.retention.runOnce()).toMatchObject({ outbox_delivered: { deleted: 0, batches: 1 } });
  });

  it('purges idempotency records whose replay window ended longer ago than retention, and keeps the others', async () => {
    await idempotency('gone-1', 2 * DAY);
    await idempotency('gone-2', 3 * DAY);
    await idempotency('expired-recently', DAY / 2);
    await idempotency('live', -DAY / 2);
    const report = await h.gateway.retention.runOnce();
    expect(report.idempotency_expired).toEqual({ deleted: 2, batches: 1 });
    expect(await idempotencyKeys()).toEqual(['expired-recently', 'live']);
  });

  it('runs on several instances at once without deleting anything twice or failing', async () => {
    await outbox(1500, 'delivered', 10 * DAY, 'old');
    await outbox(3, 'queued', 10 * DAY, 'queued');
    // A second instance: its own connection (pool) to the same database, as another serve process has.
    const second: DatabaseHandle = openDatabase(h.config.DATABASE_URL, h.databaseSchema ? { schema: h.databaseSchema } : {});
    try {
      const small = { ...h.config, RETENTION_BATCH_SIZE: 100 };
      const a = createRetentionWorker(small, h.gateway.database, h.clock);
      const b = createRetentionWorker(small, second, h.clock);
      const reports = await Promise.all([a.runOnce(), b.runOnce(), a.runOnce()]);
      expect(reports.reduce((sum, r) => sum + (r.outbox_delivered?.deleted ?? 0), 0)).toBe(1500);
      expect(await outboxIds()).toHaveLength(3);
    } finally {
      await second.close();
    }
  });

  it('purges on its schedule once started, and stops', async () => {
    await outbox(30, 'delivered', 8 * DAY, 'old');
    await outbox(2, 'queued', 8 * DAY, 'queued');
    const worker = createRetentionWorker({ ...h.config, RETENTION_INTERVAL_MS: 50, RETENTION_BATCH_SIZE: 7 }, h.gateway.database, h.clock);
    worker.start();
    try {
      await waitFor(async () => (await outboxIds()).length === 2, { what: 'the scheduled purge' });
    } finally {
      await worker.stop();
    }
    expect((await outboxIds()).every((id) => id.startsWith('queued-'))).toBe(true);
  });
});
