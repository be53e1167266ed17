import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { loadConfig } from '../src/config.js';
import { createGateway } from '../src/gateway.js';
import type { Database } from '../src/platform/db/schema.js';
import { enqueueHubEvent } from '../src/platform/outbox/outbox.js';
import {
  type BenchGateway,
  benchKey,
  benchPostgresUrl,
  createBenchDatabase,
  type LoadResult,
  load,
  loadSpread,
  postgresEnv,
  seedProducts,
  startBaseline,
  startGateway,
  startHubSimProcess,
} from './support.js';
import { ensureWrk, WRK_ROUNDS, type WrkTarget, wrkLoad } from './wrk.js';

export interface OrdersCreateBench {
  baseline: LoadResult;
  /** On SQLite. */
  gateway: LoadResult;
  /** gateway orders/s over bare Fastify requests/s (goal >= 0.12). */
  ratio: number;
  /** SQLite's `synchronous` the child ran with, as the environment gives it (`SQLITE_SYNCHRONOUS`, FULL when unset). */
  synchronous: string;
  /**
   * The same orders driven by wrk (a Lua script writes each body, with its own PO number), against bare Fastify under wrk,
   * in WRK_ROUNDS rounds of one run each; or why wrk could not run.
   */
  wrk: { ok: true; rounds: WrkOrderRound[] } | { ok: false; why: string };
  /** order.created events the hub simulator holds afterwards (warm-up included): every order reached the hub. */
  hubEvents: number;
  /** On PostgreSQL (a fresh database on BENCH_DATABASE_URL's server), one `serve` process and three on the same database; undefined without it. */
  postgres?: {
    one: LoadResult;
    three: LoadResult & { parts: LoadResult[] };
    hubEvents: number;
  };
}

/** One round of the orders' wrk runs: bare Fastify, then the gateway's orders. */
export interface WrkOrderRound {
  baseline: LoadResult;
  gateway: LoadResult;
}

export interface DrainBench {
  events: number;
  seconds: number;
  eventsPerSec: number;
}

export const ORDER_SKUS = ['BENCH-1', 'BENCH-2', 'BENCH-3'];
const LINES = [
  { sku: 'bench-1', quantity: 4, unit_price: '129.99' },
  { sku: 'bench-2', quantity: 2, unit_price: '19.9999' },
  { sku: 'bench-3', quantity: 1, unit_price: '0.1' },
];

/** POST /v1/orders with 3 lines of ORDER_SKUS and a unique PO number each; counts the orders it built. */
export function orderLoad(poPrefix = 'PO-') {
  let built = 0;
  const target = (url: string, headers: Record<string, string>): autocannon.Options => ({
    url: `${url}/v1/orders`,
    method: 'POST',
    headers,
    requests: [
      {
        method: 'POST',
        setupRequest: (req: object) => ({ ...req, body: JSON.stringify({ po_number: `${poPrefix}${++built}`, ship_to: 'Bench dealer', lines: LINES }) }),
      },
    ],
  });
  return { target, built: () => built };
}

/** The same orders for wrk: a Lua body per request, its PO number `<poPrefix><n>` (wrk counts n from 1 in every run). */
export function wrkOrderTarget(url: string, headers: Record<string, string>, poPrefix: string): WrkTarget {
  return { url: `${url}/v1/orders`, headers, duration: 0, bodyLua: `'{"po_number":"${poPrefix}' .. n .. '","ship_to":"Bench dealer","lines":${JSON.stringify(LINES)}}'` };
}

