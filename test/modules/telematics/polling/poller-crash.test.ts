import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/platform/core/clock.js';
import { startHubSim, type HubSim } from '../../../../src/sim/hub-sim.js';
import { startVendorSim, type VendorSim } from '../../../../src/sim/vendor-sim.js';
import { childEnv, requireBuild, type ServeProcess, startServe } from '../../../platform/outbox/process-support.js';
import { dialects, type Harness, startHarness } from '../../../support/harness.js';
import { waitFor } from '../../../support/wait-for.js';

describe.each(dialects)('a serve process killed mid-poll (%s)', (dialect) => {
  let h: Harness;
  let vendor: VendorSim;
  let hub: HubSim;
  const running: ServeProcess[] = [];

  beforeAll(async () => {
    requireBuild();
    hub = await startHubSim();
    // 300 machines, 25 a page: twelve pages and several 500-event batches, so batches are written long before the poll ends.
    vendor = await startVendorSim({ fleetSize: 300, pageSize: 25 });
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

  it('killed mid-poll while answering requests, repeats the poll after a restart, and the hub holds each event once by id', { timeout: 120_000 }, async () => {
    const { connect_token } = await h.gateway.services.connectTokens.issue({ org: 'acme' });
    const connected = await h.request({ method: 'POST', url: '/connect', payload: { connect_token, provider: 'vendor1_livelink', credentials: { username: 'fleet', password: 'pw' } } });
    expect(connected.statusCode, connected.body).toBe(200);
    const id = connected.json<{ connection_id: string }>().connection_id;
    const db = h.gateway.database.db;
    const queued = async () => (await db.selectFrom('outbox').select('id').where('type', '=', 'telematics.event').execute()).map((r) => r.id);
    const connection = () => db.selectFrom('telematics_connections').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

    // Each page takes a while, so the process is mid-poll, some batches written, when it dies.
    vendor.setMode('vendor1_livelink', { kind: 'slow', delayMs: 300 });
    const env = childEnv(h, { VENDOR_SIM_URL: vendor.url, POLL_LEASE_MS: '2000', POLLER_IDLE_MS: '100', HUB_URL: hub.url, OUTBOX_POLL_MS: '50', HUB_BATCH_TIMEOUT_MS: '4000', WEBHOOK_TIMEOUT_MS: '4000', OUTBOX_LEASE_MS: '5000' });
    const first = await startServe(env);
    running.push(first);
    // Requests keep it busy meanwhile, so the poll it dies in reads and writes in yield rounds, small transactions.
    let answering = true;
    const requests = Array.from({ length: 4 }, async () => {
      while (answering) await fetch(`${first.url}/healthz`).then((r) => r.text()).catch(() => undefined);
    });
    await waitFor(async () => (await queued()).length > 0 && (await connection()).lease_owner !== null, { what: 'a batch written mid-poll', timeoutMs: 60_000 });
    await first.kill('SIGKILL');
    answering = false;
    await Promise.all(requests);
    const before = await connection();
    expect(before.last_run, 'the poll never finished').toBeNull();
    expect(before.cursors, 'the cursors did not move').toBeNull();
    const partial = (await queued()).length;

    vendor.setMode('vendor1_livelink', { kind: 'up' });
    running.push(await startServe(env));
    await waitFor(async () => (await connection()).last_run !== null, { what: 'the poll repeated after the lease ran out', timeoutMs: 60_000, intervalMs: 200 });
    const all = await queued();
    expect(all.length).toBeGreaterThan(partial);
    expect(JSON.parse((await connection()).last_run ?? '{}')).toMatchObject({ outcome: 'ok' });
    await waitFor(
      async () => (await db.selectFrom('outbox').select('id').where('type', '=', 'telematics.event').where('status', '!=', 'delivered').execute()).length === 0,
      { what: 'every event delivered', timeoutMs: 60_000, intervalMs: 200 },
    );
    const atHub = hub.events().filter((e) => e.type === 'telematics.event').map((e) => e.id);
    expect(atHub).toHaveLength(new Set(atHub).size);
    expect(new Set(atHub)).toEqual(new Set(all));
  });
});
