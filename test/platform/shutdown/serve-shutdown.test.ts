import { connect } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/platform/core/clock.js';
import { startHubSim, type HubSim } from '../../../src/sim/hub-sim.js';
import { startVendorSim, type VendorSim } from '../../../src/sim/vendor-sim.js';
import { orderPayload, seedCatalog } from '../../modules/orders/orders-support.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';
import { waitFor } from '../../support/wait-for.js';
import { childEnv, postJson, requireBuild, type ServeProcess, startServe } from '../outbox/process-support.js';

/** Whether a TCP connection to the port is accepted (and closes it at once). */
function accepts(url: string): Promise<boolean> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function exitOf(p: ServeProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    if (p.child.exitCode !== null || p.child.signalCode !== null) resolve({ code: p.child.exitCode, signal: p.child.signalCode });
    else p.child.once('exit', (code, signal) => resolve({ code, signal }));
  });
}

describe.each(dialects)('serve on SIGTERM (%s)', (dialect) => {
  let h: Harness;
  let hub: HubSim;
  let vendor: VendorSim;
  let key: string;
  const running: ServeProcess[] = [];

  beforeAll(async () => {
    requireBuild();
    hub = await startHubSim();
    vendor = await startVendorSim({ fleetSize: 20, pageSize: 5 });
    // Real time: the serve process runs on the system clock, and leases are compared across processes.
    h = await startHarness(dialect, { clock: new ManualClock(new Date()), env: { VENDOR_SIM_URL: vendor.url } });
    await seedCatalog(h, 'acme');
    key = (await h.key('acme', 'orders:read,orders:write')).key;
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((p) => p.kill('SIGKILL')));
    await hub.setMode({ kind: 'up' });
  });
  afterAll(async () => {
    await h.close();
    await vendor.close();
    await hub.close();
  });

  it('refuses new connections, finishes the request in flight and the poll in flight, releases its leases and exits 0', { timeout: 120_000 }, async () => {
    const { connect_token } = await h.gateway.services.connectTokens.issue({ org: 'acme' });
    const connected = await h.request({ method: 'POST', url: '/connect', payload: { connect_token, provider: 'vendor1_livelink', credentials: { username: 'fleet', password: 'pw' } } });
    expect(connected.statusCode, connected.body).toBe(200);
    const connectionId = connected.json<{ connection_id: string }>().connection_id;
    const db = h.gateway.database.db;
    const connection = () => db.selectFrom('telematics_connections').select(['lease_owner', 'last_run']).where('id', '=', connectionId).executeTakeFirstOrThrow();

    // Slow enough that both the order's hub delivery and the poll are still running when the signal comes.
    await hub.setMode({ kind: 'slow', delayMs: 2000 });
    vendor.setMode('vendor1_livelink', { kind: 'slow', delayMs: 1500 });
    const serve = await startServe(
      childEnv(h, { HUB_URL: hub.url, HUB_TIMEOUT_MS: '20000', HUB_BATCH_TIMEOUT_MS: '20000', OUTBOX_LEASE_MS: '60000', VENDOR_SIM_URL: vendor.url, POLLER_IDLE_MS: '100', SHUTDOWN_TIMEOUT_MS: '60000' }),
    );
    running.push(serve);
    const exited = exitOf(serve);
    // The connection's own `connected` event reaches the hub first; the order's delivery is the one after it.
    await waitFor(() => hub.events().some((e) => e.type === 'telematics.connection.connected'), { what: "the connection's connected event at the hub", timeoutMs: 30_000 });
    const before = hub.stats().received;
    const inFlight = postJson(serve.url, '/v1/orders', orderPayload('PO-SHUTDOWN'), { authorization: `Bearer ${key}` });
    await waitFor(() => hub.stats().received > before, { what: "the order's delivery at the hub", timeoutMs: 30_000 });
    await waitFor(async () => (await connection()).lease_owner !== null, { what: 'a poll in flight', timeoutMs: 30_000 });

    serve.child.kill('SIGTERM');
    await waitFor(async () => !(await accepts(serve.url)), { what: 'new connections refused', timeoutMs: 30_000 });
    const answered = await inFlight;
    expect(answered.status, answered.text).toBe(201);
    expect(JSON.parse(answered.text)).toMatchObject({ ok: true, order: { po_number: 'PO-SHUTDOWN', delivery: { status: 'delivered' } } });
    expect(await exited).toEqual({ code: 0, signal: null });

    // Nothing held: no delivery in flight or owned, the poll finished and gave its connection back.
    const held = await db.selectFrom('outbox').select(['id', 'status']).where((eb) => eb.or([eb('lease_owner', 'is not', null), eb('status', '=', 'delivering')])).execute();
    expect(held).toEqual([]);
    const after = await connection();
    expect(after.lease_owner).toBeNull();
    expect(after.last_run).not.toBeNull();
  });

  it('exits non-zero when a request does not finish within SHUTDOWN_TIMEOUT_MS', { timeout: 60_000 }, async () => {
    await hub.setMode({ kind: 'slow', delayMs: 60_000 });
    const serve = await startServe(
      childEnv(h, { HUB_URL: hub.url, HUB_TIMEOUT_MS: '60000', HUB_BATCH_TIMEOUT_MS: '60000', OUTBOX_LEASE_MS: '120000', POLLER_IDLE_MS: '60000', SHUTDOWN_TIMEOUT_MS: '500' }),
    );
    running.push(serve);
    const exited = exitOf(serve);
    const received = hub.stats().received;
    const stuck = postJson(serve.url, '/v1/orders', orderPayload('PO-STUCK'), { authorization: `Bearer ${key}` }).catch((err: unknown) => err);
    // The order committed (so its request is in its handler, not still queued: SIGTERM would answer that one 503) ...
    const db = h.gateway.database.db;
    await waitFor(async () => (await db.selectFrom('orders').select('id').where('po_number', '=', 'PO-STUCK').executeTakeFirst()) !== undefined, { what: 'the order committed', timeoutMs: 30_000 });
    // ... and its delivery reached the hub, which holds it.
    await waitFor(() => hub.stats().received > received, { what: "the order's delivery at the hub", timeoutMs: 30_000 });
    serve.child.kill('SIGTERM');
    expect(await exited).toEqual({ code: 1, signal: null });
    expect(await stuck).toBeInstanceOf(Error);
  });
});
