import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createGateway } from '../../src/gateway.js';
import { ManualClock } from '../../src/platform/core/clock.js';
import { DEFAULT_WINDOW_MS } from '../../src/platform/ratelimit/rate-limiter.js';
import { windowStartOf } from '../../src/platform/ratelimit/sliding-window.js';
import { type HubSim, startHubSim } from '../../src/sim/hub-sim.js';
import { startVendorSim, type VendorSim, type VendorSimRequest } from '../../src/sim/vendor-sim.js';
import { type Harness, HARNESS_ADMIN_TOKEN, startHarness } from '../support/harness.js';
import { waitFor } from '../support/wait-for.js';
import { childEnv, requireBuild, type ServeProcess, startServe } from '../platform/outbox/process-support.js';

/**
 * Three `serve` processes on one PostgreSQL and Redis behind a round-robin of the test's own, a mixed load while the
 * hub goes down and comes back and one process is killed (SIGKILL) and restarted; then what must hold across them.
 */
const shared = Boolean(process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL);
const REQUESTS = 360;
const RATE_LIMIT = 60;
const TOKENS = 12;
/** The hub's connect page (fetch marks its calls as a browser's, so they carry an allowed Origin). */
const CONNECT_PAGE = 'https://connect.hub.example';
const PRODUCTS = ['TIRE-225', 'VALVE-KIT', 'WINTER-205', 'TPMS-SENSOR'];
const PO_850 = readFileSync(join(import.meta.dirname, '../modules/edi/fixtures/po-4010-single.x12'), 'latin1');

interface Answer {
  status: number;
  body: Record<string, unknown> & { error?: string };
}

/** An 850 with its own ISA13/GS06 and PO number, so each one is a new interchange and a new order. */
function interchange(n: number): string {
  const control = String(500 + n).padStart(9, '0');
  return PO_850.replaceAll('000000101', control).replace('*101*X*', `*${500 + n}*X*`).replace('GE*1*101', `GE*1*${500 + n}`).replace('PO-1001', `EDI-PO-${n}`);
}

/** The first pair of one account's vendor calls that overlap in time: two polls of one connection at once. */
function overlapOf(requests: readonly VendorSimRequest[]): [VendorSimRequest, VendorSimRequest] | undefined {
  const byAccount = new Map<string, VendorSimRequest[]>();
  for (const r of requests) if (r.account !== null) byAccount.set(r.account, [...(byAccount.get(r.account) ?? []), r]);
  for (const calls of byAccount.values()) {
    const sorted = calls.sort((a, b) => a.startedAt - b.startedAt);
    for (let i = 1; i < sorted.length; i++) {
      const [before, after] = [sorted[i - 1], sorted[i]];
      if (before !== undefined && after !== undefined && after.startedAt < before.endedAt) return [before, after];
    }
  }
  return undefined;
}

