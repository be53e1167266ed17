import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { loadConfig } from '../../../src/config.js';
import { createGateway, type Gateway } from '../../../src/gateway.js';
import { type HubSim, startHubSim } from '../../../src/sim/hub-sim.js';
import { startVendorSim, type VendorSim } from '../../../src/sim/vendor-sim.js';
import { loggedErrorsFor } from '../../support/logged-errors.js';
import { type PgPair, startPgPair } from '../../support/pg-pair.js';
import { waitFor } from '../../support/wait-for.js';
import { requireBuild, type ServeProcess, startServe } from '../outbox/process-support.js';

/**
 * A PostgreSQL primary and its synchronous standby, two `serve` processes on the pair (DATABASE_URL names both) under a
 * mixed write load; the primary's postmaster is SIGKILLed mid-load and the standby promoted. Every write answered 2xx
 * must survive once, its event reach the hub once, its Idempotency-Key replay; nothing may answer 500.
 * Runs in CI's PostgreSQL pass (TEST_DATABASE_URL set), where the machine's PostgreSQL binaries are installed.
 */
const PRODUCTS = ['TIRE-225', 'VALVE-KIT', 'WINTER-205', 'TPMS-SENSOR'];
const PO_850 = readFileSync(join(import.meta.dirname, '../../modules/edi/fixtures/po-4010-single.x12'), 'latin1');
const CLIENTS = 6;
/** Writes answered before the crash, and after the promotion, before the load stops. */
const WRITES_BEFORE = 60;
const WRITES_AFTER = 60;
const HUB_TOKEN = 'hub-token';
/** Longer than serve's log buffer waits before it flushes (app.ts, LOG_FLUSH_MS). */
const LOG_FLUSH_WAIT_MS = 1500;

/** An 850 with its own control numbers and PO number, so each is a new interchange and a new order. */
function interchange(n: number): string {
  const control = String(700 + n).padStart(9, '0');
  return PO_850.replaceAll('000000101', control).replace('*101*X*', `*${700 + n}*X*`).replace('GE*1*101', `GE*1*${700 + n}`).replace('PO-1001', `EDI-FO-${n}`);
}

type Kind = 'order' | 'inventory' | 'claim' | 'edi' | 'run';

interface Write {
  kind: Kind;
  key: string;
  path: string;
  contentType: string;
  /** Absent for run-now, which takes no body. */
  body?: string;
  /** What identifies the write's row: PO number, claim description, inventory qty. */
  mark: string;
}

interface Answered {
  write: Write;
  status: number;
  body: Record<string, unknown>;
  /** Attempts before the 2xx: 503s, 409s (the key still held) and cut connections. */
  retries: number;
  /** The process that gave this answer. */
  serve?: ServeProcess;
}