function requireClean(what: string, r: LoadResult): void {
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${what} answered ${r.non2xx} non-2xx and ${r.errors} errors`);
}

/** Waits (up to 15 s, for any delivery left to the outbox) until the hub holds every order but those in flight when a run stopped (50 a run). */
async function requireDelivered(hub: { orderEvents(): Promise<number> }, since: number, built: number, runs: number): Promise<number> {
  const until = Date.now() + 15_000;
  for (;;) {
    const held = (await hub.orderEvents()) - since;
    if (held >= built - 50 * runs) return held;
    if (Date.now() > until) throw new Error(`the hub holds ${held} orders of ${built} created`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * POST /v1/orders with 3 lines (a unique PO number each), the hub simulator up, against bare Fastify in the same run:
 * on SQLite, then (when BENCH_DATABASE_URL is set) on PostgreSQL with one and with three `serve` processes.
 */
export async function benchOrderCreate(durationSec: number): Promise<OrdersCreateBench> {
  const hub = await startHubSimProcess();
  try {
    const baselineServer = await startBaseline();
    const orders = orderLoad();
    let result: OrdersCreateBench;
    try {
      const gw = await startGateway({ HUB_URL: hub.url });
      try {
        const headers = benchKey(gw);
        await seedProducts(gw.url, headers, ORDER_SKUS);
        await load({ url: baselineServer.url, duration: 2 });
        await load({ ...orders.target(gw.url, headers), duration: 2 });
        const baseline = await load({ url: baselineServer.url, duration: durationSec }, { pids: [baselineServer.pid] });
        const gateway = await load({ ...orders.target(gw.url, headers), duration: durationSec }, { pids: [gw.pid] });
        requireClean('gateway', gateway);
        const wrkReady = ensureWrk();
        let wrk: OrdersCreateBench['wrk'] = wrkReady.ok ? { ok: false, why: 'not run' } : wrkReady;
        let wrkOrders = 0;
        if (wrkReady.ok) {
          // Each run's PO numbers carry the run's own prefix: wrk counts requests from 1 in every run.
          const target = (run: string) => wrkOrderTarget(gw.url, headers, `PO-wrk${run}-`);
          await wrkLoad({ url: baselineServer.url, duration: 1 });
          wrkOrders += (await wrkLoad({ ...target('warm'), duration: 2 })).requests;
          const rounds: WrkOrderRound[] = [];
          for (let round = 0; round < WRK_ROUNDS; round++) {
            const wrkBaseline = await wrkLoad({ url: baselineServer.url, duration: durationSec }, { pids: [baselineServer.pid] });
            const wrkGateway = await wrkLoad({ ...target(`run${round}`), duration: durationSec }, { pids: [gw.pid] });
            requireClean('gateway under wrk', wrkGateway);
            wrkOrders += wrkGateway.requests;
            rounds.push({ baseline: wrkBaseline, gateway: wrkGateway });
          }
          wrk = { ok: true, rounds };
        }
        const hubEvents = await requireDelivered(hub, 0, orders.built() + wrkOrders, wrkReady.ok ? 3 + WRK_ROUNDS : 2);
        result = {
          baseline,
          gateway,
          wrk,
          ratio: gateway.requestsPerSec / baseline.requestsPerSec,
          synchronous: process.env.SQLITE_SYNCHRONOUS ?? 'FULL',
          hubEvents,
        };
      } finally {
        await gw.stop();
      }
    } finally {
      await baselineServer.stop();
    }
    const pgUrl = benchPostgresUrl();
    if (pgUrl !== undefined) result.postgres = await benchOrderCreatePostgres(pgUrl, hub, durationSec);
    return result;
  } finally {
    await hub.stop();
  }
}

/** Orders/s on PostgreSQL: one `serve` process, then three on the same database, each driven by its own autocannon (50 connections in all). */
async function benchOrderCreatePostgres(
  pgUrl: string,
  hub: Awaited<ReturnType<typeof startHubSimProcess>>,
  durationSec: number,
): Promise<NonNullable<OrdersCreateBench['postgres']>> {
  const database = await createBenchDatabase(pgUrl);
  const gateways: BenchGateway[] = [];
  try {
    const env = { ...postgresEnv(database.url), HUB_URL: hub.url };
    const since = await hub.orderEvents();
    const orders = orderLoad();
    gateways.push(await startGateway(env));
    const [first] = gateways;
    if (first === undefined) throw new Error('no gateway');
    const headers = benchKey(first);
    await seedProducts(first.url, headers, ORDER_SKUS);
    await load({ ...orders.target(first.url, headers), duration: 2 });
    const one = await load({ ...orders.target(first.url, headers), duration: durationSec }, { pids: [first.pid], postgres: true });
    requireClean('gateway on PostgreSQL', one);
    gateways.push(await startGateway(env), await startGateway(env));
    await loadSpread(gateways.map((gw) => ({ ...orders.target(gw.url, headers), duration: 2 })));
    const three = await loadSpread(
      gateways.map((gw) => ({ ...orders.target(gw.url, headers), duration: durationSec })),
      { pids: gateways.map((gw) => gw.pid), postgres: true },
    );
    requireClean('three gateways on PostgreSQL', three);
    const hubEvents = await requireDelivered(hub, since, orders.built(), 4);
    return { one, three, hubEvents };
  } finally {
    await Promise.all(gateways.map((gw) => gw.stop()));
    await database.drop();
  }
}

/**
 * 100,000 events queued while the hub was away (SQLite), then the hub comes back and one process's
 * delivery worker drains them: events/s (goal >= 5,000/s).
 */
export async function benchDrain(events = 100_000): Promise<DrainBench> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-bench-drain-'));
  const hub = await startHubSimProcess();
  const gateway = await createGateway(loadConfig({ DATABASE_URL: `sqlite:${join(dir, 'drain.sqlite')}`, HUB_URL: hub.url, LOG_LEVEL: 'silent' }));
  try {
    const org = await gateway.services.orgs.create('bench');
    const { db } = gateway.database;
    for (let start = 0; start < events; start += 5_000) {
      await db.transaction().execute(async (tx) => {
        for (let i = start; i < Math.min(start + 5_000, events); i++) {
          await enqueueHubEvent(tx, { type: 'telematics.event', orgId: org.id, at: gateway.clock.now(), id: `bench-${i}`, data: { machine: `m-${i % 50}`, reading: i, unit: 'psi' } });
        }
      });
    }
    const pending = async () =>
      Number((await db.selectFrom('outbox').select((eb) => eb.fn.countAll<number>().as('n')).where('status', 'in', ['queued', 'delivering']).executeTakeFirstOrThrow()).n);
    const started = performance.now();
    gateway.delivery.start();
    while ((await pending()) > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    const seconds = (performance.now() - started) / 1000;
    return { events, seconds, eventsPerSec: events / seconds };
  } finally {
    await gateway.close();
    await hub.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface OrderWritesFloor {
  orders: number;
  /** Orders per transaction, as group commit shares them under the load above. */
  perCommit: number;
  usPerOrder: number;
}

/**
 * The floor of an order on SQLite: only its own statements, straight on better-sqlite3 (prepared once, no Kysely, no
 * HTTP, no hub): the catalog read of its 3 SKUs, the order row, its 3 lines and its outbox row, `perCommit` orders a
 * transaction at `synchronous = FULL`, on the gateway's own schema. Whatever the gateway does around them comes on top.
 */
export async function benchOrderWritesFloor(orders = 20_000, perCommit = 12): Promise<OrderWritesFloor> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-bench-floor-'));
  const file = join(dir, 'floor.sqlite');
  try {
    const gateway = await createGateway(loadConfig({ DATABASE_URL: `sqlite:${file}`, LOG_LEVEL: 'silent' }));
    const orgId = (await gateway.services.orgs.create('bench')).id;
    const at = new Date().toISOString();
    await gateway.database.db
      .insertInto('products')
      .values(ORDER_SKUS.map((sku) => ({ org_id: orgId, sku, sku_lower: sku.toLowerCase(), name: sku, name_lower: sku.toLowerCase(), description: null, status: 'active' as const, stock_qty: 40, stock_status: 'in_stock' as const, bin_location: null, created_at: at, updated_at: at })))
      .execute();
    await gateway.close();

    const connection = new SQLite(file);
    connection.pragma('journal_mode = WAL');
    connection.pragma('synchronous = FULL');
    connection.pragma('foreign_keys = ON');
    // Kysely only writes the SQL text, once; the rows' values go in the order of their keys, as Kysely lists the columns.
    const sqlOf = new Kysely<Database>({ dialect: new SqliteDialect({ database: connection }) });
    const skus = ORDER_SKUS.map((s) => s.toLowerCase());
    const readCatalog = connection.prepare(sqlOf.selectFrom('products').selectAll().where('org_id', '=', orgId).where('sku_lower', 'in', skus).compile().sql);
    const orderRow = (i: number) => ({
      id: `ord_floor_${i}`, org_id: orgId, po_number: `PO-${i}`, status: 'submitted' as const, ship_to: 'Bench dealer', notes: null, source: 'api' as const, currency: 'USD',
      line_count: 3, total_quantity: 7, subtotal: 5599960, last_event_id: `evt_floor_${i}`, created_at: at, updated_at: at,
    });
    const lineRows = (i: number) =>
      LINES.map((l, n) => ({ order_id: `ord_floor_${i}`, line_no: n + 1, org_id: orgId, sku: l.sku.toUpperCase(), product_name: l.sku, quantity: l.quantity, unit_price: 1299900, line_total: 5199600 }));
    const outboxRow = (i: number) => ({
      id: `evt_floor_${i}`, org_id: orgId, destination: 'hub', target: null, type: 'order.created', content_type: 'application/json',
      payload: JSON.stringify({ id: `evt_floor_${i}`, type: 'order.created', data: { ...orderRow(i), lines: lineRows(i) } }),
      status: 'delivering' as const, attempts: 1, next_attempt_at: at, lease_owner: 'floor', lease_until: at, last_error: null, created_at: at, delivered_at: null,
    });
    const insertOrder = connection.prepare(sqlOf.insertInto('orders').values(orderRow(0)).onConflict((oc) => oc.columns(['org_id', 'po_number']).doNothing()).compile().sql);
    const insertLines = connection.prepare(sqlOf.insertInto('order_lines').values(lineRows(0)).compile().sql);
    const insertOutbox = connection.prepare(sqlOf.insertInto('outbox').values(outboxRow(0)).onConflict((oc) => oc.column('id').doNothing()).compile().sql);
    const begin = connection.prepare('BEGIN IMMEDIATE');
    const commit = connection.prepare('COMMIT');

    const started = performance.now();
    for (let i = 1; i <= orders; i++) {
      if (i % perCommit === 1) begin.run();
      readCatalog.all(orgId, ...skus);
      insertOrder.run(...Object.values(orderRow(i)));
      insertLines.run(...lineRows(i).flatMap((row) => Object.values(row)));
      insertOutbox.run(...Object.values(outboxRow(i)));
      if (i % perCommit === 0 || i === orders) commit.run();
    }
    const usPerOrder = ((performance.now() - started) * 1000) / orders;
    await sqlOf.destroy();
    return { orders, perCommit, usPerOrder };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
