import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { createGateway } from '../src/gateway.js';
import { enqueueHubEvent } from '../src/platform/outbox/outbox.js';
import { freePort, type LoadResult, load, root, startBaseline, startGateway, stopChild } from './support.js';

export interface OrdersCreateBench {
  baseline: LoadResult;
  gateway: LoadResult;
  /** gateway orders/s over bare Fastify requests/s (goal >= 0.12). */
  ratio: number;
  /** order.created events the hub simulator holds afterwards (warm-up included): every order reached the hub. */
  hubEvents: number;
}

export interface DrainBench {
  events: number;
  seconds: number;
  eventsPerSec: number;
}

/** The hub simulator in its own process, so it does not share a core with the load generator. */
async function startHubSimProcess(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [join(root, 'dist/src/main.js'), 'hub-sim', '--port', String(port)], {
    env: { PATH: process.env.PATH },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.once('data', () => resolve());
    child.once('exit', () => reject(new Error('hub simulator exited')));
  });
  return { url: `http://127.0.0.1:${port}`, stop: () => stopChild(child) };
}

/** POST /v1/orders with 3 lines (a unique PO number each), the hub simulator up, against bare Fastify in the same run. */
export async function benchOrderCreate(durationSec: number): Promise<OrdersCreateBench> {
  const hub = await startHubSimProcess();
  const baselineServer = await startBaseline();
  const gw = await startGateway({ HUB_URL: hub.url });
  try {
    gw.cli('orgs', 'create', 'bench');
    const { key } = JSON.parse(gw.cli('keys', 'create', '--org', 'bench', '--scopes', 'all', '--rate-limit', '100000000', '--json')) as { key: string };
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    for (const sku of ['BENCH-1', 'BENCH-2', 'BENCH-3']) {
      const res = await fetch(`${gw.url}/v1/products`, { method: 'POST', headers, body: JSON.stringify({ sku, name: `Bench ${sku}`, stock_qty: 40 }) });
      if (res.status !== 201) throw new Error(`seeding failed: ${res.status} ${await res.text()}`);
    }
    let seq = 0;
    const lines = [
      { sku: 'bench-1', quantity: 4, unit_price: 129.99 },
      { sku: 'bench-2', quantity: 2, unit_price: 19.9999 },
      { sku: 'bench-3', quantity: 1, unit_price: 0.1 },
    ];
    const orders = () => ({
      url: `${gw.url}/v1/orders`,
      method: 'POST' as const,
      headers,
      requests: [
        {
          method: 'POST' as const,
          setupRequest: (req: object) => ({ ...req, body: JSON.stringify({ po_number: `PO-${++seq}`, ship_to: 'Bench dealer', lines }) }),
        },
      ],
    });
    await load({ url: baselineServer.url, duration: 2 });
    await load({ ...orders(), duration: 2 });
    const baseline = await load({ url: baselineServer.url, duration: durationSec });
    const gateway = await load({ ...orders(), duration: durationSec });
    if (gateway.non2xx > 0 || gateway.errors > 0) throw new Error(`gateway answered ${gateway.non2xx} non-2xx and ${gateway.errors} errors`);
    const hubEvents = ((await (await fetch(`${hub.url}/v1/events?type=order.created`)).json()) as { count: number }).count;
    if (hubEvents < seq - 50) throw new Error(`the hub holds ${hubEvents} orders of ${seq} created`);
    return { baseline, gateway, ratio: gateway.requestsPerSec / baseline.requestsPerSec, hubEvents };
  } finally {
    await gw.stop();
    await baselineServer.stop();
    await hub.stop();
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