describe.skipIf(!process.env.TEST_DATABASE_URL)('a PostgreSQL primary failover under load (its own primary and synchronous standby)', () => {
  let pair: PgPair;
  let hub: HubSim;
  let vendor: VendorSim;
  let gateway: Gateway;
  let env: NodeJS.ProcessEnv;
  const serves: ServeProcess[] = [];

  beforeAll(async () => {
    requireBuild();
    pair = await startPgPair();
    hub = await startHubSim({ token: HUB_TOKEN });
    vendor = await startVendorSim({ fleetSize: 2, pageSize: 5 });
    const secret = randomBytes(32).toString('hex');
    env = {
      PATH: process.env.PATH,
      DATABASE_URL: pair.url,
      GATEWAY_SECRET: secret,
      // Errors only: a 500 logs its cause there (error-handler.ts), which the test prints with the failed write.
      LOG_LEVEL: 'error',
      HUB_URL: hub.url,
      HUB_TOKEN,
      HUB_TIMEOUT_MS: '500',
      HUB_BATCH_TIMEOUT_MS: '2000',
      WEBHOOK_TIMEOUT_MS: '2000',
      OUTBOX_LEASE_MS: '4000',
      OUTBOX_POLL_MS: '200',
      VENDOR_SIM_URL: vendor.url,
      VENDOR_RATE_LIMIT_PER_MINUTE: '100000',
      POLLER_IDLE_MS: '200',
      POLL_LEASE_MS: '4000',
      INSTANCE_TTL_MS: '4000',
    };
    // An in-process gateway on the pair migrates it, seeds it, and reads the outcome (its pool fails over too).
    gateway = await createGateway(loadConfig({ DATABASE_URL: pair.url, GATEWAY_SECRET: secret, LOG_LEVEL: 'silent', VENDOR_SIM_URL: vendor.url }));
    for (let i = 0; i < 2; i++) serves.push(await startServe(env, { logs: true }));
  }, 150_000);

  afterAll(async () => {
    await Promise.all(serves.map((s) => s.kill('SIGKILL')));
    await gateway?.close();
    await hub?.close();
    await vendor?.close();
    await pair?.close();
  });

  it('loses no acknowledged write: each 2xx once, each event at the hub once, each key replays, no 500', { timeout: 240_000 }, async () => {
    await gateway.services.orgs.create('acme');
    const { key } = await gateway.services.apiKeys.create({ orgSlug: 'acme', scopes: 'all' });
    await gateway.services.ediPartners.create({ org: 'acme', name: 'BuyerCo', isa: 'ZZ/BUYERCO', ourIsa: 'ZZ/TIREGATEWAY' });
    const app = await buildApp(gateway, { logger: false });
    const auth = { authorization: `Bearer ${key}` };
    for (const sku of PRODUCTS) {
      const res = await app.inject({ method: 'POST', url: '/v1/products', headers: auth, payload: { sku, name: `Tire ${sku}`, stock_qty: 100_000 } });
      expect(res.statusCode, res.body).toBe(201);
    }
    const { connect_token } = await gateway.services.connectTokens.issue({ org: 'acme' });
    const connected = await app.inject({ method: 'POST', url: '/connect', payload: { connect_token, provider: 'vendor1_livelink', credentials: { username: 'fleet', password: 'pw' } } });
    expect(connected.statusCode, connected.body).toBe(200);
    const connectionId = connected.json<{ connection_id: string }>().connection_id;
    await app.close();

    const writeOf = (n: number): Write => {
      const json = 'application/json';
      const k = `fo-${n}`;
      switch (n % 5) {
        case 0:
          return { kind: 'order', key: k, path: '/v1/orders', contentType: json, mark: `FO-${n}`, body: JSON.stringify({ po_number: `FO-${n}`, ship_to: 'Dealer 12, 1 Main St, Springfield', lines: [{ sku: PRODUCTS[n % 4], quantity: 1, unit_price: '99.5' }] }) };
        case 1:
          return { kind: 'inventory', key: k, path: '/v1/inventory', contentType: json, mark: String(10_000 + n), body: JSON.stringify({ rows: [{ sku: PRODUCTS[n % 4], qty: 10_000 + n }] }) };
        case 2:
          return { kind: 'claim', key: k, path: '/v1/warranty-claims', contentType: json, mark: `Failover bulge ${n}`, body: JSON.stringify({ sku: PRODUCTS[n % 4], description: `Failover bulge ${n}` }) };
        case 3:
          return { kind: 'edi', key: k, path: '/v1/edi', contentType: 'application/edi-x12', mark: `EDI-FO-${n}`, body: interchange(n) };
        default:
          return { kind: 'run', key: k, path: `/v1/telematics/connections/${connectionId}/run`, contentType: json, mark: connectionId };
      }
    };

    const statuses = new Map<number, number>();
    const answered: Answered[] = [];
    /** Every answer 500 or over but 503, retried or not: each is explained by what its process logged. */
    const serverErrors: Answered[] = [];
    /** When the promotion returned, and when the first write sent after it was answered 2xx. */
    const promotion: { at?: number; firstWrite?: number } = {};
    let turn = 0;

    /** A careful client: the same Idempotency-Key over every retry, 503/409/cut connection retried at the other process. */
    const send = async (write: Write): Promise<Answered> => {
      const giveUpAt = Date.now() + 40_000;
      for (let retries = 0; ; retries++) {
        const target = serves[turn++ % serves.length] as ServeProcess;
        const sentAt = Date.now();
        let status: number;
        let body: Record<string, unknown>;
        try {
          const res = await fetch(`${target.url}${write.path}`, {
            method: 'POST',
            headers: { ...auth, ...(write.body === undefined ? {} : { 'content-type': write.contentType }), 'idempotency-key': write.key },
            ...(write.body === undefined ? {} : { body: write.body }),
            signal: AbortSignal.timeout(30_000),
          });
          status = res.status;
          body = (await res.json()) as Record<string, unknown>;
        } catch {
          status = 0;
          body = {};
        }
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (status >= 500 && status !== 503) serverErrors.push({ write, status, body, retries, serve: target });
        if (status >= 200 && status < 300) {
          if (promotion.at !== undefined && sentAt >= promotion.at) promotion.firstWrite ??= Date.now();
          return { write, status, body, retries, serve: target };
        }
        const retryable = status === 503 || status === 0 || (status === 409 && body.code === 'idempotency_in_flight');
        // Bounded, so a write that never succeeds fails the test with its last answer instead of hanging it.
        if (!retryable || Date.now() > giveUpAt) return { write, status, body, retries, serve: target };
        await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 200));
      }
    };

    let next = 0;
    let stop = false;
    const client = async (): Promise<void> => {
      while (!stop) {
        const answer = await send(writeOf(next++));
        answered.push(answer);
      }
    };
    const clients = Array.from({ length: CLIENTS }, () => client());

    await waitFor(() => answered.length >= WRITES_BEFORE, { what: 'writes before the crash', timeoutMs: 60_000, intervalMs: 20 });
    const killedAt = Date.now();
    await pair.killPrimary();
    await pair.promoteStandby();
    promotion.at = Date.now();
    const atPromotion = answered.length;
    await waitFor(() => answered.length >= atPromotion + WRITES_AFTER, { what: 'writes after the promotion', timeoutMs: 60_000, intervalMs: 20 });
    stop = true;
    await Promise.all(clients);

    // A 500 names its cause: the error (class, code, message, stack) its process logged for that request id.
    if (serverErrors.length > 0) await new Promise((resolve) => setTimeout(resolve, LOG_FLUSH_WAIT_MS));
    const causes = serverErrors.map((a) => {
      const logged = a.serve === undefined ? [] : loggedErrorsFor(a.serve.logged(), typeof a.body.request_id === 'string' ? a.body.request_id : undefined);
      return `${a.write.kind} ${a.write.path} answered ${a.status} ${JSON.stringify(a.body)} at ${a.serve?.url ?? '?'}; logged:\n${logged.length === 0 ? '(nothing)' : logged.join('\n')}`;
    });
    if (causes.length > 0) process.stdout.write(`pg failover: server errors and their logged causes:\n${causes.join('\n\n')}\n`);

    const db = gateway.database.db;
    const ok = answered.filter((a) => a.status >= 200 && a.status < 300);
    // A run-now meets the background poller's (or another client's) poll of the connection: 409, a clear answer.
    const notOk = answered.filter((a) => (a.status < 200 || a.status >= 300) && !(a.write.kind === 'run' && a.status === 409));
    expect(notOk.map((a) => `${a.write.kind} ${a.status} ${JSON.stringify(a.body)}`), `every write ends answered 2xx; server errors:\n${causes.join('\n\n')}`).toEqual([]);

    // Every 2xx write is there once (a retry that ran again would have made a second row).
    let found = 0;
    const count = async (kind: Kind, mark: string): Promise<number> => {
      if (kind === 'order' || kind === 'edi') return (await db.selectFrom('orders').select('id').where('po_number', '=', mark).execute()).length;
      if (kind === 'claim') return (await db.selectFrom('warranty_claims').select('id').where('description', '=', mark).execute()).length;
      if (kind === 'inventory') return (await db.selectFrom('outbox').select('id').where('type', '=', 'inventory.updated').where('payload', 'like', `%${mark}%`).execute()).length;
      return 1;
    };
    const duplicates: string[] = [];
    for (const a of ok) {
      const n = await count(a.write.kind, a.write.mark);
      if (n >= 1) found += 1;
      if (n !== 1) duplicates.push(`${a.write.kind} ${a.write.mark}: ${n}`);
    }

    // Each key replays its answer from the new primary: the same status and body, marked as a replay.
    let replayed = 0;
    for (const a of ok) {
      const res = await fetch(`${(serves[0] as ServeProcess).url}${a.write.path}`, {
        method: 'POST',
        headers: { ...auth, ...(a.write.body === undefined ? {} : { 'content-type': a.write.contentType }), 'idempotency-key': a.write.key },
        ...(a.write.body === undefined ? {} : { body: a.write.body }),
      });
      const body = (await res.json()) as Record<string, unknown>;
      if (res.status === a.status && res.headers.get('idempotent-replayed') === 'true' && JSON.stringify(body) === JSON.stringify(a.body)) replayed += 1;
    }

    // The outbox drains from the new primary: leases and heartbeats carried on there.
    await db.updateTable('telematics_connections').set({ status: 'paused' }).execute();
    await waitFor(async () => (await db.selectFrom('outbox').select('id').where('status', '!=', 'delivered').execute()).length === 0, {
      what: 'every outbox row delivered after the promotion',
      timeoutMs: 60_000,
      intervalMs: 250,
    });
    const outbox = await db.selectFrom('outbox').select(['id', 'type']).execute();
    const atHub = hub.events();
    const hubIds = new Set(atHub.map((e) => e.id));
    const missing = outbox.filter((row) => !hubIds.has(row.id));
    const instances = await db.selectFrom('gateway_instances').select('id').execute();
    const fiveHundreds = [...statuses].filter(([s]) => s >= 500 && s !== 503).reduce((n, [, c]) => n + c, 0);
    const seconds = promotion.firstWrite === undefined || promotion.at === undefined ? 'none' : ((promotion.firstWrite - promotion.at) / 1000).toFixed(2);

    process.stdout.write(
      `pg failover: writes answered ${ok.length}, writes found ${found}, events at the hub ${atHub.length} (outbox ${outbox.length}, missing ${missing.length}),` +
        ` duplicates ${duplicates.length + atHub.length - hubIds.size}, 5xx ${fiveHundreds} (503 during the switch: ${statuses.get(503) ?? 0}, cut connections: ${statuses.get(0) ?? 0},` +
        ` 409 key held: ${statuses.get(409) ?? 0}), retried writes ${ok.filter((a) => a.retries > 0).length}, replays ${replayed}/${ok.length},` +
        ` seconds without a primary ${((promotion.at - killedAt) / 1000).toFixed(2)} (INSTANCE_TTL_MS ${env.INSTANCE_TTL_MS}),` +
        ` seconds from promotion to the first successful write ${seconds}, instances registered on the new primary ${instances.length}\n`,
    );

    expect(fiveHundreds, `no 500; their logged causes:\n${causes.join('\n\n')}`).toBe(0);
    expect(duplicates, 'every 2xx write present once').toEqual([]);
    expect(found).toBe(ok.length);
    expect(replayed, 'every key replays its answer').toBe(ok.length);
    expect(missing, 'every outbox event at the hub').toEqual([]);
    expect(hubIds.size, 'no event twice at the hub').toBe(atHub.length);
    expect(promotion.firstWrite, 'writes succeed after the promotion').toBeDefined();
    expect(instances.length, 'both serve processes heartbeat on the new primary').toBeGreaterThanOrEqual(2);
  });
});
