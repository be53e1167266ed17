import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { createGateway } from '../src/gateway.js';
import SQLite from 'better-sqlite3';
import { WEBHOOK_DESTINATION } from '../src/modules/webhooks/webhook-sender.js';
import { enqueueHubEvent } from '../src/platform/outbox/outbox.js';
import { ORDER_SKUS, orderLoad, wrkOrderTarget } from './orders.bench.js';
import { benchKey, type LoadResult, load, median, processCpuUs, root, seedProducts, startGateway, startHubSimProcess, stopChild } from './support.js';
import { ensureWrk, wrkLoad } from './wrk.js';

const ENDPOINTS = 3;

export interface WebhooksBench {
  /**
   * cpuUsPerDelivery: this process's CPU (user + system, every thread) from the worker's start to the last delivery, per
   * delivery; mainThreadCpuUsPerDelivery: its main thread's alone (what the request thread pays; the rest is the send thread and V8's helpers).
   */
  fanOut: { events: number; deliveries: number; seconds: number; deliveriesPerSec: number; cpuUsPerDelivery: number; mainThreadCpuUsPerDelivery: number };
  /**
   * POST /v1/orders on one gateway without endpoints and one with three, measured in pairs (none then three, then three
   * then none, alternating); `pairRatios` is each pair's three over none, `ratio` their median.
   */
  orders: { generator: string; none: OrdersRun[]; three: OrdersRun[]; pairRatios: number[]; ratio: number };
}

/**
 * One run of the orders load and what every process on the machine spent on it, in µs of CPU per order: the gateway
 * (all its threads, and its main thread alone), the webhook receiver, the hub simulator and the load generator.
 */
export interface OrdersRun extends LoadResult {
  cpu: { gateway: number; gatewayMain: number; receiver: number; hub: number; generator: number | undefined };
  /**
   * With endpoints: the webhook deliveries still to send when the load stopped (a pending fan-out counts once per endpoint),
   * and the seconds from then until the receiver had every delivery of every event so far (webhook work yields to
   * requests, so a ratio read without this lag would hide what the endpoints waited).
   */
  lag?: { queued: number; drainSeconds: number };
}

/** The receiver child (bench/webhook-receiver.child.ts): its URL, the POSTs it has answered, and stop. */
interface Receiver {
  url: string;
  pid: number;
  received(): Promise<number>;
  stop(): Promise<void>;
}

async function startReceiverProcess(): Promise<Receiver> {
  const child: ChildProcess = spawn(process.execPath, [join(root, 'dist/bench/webhook-receiver.child.js')], { env: { PATH: process.env.PATH }, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout?.once('data', (d: Buffer) => resolve(d.toString().trim()));
    child.once('exit', () => reject(new Error('webhook receiver exited')));
  });
  const url = `http://127.0.0.1:${port}`;
  const received = async () => ((await (await fetch(url)).json()) as { received: number }).received;
  return { url, pid: child.pid ?? 0, received, stop: () => stopChild(child) };
}

/** Subscribes `ENDPOINTS` endpoints (every type) on the receiver through the API. */
async function subscribe(gatewayUrl: string, headers: Record<string, string>, receiverUrl: string): Promise<void> {
  for (let i = 0; i < ENDPOINTS; i++) {
    const res = await fetch(`${gatewayUrl}/v1/webhook-endpoints`, { method: 'POST', headers, body: JSON.stringify({ url: `${receiverUrl}/hooks/${i}`, event_types: ['*'] }) });
    if (res.status !== 201) throw new Error(`subscribing failed: ${res.status} ${await res.text()}`);
  }
}

/**
 * `events` inventory.updated events queued on SQLite while the worker is stopped, fanned out to 3 endpoints on a local
 * receiver (its own process); then one process's delivery worker sends them: deliveries/s from start to the last one.
 */
