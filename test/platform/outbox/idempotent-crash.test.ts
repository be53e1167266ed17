import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/platform/core/clock.js';
import { startHubSim, type HubSim } from '../../../src/sim/hub-sim.js';
import { orderPayload, seedCatalog } from '../../modules/orders/orders-support.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';
import { waitFor } from '../../support/wait-for.js';
import { childEnv, postJson, requireBuild, type ServeProcess, startServe } from './process-support.js';

/**
 * Exactly once across a crash: a write commits its change, its hub event and its replayable answer together, so a
 * process killed while the request waits for the hub leaves an answer that a retry with the same Idempotency-Key gets,
 * on another process, instead of a second write.
 */
interface CrashCase {
  label: string;
  path: string;
  /** The request body, and the same body with its keys in another order at every depth. */
  body: (tag: string) => { json: unknown; reordered: unknown };
  status: number;
  eventType: string;
  /** The committed outbox row of this call, found by what it carries. */
  marker: (tag: string) => string;
  /** What ties the replayed answer to the one write and its one hub event. */
  check: (answer: Record<string, unknown>, outboxId: string, h: Harness, tag: string) => Promise<void>;
}

const cases: CrashCase[] = [
  {
    label: 'POST /v1/orders',
    path: '/v1/orders',
    body: (tag) => {
      const json = orderPayload(`PO-CRASH-${tag}`, [
        { sku: 'tire-225', quantity: 4, unit_price: '129.99' },
        { sku: 'TIRE-MUD', quantity: 2, unit_price: '210.5' },
      ]);
      const reordered = {
        lines: json.lines.map((l) => ({ unit_price: l.unit_price, quantity: l.quantity, sku: l.sku })),
        ship_to: json.ship_to,
        po_number: json.po_number,
      };
      return { json, reordered };
    },
    status: 201,
    eventType: 'order.created',
    marker: (tag) => `PO-CRASH-${tag}`,
    async check(answer, outboxId, h, tag) {
      const order = answer.order as { id: string; po_number: string; status: string; delivery: unknown };
      const rows = await h.gateway.database.db.selectFrom('orders').select(['id', 'last_event_id']).where('po_number', '=', `PO-CRASH-${tag}`).execute();
      expect(rows).toEqual([{ id: order.id, last_event_id: outboxId }]);
      // The answer as it stood at commit: the hub had not taken the event yet.
      expect(order).toMatchObject({ po_number: `PO-CRASH-${tag}`, status: 'submitted', delivery: { status: 'queued', attempts: 0, last_error: null } });
    },
  },
  {
    label: 'POST /v1/inventory',
    path: '/v1/inventory',
    body: (tag) => ({
      json: { rows: [{ sku: 'TIRE-225', qty: 31 }, { sku: `CRASH-${tag}`, qty: 5 }] },
      reordered: { rows: [{ qty: 31, sku: 'TIRE-225' }, { qty: 5, sku: `CRASH-${tag}` }] },
    }),
    status: 202,
    eventType: 'inventory.updated',
    marker: (tag) => `CRASH-${tag}`,
    check(answer, outboxId, _h, tag) {
      expect(answer).toEqual({ ok: true, queued: true, delivery_id: outboxId, delivery_status: 'queued', applied: 1, unknown_skus: [`CRASH-${tag}`] });
      return Promise.resolve();
    },
  },
];

describe.each(dialects)('exactly once across a crash of a real serve process (%s)', (dialect) => {
  let h: Harness;
  let sim: HubSim;
  let key: string;
  const running: ServeProcess[] = [];

  beforeAll(async () => {
    requireBuild();
    sim = await startHubSim();
    // Real time: the serve processes run on the system clock, and leases and key locks are compared across processes.
    h = await startHarness(dialect, { clock: new ManualClock(new Date()) });
    await seedCatalog(h, 'acme');
    key = (await h.key('acme', 'orders:read,orders:write,inventory:write')).key;
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((p) => p.kill('SIGTERM')));
    await sim.reset();
  });
  afterAll(async () => {
    await h.close();
    await sim.close();
  });

  // The request waits for the hub up to HUB_TIMEOUT_MS, long enough for the kill to land while it waits on a loaded machine;
  // a lease left by the killed process runs out after OUTBOX_LEASE_MS. Both processes' drains poll often: the event is
  // written leased to the request's process, so its drain cannot take it from under the request.
  const env = () => childEnv(h, { HUB_URL: sim.url, HUB_TIMEOUT_MS: '12000', HUB_BATCH_TIMEOUT_MS: '3000', OUTBOX_LEASE_MS: '13000', OUTBOX_POLL_MS: '50' });

  it.each(cases.map((c) => [c.label, c] as const))(
    '%s: killed while waiting for the hub, the retry on a new process replays the first answer; the hub gets one event',
    { timeout: 90_000 },
    async (_label, c) => {
      const tag = `${dialect}-${c.eventType}`;
      const idempotencyKey = `crash-${tag}`;
      const { json, reordered } = c.body(tag);
      const outboxRow = () =>
        h.gateway.database.db.selectFrom('outbox').select(['id', 'status']).where('type', '=', c.eventType).where('payload', 'like', `%${c.marker(tag)}%`).execute();

      // The hub holds on to what it is sent, so the request is still waiting for it when the process dies.
      await sim.setMode({ kind: 'slow', delayMs: 60_000 });
      const first = await startServe(env());
      running.push(first);
      const firstAnswer = postJson(first.url, c.path, json, { authorization: `Bearer ${key}`, 'idempotency-key': idempotencyKey }).then(
        (res) => ({ answered: res.status }),
        (err: unknown) => ({ failed: String(err) }),
      );
      // Committed (the outbox row is written with the change and the stored answer), and on its way to the hub.
      await waitFor(async () => (await outboxRow()).length === 1 && sim.received() >= 1, { what: 'the commit and the hub request in flight' });
      await first.kill('SIGKILL');
      // The client never got an answer: it will retry.
      expect(await firstAnswer).toMatchObject({ failed: expect.any(String) as unknown });
      const [committed] = await outboxRow();
      if (!committed) throw new Error('no outbox row');

      await sim.setMode({ kind: 'up' });
      const second = await startServe(env());
      running.push(second);
      const headers = { authorization: `Bearer ${key}`, 'idempotency-key': idempotencyKey };
      const retry = await postJson(second.url, c.path, json, headers);
      expect(retry.status, retry.text).toBe(c.status);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      const answer = JSON.parse(retry.text) as Record<string, unknown>;
      await c.check(answer, committed.id, h, tag);

      // The fingerprint is over canonical JSON: the same body with its keys in another order is the same request.
      const again = await postJson(second.url, c.path, reordered, headers);
      expect(again.status, again.text).toBe(c.status);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(JSON.parse(again.text)).toEqual(answer);

      // The new process takes the delivery over once the dead one's lease runs out; the hub ends up with one event.
      await waitFor(async () => (await outboxRow())[0]?.status === 'delivered', { what: 'the event delivered', timeoutMs: 40_000, intervalMs: 100 });
      const events = sim.events().filter((e) => e.type === c.eventType);
      expect(events.map((e) => e.id)).toEqual([committed.id]);
      expect(await outboxRow()).toHaveLength(1);
    },
  );
});
