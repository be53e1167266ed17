import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/platform/core/clock.js';
import { startHubSim, type HubSim } from '../../../../src/sim/hub-sim.js';
import { startVendorSim, type VendorSim } from '../../../../src/sim/vendor-sim.js';
import { childEnv, requireBuild, type ServeProcess, startServe } from '../../../platform/outbox/process-support.js';
import { dialects, type Harness, startHarness } from '../../../support/harness.js';
import { waitFor } from '../../../support/wait-for.js';

describe.each(dialects)('a serve process killed mid-sync (%s)', (dialect) => {
  let h: Harness;
  let vendor: VendorSim;
  let hub: HubSim;
  const running: ServeProcess[] = [];

  beforeAll(async () => {
    requireBuild();
    hub = await startHubSim();
    // 12 machines x 9 data elements: 108 slices, so the process dies with some written and most to go.
    vendor = await startVendorSim({ fleetSize: 12, pageSize: 25 });
    // Real time: the serve processes run on the system clock, and leases are compared across processes.
    h = await startHarness(dialect, { clock: new ManualClock(new Date()), env: { VENDOR_SIM_URL: vendor.url } });
    await h.org('acme');
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((p) => p.kill('SIGTERM')));
  });
  afterAll(async () => {
    await h.close();
    await vendor.close();
    await hub.close();
  });

  it('resumes the sync on another process after a SIGKILL: it completes once, every reading at the hub once', { timeout: 180_000 }, async () => {
    const { connect_token } = await h.gateway.services.connectTokens.issue({ org: 'acme' });
    const connected = await h.request({ method: 'POST', url: '/connect', payload: { connect_token, provider: 'vendor1_livelink', credentials: { username: 'fleet', password: 'pw' } } });
    expect(connected.statusCode, connected.body).toBe(200);
    const id = connected.json<{ connection_id: string }>().connection_id;
    const db = h.gateway.database.db;
    // Not polled meanwhile, so every telematics.event of the connection is the sync's and its count can be checked.
    await db.updateTable('telematics_connections').set({ next_poll_at: '9999-12-31T00:00:00.000Z' }).where('id', '=', id).execute();
    const key = (await h.key('acme', 'telematics:read,telematics:write')).key;
    const to = new Date(Date.now() - 60_000);
    const created = await h.request({ method: 'POST', url: `/v1/telematics/connections/${id}/replay`, key, payload: { from: new Date(to.getTime() - 86_400_000).toISOString(), to: to.toISOString() } });
    expect(created.statusCode, created.body).toBe(202);
    const syncId = created.json<{ sync: { id: string } }>().sync.id;
    const sync = () => db.selectFrom('telematics_syncs').selectAll().where('id', '=', syncId).executeTakeFirstOrThrow();
    const queued = async () => (await db.selectFrom('outbox').select('id').where('type', '=', 'telematics.event').execute()).map((r) => r.id);

    // Each vendor call takes a while, so the process is mid-sync, some slices written, when it dies.
    vendor.setMode('vendor1_livelink', { kind: 'slow', delayMs: 150 });
    const env = childEnv(h, { VENDOR_SIM_URL: vendor.url, SYNC_LEASE_MS: '2000', SYNC_IDLE_MS: '100', HUB_URL: hub.url, OUTBOX_POLL_MS: '50', HUB_BATCH_TIMEOUT_MS: '4000', WEBHOOK_TIMEOUT_MS: '4000', OUTBOX_LEASE_MS: '5000' });
    const first = await startServe(env);
    running.push(first);
    await waitFor(async () => (await sync()).slices_done >= 3, { what: 'slices written mid-sync', timeoutMs: 60_000, intervalMs: 50 });
    await first.kill('SIGKILL');
    const before = await sync();
    expect(before.status).toBe('running');
    expect(before.lease_owner, 'the dead process still holds it until its lease runs out').not.toBeNull();
    expect(before.slices_done).toBeLessThan(12 * 9);
    const partial = await queued();
    expect(partial.length).toBe(before.events_enqueued);

    vendor.setMode('vendor1_livelink', { kind: 'up' });
    running.push(await startServe(env));
    await waitFor(async () => (await sync()).status === 'completed', { what: 'the sync resumed and completed', timeoutMs: 120_000, intervalMs: 200 });
    const done = await sync();
    expect(done).toMatchObject({ slices_done: 12 * 9, machines_done: 12, machines_total: 12, failure_reason: null });
    const all = await queued();
    expect(all.length, 'each slice counted once').toBe(done.events_enqueued);
    await waitFor(async () => (await db.selectFrom('outbox').select('id').where('status', '!=', 'delivered').execute()).length === 0, {
      what: 'every event delivered',
      timeoutMs: 60_000,
      intervalMs: 200,
    });
    const atHub = hub.events().filter((e) => e.type === 'telematics.event').map((e) => e.id);
    expect(atHub).toHaveLength(new Set(atHub).size);
    expect(new Set(atHub)).toEqual(new Set(all));
    const completed = hub.events().filter((e) => e.type === 'telematics.sync.completed');
    expect(completed.map((e) => (e.data as { id: string; status: string }).id)).toEqual([syncId]);
  });
});
