import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/platform/core/clock.js';
import { startHubSim, type HubSim } from '../../../src/sim/hub-sim.js';
import { orderPayload, seedCatalog } from '../../modules/orders/orders-support.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';
import { waitFor } from '../../support/wait-for.js';
import { childEnv, enqueueEvents, requireBuild, type ServeProcess, startServe, statusCounts } from './process-support.js';

describe.each(dialects)('delivery across real serve processes (%s)', (dialect) => {
  let h: Harness;
  let sim: HubSim;
  let orgId: string;
  const running: ServeProcess[] = [];

  beforeAll(async () => {
    requireBuild();
    sim = await startHubSim();
    // Real time: the serve processes run on the system clock, and leases are compared across processes.
    h = await startHarness(dialect, { clock: new ManualClock(new Date()) });
    await seedCatalog(h, 'acme');
    orgId = (await h.org('acme')).id;
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((p) => p.kill('SIGTERM')));
    await sim.reset();
  });
  afterAll(async () => {
    await h.close();
    await sim.close();
  });

  it('a serve process killed with SIGKILL mid-delivery loses nothing: after a restart every event reaches the hub once', { timeout: 120_000 }, async () => {
    const { key } = await h.key('acme', 'orders:write');
    for (let i = 0; i < 20; i++) {
      const res = await h.request({ method: 'POST', url: '/v1/orders', payload: orderPayload(`PO-KILL-${dialect}-${i}`), key });
      expect(res.json<{ order: { delivery: { status: string } } }>().order.delivery.status).toBe('queued');
    }
    await enqueueEvents(h, orgId, 1500, `kill-${dialect}`);
    const all = (await h.gateway.database.db.selectFrom('outbox').select('id').execute()).map((r) => r.id);
    expect(all).toHaveLength(1520);

    // The hub takes a batch and holds on to it, so the process dies with deliveries in flight.
    await sim.setMode({ kind: 'slow', delayMs: 60_000 });
    const env = childEnv(h, { HUB_URL: sim.url, HUB_BATCH_TIMEOUT_MS: '4000', WEBHOOK_TIMEOUT_MS: '4000', OUTBOX_LEASE_MS: '5000', OUTBOX_POLL_MS: '50' });
    const first = await startServe(env);
    running.push(first);
    await waitFor(async () => sim.received() >= 1 && ((await statusCounts(h)).delivering ?? 0) > 0, { what: 'a batch in flight' });
    await first.kill('SIGKILL');
    const inFlight = await h.gateway.database.db.selectFrom('outbox').select('id').where('status', '=', 'delivering').execute();
    expect(inFlight.length).toBeGreaterThan(0);

    await sim.setMode({ kind: 'up' });
    running.push(await startServe(env));
    await waitFor(async () => (await statusCounts(h)).delivered === all.length, { what: 'every event delivered', timeoutMs: 60_000, intervalMs: 200 });

    const received = sim.events().map((e) => e.id);
    expect(received).toHaveLength(all.length);
    expect(new Set(received)).toEqual(new Set(all));
    const redelivered = await h.gateway.database.db
      .selectFrom('outbox')
      .select(['id', 'attempts'])
      .where('id', 'in', inFlight.map((r) => r.id))
      .execute();
    // Claimed by the dead process, then again after its lease ran out.
    for (const row of redelivered) expect(Number(row.attempts)).toBeGreaterThanOrEqual(2);
  });

  // SQLite is the embedded single-process default: one file, one writer. Several processes on one database is the PostgreSQL deployment.
  it.skipIf(dialect === 'sqlite')('two serve processes drain 10,000 queued events: each sent and accepted exactly once', { timeout: 180_000 }, async () => {
    const ids = await enqueueEvents(h, orgId, 10_000, `pair-${dialect}`);
    // A little latency per batch keeps both processes busy at once.
    await sim.setMode({ kind: 'slow', delayMs: 50 });
    const env = childEnv(h, { HUB_URL: sim.url, OUTBOX_POLL_MS: '50', OUTBOX_CONCURRENCY: '2' });
    running.push(...(await Promise.all([startServe(env), startServe(env)])));
    await waitFor(async () => ((await statusCounts(h, `pair-${dialect}-`)).delivered ?? 0) >= ids.length, {
      what: '10,000 events delivered', timeoutMs: 150_000, intervalMs: 250,
    });
    const received = sim.events().map((e) => e.id);
    expect(received.filter((id) => id.startsWith(`pair-${dialect}-`))).toHaveLength(10_000);
    expect(new Set(received).size).toBe(received.length);
    expect(sim.stats().accepted).toBe(received.length);
    // attempts counts claims: 1 everywhere means no event was ever held by two workers or sent twice.
    const rows = await h.gateway.database.db.selectFrom('outbox').select(['attempts', 'lease_owner']).where('id', 'like', `pair-${dialect}-%`).execute();
    expect(rows.every((r) => Number(r.attempts) === 1)).toBe(true);
  });
});