describe.skipIf(!shared)('three serve processes on one PostgreSQL and Redis, under faults', () => {
  let h: Harness;
  let hub: HubSim;
  let sim: VendorSim;
  let env: NodeJS.ProcessEnv;
  const processes: (ServeProcess | undefined)[] = [];
  let turn = 0;
  let writes = 0;

  beforeAll(async () => {
    requireBuild();
    hub = await startHubSim({ token: 'hub-token' });
    sim = await startVendorSim({ fleetSize: 3, pageSize: 3 });
    // Each vendor call takes a while, so two polls of one connection at once would overlap at the vendor.
    sim.setMode('vendor13', { kind: 'slow', delayMs: 120 });
    h = await startHarness('postgres', { env: { VENDOR_SIM_URL: sim.url } });
    env = childEnv(h, {
      REDIS_URL: process.env.TEST_REDIS_URL ?? '',
      HUB_URL: hub.url,
      HUB_TOKEN: 'hub-token',
      HUB_TIMEOUT_MS: '300',
      HUB_BATCH_TIMEOUT_MS: '2000',
      WEBHOOK_TIMEOUT_MS: '2000',
      OUTBOX_LEASE_MS: '4000',
      OUTBOX_POLL_MS: '200',
      VENDOR_SIM_URL: sim.url,
      GATEWAY_ADMIN_TOKEN: HARNESS_ADMIN_TOKEN,
      TRUST_PROXY: '127.0.0.1',
      CONNECT_ALLOWED_ORIGINS: CONNECT_PAGE,
      POLLER_IDLE_MS: '200',
      POLL_LEASE_MS: '5000',
    });
    for (let i = 0; i < 3; i++) processes.push(await startServe(env));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(processes.flatMap((p) => (p === undefined ? [] : [p.kill('SIGKILL')])));
    await h?.close();
    await hub?.close();
    await sim?.close();
  });

  /** The round-robin: the next live process; a refused or cut connection (a killed process) goes to the next one. */
  async function send(path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}, to?: number): Promise<Answer | undefined> {
    // A write carries one Idempotency-Key over its retries, as a careful client's does.
    const headers = { ...(init.method === 'POST' && path.startsWith('/v1/') ? { 'idempotency-key': `load-${++writes}` } : {}), ...init.headers };
    for (let attempt = 0; attempt < 3; attempt++) {
      const target = processes[to ?? turn++ % processes.length];
      if (target === undefined) continue;
      try {
        const res = await fetch(`${target.url}${path}`, { method: init.method ?? 'GET', headers, ...(init.body === undefined ? {} : { body: init.body }) });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      } catch {
        if (to !== undefined) return undefined;
      }
    }
    return undefined;
  }

  it('delivers every accepted write to the hub once, spends each connect token once, keeps each key to its limit, polls each connection once at a time', async () => {
    await h.org('acme');
    const { key } = await h.key('acme', 'all');
    const { key: limited } = await h.key('acme', 'products:read', { rateLimit: RATE_LIMIT });
    const auth = (k: string, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${k}`, ...extra });
    const json = { 'content-type': 'application/json' };
    for (const sku of PRODUCTS) {
      const res = await send('/v1/products', { method: 'POST', headers: auth(key, json), body: JSON.stringify({ sku, name: `Tire ${sku}`, stock_qty: 100_000 }) });
      expect(res?.status).toBe(201);
    }
    await h.gateway.services.ediPartners.create({ org: 'acme', name: 'BuyerCo', isa: 'ZZ/BUYERCO', ourIsa: 'ZZ/TIREGATEWAY' });
    // Issued by the operator through the processes (their clock, not the harness's).
    const tokens: { connect_token: string }[] = [];
    for (let i = 0; i < TOKENS; i++) {
      const res = await send('/admin/v1/connect-tokens', { method: 'POST', headers: { ...json, authorization: `Bearer ${HARNESS_ADMIN_TOKEN}` }, body: JSON.stringify({ org: 'acme', provider: 'vendor13' }) });
      expect(res?.status, JSON.stringify(res?.body)).toBe(201);
      tokens.push(res?.body as { connect_token: string });
    }

    const accepted = { orders: [] as string[], inventory: [] as string[], claims: [] as string[], edi: 0, reads: 0, runs: 0, connects: [] as number[][] };
    const failed: string[] = [];
    let client = 0;
    const connect = (token: string, to: number) =>
      send('/connect', { method: 'POST', headers: { ...json, origin: CONNECT_PAGE, 'x-forwarded-for': `10.9.${Math.floor(++client / 250)}.${client % 250}` }, body: JSON.stringify({ connect_token: token, provider: 'vendor13', credentials: { api_key: `acct-${token.slice(-8)}` } }) }, to);

    const step = async (i: number): Promise<void> => {
      const kind = i % 8;
      if (kind === 0) {
        const res = await send('/v1/orders', { method: 'POST', headers: auth(key, json), body: JSON.stringify({ po_number: `PO-${i}`, ship_to: 'Dealer 12, 1 Main St, Springfield', lines: [{ sku: PRODUCTS[i % 4], quantity: 1, unit_price: '99.5' }] }) });
        if (res?.status === 201) accepted.orders.push(String((res.body.order as { id: string }).id));
        else failed.push(`order ${i}: ${res?.status ?? 'no answer'} ${res?.body.error ?? ''}`);
      } else if (kind === 1) {
        const res = await send('/v1/inventory', { method: 'POST', headers: auth(key, json), body: JSON.stringify({ rows: [{ sku: PRODUCTS[i % 4], qty: 1000 + i }] }) });
        if (res?.status === 200 || res?.status === 202) accepted.inventory.push(String(res.body.delivery_id));
        else failed.push(`inventory ${i}: ${res?.status ?? 'no answer'}`);
      } else if (kind === 2) {
        const res = await send('/v1/warranty-claims', { method: 'POST', headers: auth(key, json), body: JSON.stringify({ sku: PRODUCTS[i % 4], description: `Bulge ${i}` }) });
        if (res?.status === 201) accepted.claims.push(String((res.body.claim as { id: string }).id));
        else failed.push(`claim ${i}: ${res?.status ?? 'no answer'}`);
      } else if (kind === 3) {
        const res = await send('/v1/edi', { method: 'POST', headers: auth(key, { 'content-type': 'application/edi-x12' }), body: interchange(i) });
        if (res?.status === 200) accepted.edi += 1;
        else failed.push(`edi ${i}: ${res?.status ?? 'no answer'}`);
      } else if (kind === 4 || kind === 5) {
        const res = await send(`/v1/products/${PRODUCTS[i % 4]}`, { headers: auth(key) });
        if (res?.status === 200) accepted.reads += 1;
      } else if (kind === 6) {
        const token = tokens[Math.floor(i / 8) % TOKENS];
        if (token !== undefined && Math.floor(i / 8) < TOKENS) {
          // The same token at two processes at once: one connection, one 200.
          const both = await Promise.all([connect(token.connect_token, i % 3), connect(token.connect_token, (i + 1) % 3)]);
          accepted.connects.push(both.map((r) => r?.status ?? 0));
          for (const r of both) if (r !== undefined && r.status !== 200 && r.status !== 409) failed.push(`connect ${i}: ${r.status} ${r.body.error ?? ''}`);
        }
      } else {
        const list = await send('/v1/telematics/connections', { headers: auth(key) });
        const connections = (list?.body.connections ?? []) as { id: string; status: string }[];
        const target = connections.find((c) => c.status === 'active');
        if (target !== undefined) {
          const res = await send(`/v1/telematics/connections/${target.id}/run`, { method: 'POST', headers: auth(key) });
          if (res?.status === 200) accepted.runs += 1;
        }
      }
    };

    // The load, eight at a time, with the faults at fixed points of it.
    for (let i = 0; i < REQUESTS; i += 8) {
      if (i === 96) await hub.setMode({ kind: 'down' });
      if (i === 216) await hub.setMode({ kind: 'up' });
      if (i === 264) processes[1] = await startServe(env);
      const batch = Promise.all(Array.from({ length: 8 }, (_, k) => step(i + k)));
      // Killed with requests in flight: a client retries those elsewhere with the same Idempotency-Key.
      if (i === 144) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        const victim = processes[1];
        processes[1] = undefined;
        await victim?.kill('SIGKILL');
      }
      await batch;
    }

    // One key's limit across the three: a burst of one and a half times it inside one window (a sliding window rightly
    // admits more when a burst straddles two). The window is an injected clock's, not a wait for the wall clock's next
    // one: a gateway on the same database and Redis, its clock at a window an hour ahead, spends the key's first request
    // there, and a window never moves back for a lagging clock (sliding-window.ts), so the processes count in that one.
    const ahead = await createGateway(h.config, {
      clock: new ManualClock(new Date(windowStartOf(Date.now(), DEFAULT_WINDOW_MS) + 3_600_000)),
      ...(h.databaseSchema ? { databaseSchema: h.databaseSchema } : {}),
      migrate: false,
    });
    const aheadApp = await buildApp(ahead, { logger: false });
    const first = await aheadApp.inject({ method: 'GET', url: `/v1/products/${PRODUCTS[0]}`, headers: auth(limited) });
    await aheadApp.close();
    await ahead.close();
    expect(first.statusCode, first.body).toBe(200);
    const burstStart = Date.now();
    const burst = await Promise.all(Array.from({ length: RATE_LIMIT * 1.5 }, () => send(`/v1/products/${PRODUCTS[0]}`, { headers: auth(limited) })));
    const burstMs = Date.now() - burstStart;
    const admitted = burst.filter((r) => r?.status === 200).length;

    // Nothing new after the load: pause the connections, then every queued event must reach the hub.
    await h.gateway.database.db.updateTable('telematics_connections').set({ status: 'paused' }).execute();
    await waitFor(
      async () => {
        const waiting = await h.gateway.database.db.selectFrom('outbox').select((eb) => eb.fn.countAll<number>().as('n')).where('status', '!=', 'delivered').executeTakeFirstOrThrow();
        return Number(waiting.n) === 0;
      },
      { what: 'every outbox row delivered', timeoutMs: 120_000, intervalMs: 250 },
    );

    const atHub = hub.events();
    const hubIds = new Set(atHub.map((e) => e.id));
    const outbox = await h.gateway.database.db.selectFrom('outbox').select(['id', 'type']).execute();
    const missing = outbox.filter((row) => !hubIds.has(row.id));
    const carrying = (type: string, id: string) => atHub.filter((e) => e.type === type && JSON.stringify(e.data).includes(id)).length;
    const telematicsEvents = outbox.filter((row) => row.type === 'telematics.event').length;
    const connectWins = accepted.connects.map((pair) => pair.filter((s) => s === 200).length);
    const connectionsMade = await h.gateway.database.db.selectFrom('telematics_connections').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    // The credentials check of POST /connect is not a poll (the same token posted twice checks twice, then one wins).
    const polls = sim.requests('vendor13').filter((r) => r.path !== '/vendor13/v1/account');
    const overlap = overlapOf(polls);

    process.stdout.write(
      [
        `three instances: ${REQUESTS} requests; accepted ${accepted.orders.length} orders, ${accepted.inventory.length} inventory updates,`,
        ` ${accepted.claims.length} claims, ${accepted.edi} EDI posts, ${accepted.reads} reads, ${accepted.runs} telematics runs; ${failed.length} writes not accepted`,
        ` (${failed.slice(0, 5).join(', ')}); hub: ${atHub.length} events stored, ${hub.stats().duplicates} resends answered as duplicates,`,
        ` ${missing.length} outbox rows missing of ${outbox.length} (${telematicsEvents} telematics events); connect tokens: ${TOKENS} sent twice each,`,
        ` ${connectWins.filter((n) => n === 1).length} with exactly one 200; rate limit ${RATE_LIMIT}/min: ${admitted} of ${burst.length} admitted in ${burstMs} ms;`,
        ` vendor13 poll calls: ${polls.length}, overlapping per connection: ${overlap === undefined ? 'none' : JSON.stringify(overlap)}\n`,
      ].join(''),
    );

    expect(missing, 'every queued event reached the hub').toEqual([]);
    for (const id of accepted.orders) expect(carrying('order.created', id), `order ${id} at the hub once`).toBe(1);
    for (const id of accepted.inventory) expect(hubIds.has(id), `inventory update ${id} at the hub`).toBe(true);
    for (const id of accepted.claims) expect(carrying('warranty_claim.created', id), `claim ${id} at the hub once`).toBe(1);
    expect(new Set(atHub.map((e) => e.id)).size, 'no event id twice at the hub').toBe(atHub.length);
    expect(accepted.orders.length + accepted.inventory.length + accepted.claims.length + accepted.edi).toBeGreaterThan(REQUESTS / 3);
    expect(telematicsEvents).toBeGreaterThan(0);
    expect(connectWins.every((n) => n === 1), `each token spent once: ${JSON.stringify(accepted.connects)}`).toBe(true);
    expect(Number(connectionsMade.n)).toBe(TOKENS);
    // The gateway ahead spent one of the window's RATE_LIMIT.
    expect(Math.abs(1 + admitted - RATE_LIMIT), `admitted ${admitted} of a ${RATE_LIMIT}/min limit, one spent ahead`).toBeLessThanOrEqual(RATE_LIMIT * 0.05);
    expect(overlap, 'no connection polled by two processes at once').toBeUndefined();
  }, 300_000);
});