export async function benchFanOut(events: number, receiver: Pick<Receiver, 'url' | 'received'>): Promise<WebhooksBench['fanOut']> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-bench-webhooks-'));
  const gateway = await createGateway(loadConfig({ DATABASE_URL: `sqlite:${join(dir, 'webhooks.sqlite')}`, LOG_LEVEL: 'silent', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' }));
  try {
    const org = await gateway.services.orgs.create('bench');
    const { db } = gateway.database;
    const { webhooks } = gateway.services;
    for (let i = 0; i < ENDPOINTS; i++) {
      const url = `${receiver.url}/hooks/${i}`;
      await webhooks.checkUrl(url);
      await db.transaction().execute((tx) => webhooks.create(tx, org.id, { url, event_types: ['*'] }));
    }
    // The hub is not configured: its copies wait in the outbox, and only webhook deliveries are sent.
    for (let start = 0; start < events; start += 1_000) {
      await db.transaction().execute(async (tx) => {
        for (let i = start; i < Math.min(start + 1_000, events); i++) {
          await enqueueHubEvent(tx, { type: 'inventory.updated', orgId: org.id, at: gateway.clock.now(), id: `evt_bench_${i}`, data: { rows: [{ sku: `TIRE-${i % 50}`, stock_qty: i }], unknown_skus: [] } });
        }
      });
    }
    // Each event's row names its 3 endpoints (a pending fan-out), turned into its deliveries by the worker: that is timed
    // below with the sending.
    const pending = async (destination: string) =>
      Number(
        (await db.selectFrom('outbox').select((eb) => eb.fn.countAll<number>().as('n')).where('destination', '=', destination).where('status', 'in', ['queued', 'delivering']).executeTakeFirstOrThrow()).n,
      );
    const pendingFanOuts = async () => Number((await db.selectFrom('webhook_events').select((eb) => eb.fn.countAll<number>().as('n')).where('fanout', 'is not', null).executeTakeFirstOrThrow()).n);
    const fanOuts = await pendingFanOuts();
    if (fanOuts !== events) throw new Error(`queued ${fanOuts} webhook fan-outs, expected ${events}`);
    const deliveries = events * ENDPOINTS;
    const receivedBefore = await receiver.received();
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    const mainBefore = processCpuUs(process.pid, process.pid);
    gateway.delivery.start();
    // Waits on the receiver's count (another process), not on a count of the outbox every 20 ms, which cost this
    // process 30-90 µs of CPU per delivery; the outbox is asked only once the receiver has them all.
    while ((await receiver.received()) - receivedBefore < deliveries) await new Promise((resolve) => setTimeout(resolve, 20));
    while ((await pendingFanOuts()) + (await pending(WEBHOOK_DESTINATION)) > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const main = processCpuUs(process.pid, process.pid) - mainBefore;
    const delivered = Number((await db.selectFrom('outbox').select((eb) => eb.fn.countAll<number>().as('n')).where('destination', '=', WEBHOOK_DESTINATION).where('status', '=', 'delivered').executeTakeFirstOrThrow()).n);
    if (delivered !== deliveries) throw new Error(`${delivered} of ${deliveries} webhook deliveries delivered`);
    return { events, deliveries, seconds, deliveriesPerSec: deliveries / seconds, cpuUsPerDelivery: (cpu.user + cpu.system) / deliveries, mainThreadCpuUsPerDelivery: main / deliveries };
  } finally {
    await gateway.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs `drive` and reads each process's CPU around it (per order); the generator's own comes from wrk. */
async function measure(drive: () => Promise<LoadResult>, pids: { gateway: number; receiver: number; hub: number }): Promise<OrdersRun> {
  const read = () => ({ gateway: processCpuUs(pids.gateway), gatewayMain: processCpuUs(pids.gateway, pids.gateway), receiver: processCpuUs(pids.receiver), hub: processCpuUs(pids.hub) });
  const before = read();
  const result = await drive();
  const after = read();
  const per = (key: keyof typeof before) => (after[key] - before[key]) / Math.max(result.requests, 1);
  return {
    ...result,
    cpuUsPerRequest: per('gateway'),
    cpu: { gateway: per('gateway'), gatewayMain: per('gatewayMain'), receiver: per('receiver'), hub: per('hub'), generator: result.generatorCpuUsPerRequest },
  };
}

/**
 * What a three-endpoint gateway still had to send when its load stopped, and how long until the receiver had it all:
 * read from its SQLite file (read-only, beside the serving process) and the receiver's count, every 20 ms.
 */
async function drainLag(databaseUrl: string, receiver: Receiver, receivedBase: number): Promise<NonNullable<OrdersRun['lag']>> {
  const stopped = performance.now();
  const file = new SQLite(databaseUrl.replace(/^sqlite:/, ''), { readonly: true });
  try {
    const pending = file.prepare(`select count(*) as n from outbox where status in ('queued', 'delivering') and destination = ?`);
    // A pending fan-out is an event whose row still names its endpoints: it counts once per endpoint.
    const fanOuts = file.prepare(`select count(*) as n from webhook_events where fanout is not null`);
    const events = file.prepare(`select count(*) as n from webhook_events where type <> 'webhook.test'`);
    const queued = (pending.get(WEBHOOK_DESTINATION) as { n: number }).n + (fanOuts.get() as { n: number }).n * ENDPOINTS;
    // Every event (orders still in flight when wrk stopped commit too) goes to each endpoint once.
    while ((await receiver.received()) - receivedBase < (events.get() as { n: number }).n * ENDPOINTS) {
      if (performance.now() - stopped > 600_000) throw new Error('the webhook deliveries did not drain within 10 minutes of the load');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return { queued, drainSeconds: (performance.now() - stopped) / 1000 };
  } finally {
    file.close();
  }
}

/**
 * Waits until a gateway has nothing left to send (no queued or in-flight outbox row, hub or webhook, no pending fan-out),
 * then a second more: a run must not start while the previous run's deliveries are still being worked off.
 */
async function settle(databaseUrl: string): Promise<void> {
  const file = new SQLite(databaseUrl.replace(/^sqlite:/, ''), { readonly: true });
  try {
    const outstanding = file.prepare(
      `select (select count(*) from outbox where status in ('queued', 'delivering')) + (select count(*) from webhook_events where fanout is not null) as n`,
    );
    const since = performance.now();
    while ((outstanding.get() as { n: number }).n > 0) {
      if (performance.now() - since > 600_000) throw new Error('a gateway still had deliveries to send 10 minutes after its load');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    file.close();
  }
  await new Promise((resolve) => setTimeout(resolve, 1000));
}

/**
 * The orders path with 3 subscribed endpoints against none: two `serve` processes on fresh SQLite files, the hub
 * simulator up, driven in `pairs` pairs (the side that runs first alternates, so neither is always measured on the older
 * database or right after the other); each run starts once its gateway has nothing left to send. The ratio is the median
 * of the pairs' ratios: one pair that shared the machine with something else does not move it.
 * Driven by wrk when it can run (the generator that costs the least CPU, as the hot-path benches), else autocannon;
 * both sides by the same one.
 */
async function benchOrdersWithEndpoints(durationSec: number, pairs: number, receiver: Receiver): Promise<WebhooksBench['orders']> {
  const hub = await startHubSimProcess();
  const env = { HUB_URL: hub.url, WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' };
  const [plain, subscribed] = [await startGateway(env), await startGateway(env)];
  try {
    const useWrk = ensureWrk().ok;
    const runs = [plain, subscribed].map((gw, i) => {
      const headers = benchKey(gw);
      const orders = orderLoad(`PO-${i}-`);
      let run = 0;
      // Each wrk run's PO numbers carry the run's own prefix: wrk counts requests from 1 in every run.
      const drive = (duration: number) => () =>
        useWrk ? wrkLoad({ ...wrkOrderTarget(gw.url, headers, `PO-${i}-wrk${++run}-`), duration }) : load({ ...orders.target(gw.url, headers), duration });
      return { gw, headers, drive };
    });
    for (const { gw, headers } of runs) await seedProducts(gw.url, headers, ORDER_SKUS);
    const [none, three] = runs as [(typeof runs)[number], (typeof runs)[number]];
    await subscribe(three.gw.url, three.headers, receiver.url);
    const receivedBase = await receiver.received();
    for (const r of runs) await r.drive(2)();
    await drainLag(three.gw.databaseUrl, receiver, receivedBase);
    const measured: { none: OrdersRun[]; three: OrdersRun[] } = { none: [], three: [] };
    const pids = (gw: typeof plain) => ({ gateway: gw.pid, receiver: receiver.pid, hub: hub.pid });
    const runNone = async () => {
      await settle(none.gw.databaseUrl);
      measured.none.push(await measure(none.drive(durationSec), pids(none.gw)));
    };
    const runThree = async () => {
      await settle(three.gw.databaseUrl);
      const run = await measure(three.drive(durationSec), pids(three.gw));
      // Measured until its deliveries are all in, so the next run does not share the machine with this one's catch-up.
      measured.three.push({ ...run, lag: await drainLag(three.gw.databaseUrl, receiver, receivedBase) });
    };
    // Pairs alternate which side runs first, so neither is always measured on the older database or after the other.
    for (let pair = 0; pair < pairs; pair++) {
      if (pair % 2 === 0) await runNone().then(runThree);
      else await runThree().then(runNone);
    }
    for (const r of [...measured.none, ...measured.three]) if (r.non2xx > 0 || r.errors > 0) throw new Error(`orders answered ${r.non2xx} non-2xx and ${r.errors} errors`);
    const pairRatios = measured.three.map((t, i) => t.requestsPerSec / (measured.none[i] as OrdersRun).requestsPerSec);
    return { generator: useWrk ? 'wrk' : 'autocannon', ...measured, pairRatios, ratio: median(pairRatios) };
  } finally {
    await Promise.all([plain.stop(), subscribed.stop()]);
    await hub.stop();
  }
}

export async function benchWebhooks(durationSec: number, pairs: number, events = 10_000): Promise<WebhooksBench> {
  const receiver = await startReceiverProcess();
  try {
    const fanOut = await benchFanOut(events, receiver);
    const orders = await benchOrdersWithEndpoints(durationSec, pairs, receiver);
    return { fanOut, orders };
  } finally {
    await receiver.stop();
  }
}
