import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createGateway } from '../src/gateway.js';
import { findProvider } from '../src/modules/telematics/providers/catalog.js';

/**
 * Child process of benchTelematics: one gateway process (SQLite, real clock) against a vendor simulator running in the
 * parent, so the simulator's CPU and memory are not this process's. Prints one JSON line.
 *
 * argv `poll <simUrl> <connections> <windowSec> <providers,...>`: connects that many accounts through POST /connect
 *   (round-robin over the providers), starts the poller and lets it run until every connection has been polled once or
 *   the window is over; reports polls finished, events queued, poll durations and RSS.
 * argv `replay <simUrl> <fromIso> <toIso> <provider>`: connects one account and replays the window as a sync run by the
 *   sync worker to its end; reports events queued, time, peak RSS and RSS samples along the way.
 * argv `syncpolls <syncSimUrl> <pollSimUrl> <fromIso> <toIso> <connections> <intervalS> <windowSec>`: one
 *   `vendor1_livelink` account at the first simulator replays the window as a sync while `connections` `vendor13`
 *   accounts at the second are polled every `intervalS`, for `windowSec`; reports how late each regular poll started
 *   against its due time, and how far the sync got.
 */
const [mode = '', simUrl = '', ...rest] = process.argv.slice(2);
// Two simulators: the sync's large fleet, and the regular polls' small one, each provider pointed at its own.
const vendorUrls =
  mode === 'syncpolls'
    ? { PROVIDER_VENDOR1_LIVELINK_BASE_URL: `${simUrl}/vendor1_livelink`, PROVIDER_VENDOR13_BASE_URL: `${rest[0] ?? ''}/vendor13` }
    : { VENDOR_SIM_URL: simUrl };
const dir = mkdtempSync(join(tmpdir(), 'telematics-bench-'));
const config = loadConfig({
  DATABASE_URL: `sqlite:${join(dir, 'gateway.sqlite')}`,
  GATEWAY_SECRET: randomBytes(32).toString('hex'),
  LOG_LEVEL: 'silent',
  ...vendorUrls,
  SYNC_IDLE_MS: '50',
  VENDOR_TIMEOUT_MS: '30000',
  POLLER_CONCURRENCY: '32',
  POLLER_PER_PROVIDER: '32',
  POLLER_IDLE_MS: '50',
  // The gateway's own capacity is measured here, not a vendor's budget (600 requests a minute by default).
  VENDOR_RATE_LIMIT_PER_MINUTE: '100000',
});
const gateway = await createGateway(config);
const app = await buildApp(gateway, { logger: false });
await app.ready();
const { db } = gateway.database;
await gateway.services.orgs.create('bench');
const orgId = (await gateway.services.orgs.bySlug('bench')).id;

function credentialsOf(provider: string): Record<string, string> {
  return findProvider(provider)?.credentials === 'api_key' ? { api_key: 'key-0001' } : { username: 'fleet@bench.example', password: 'pw' };
}

let ipCounter = 0;
async function connect(provider: string): Promise<string> {
  const { connect_token } = await gateway.services.connectTokens.issue({ org: 'bench' });
  const n = ++ipCounter;
  // POST /connect is limited per client address: every connection comes from an address of its own.
  const remoteAddress = `10.${Math.floor(n / 62_500) % 250}.${Math.floor(n / 250) % 250}.${(n % 250) + 1}`;
  const res = await app.inject({ method: 'POST', url: '/connect', remoteAddress, payload: { connect_token, provider, credentials: credentialsOf(provider) } });
  if (res.statusCode !== 200) throw new Error(`POST /connect (${provider}) answered ${res.statusCode}: ${res.body.slice(0, 300)}`);
  return res.json<{ connection_id: string }>().connection_id;
}

/** Rows in the outbox, which holds only this bench's events: max(rowid) is a lookup where count(*) would scan millions of rows. */
const outboxEvents = async (): Promise<number> => {
  const { rows } = await sql<{ n: number | null }>`select max(rowid) as n from outbox`.execute(db);
  return Number(rows[0]?.n ?? 0);
};
const maxRss = () => process.resourceUsage().maxRSS * 1024;
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;

async function poll(connections: number, windowSec: number, providers: string[]) {
  const t0 = Date.now();
  const ids: string[] = [];
  // A few at a time: the connect flow calls the simulator to verify the credentials.
  for (let i = 0; i < connections; i += 8) {
    const batch = Array.from({ length: Math.min(8, connections - i) }, (_, k) => providers[(i + k) % providers.length] ?? 'vendor13');
    ids.push(...(await Promise.all(batch.map((p) => connect(p)))));
  }
  const connectMs = Date.now() - t0;
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const samples: { s: number; rss: number; polled: number }[] = [];
  const polledCount = async () =>
    Number((await db.selectFrom('telematics_connections').select(sql<number>`count(*)`.as('n')).where('last_run', 'is not', null).executeTakeFirstOrThrow()).n);
  const poller = gateway.services.poller;
  const start = Date.now();
  poller.start();
  while (Date.now() - start < windowSec * 1000) {
    await new Promise((r) => setTimeout(r, 1000));
    const polled = await polledCount();
    samples.push({ s: (Date.now() - start) / 1000, rss: process.memoryUsage().rss, polled });
    if (polled >= connections) break;
  }
  // Polls already started finish (stop waits for them); they count, and the elapsed time includes them.
  await poller.stop();
  const elapsedMs = Date.now() - start;
  const rows = await db.selectFrom('telematics_connections').select(['last_run', 'provider']).where('last_run', 'is not', null).execute();
  const durations: number[] = [];
  let failed = 0;
  const byProvider: Record<string, number> = {};
  for (const row of rows) {
    const run = JSON.parse(row.last_run ?? '{}') as { started_at: string; finished_at: string; outcome: string };
    if (run.outcome !== 'ok') failed += 1;
    durations.push(Date.parse(run.finished_at) - Date.parse(run.started_at));
    byProvider[row.provider] = (byProvider[row.provider] ?? 0) + 1;
  }
  durations.sort((a, b) => a - b);
  return {
    connections,
    connectMs,
    elapsedMs,
    polls: rows.length,
    failed,
    byProvider,
    events: await outboxEvents(),
    p50Ms: percentile(durations, 50),
    p99Ms: percentile(durations, 99),
    maxMs: durations.at(-1) ?? 0,
    rssBefore,
    rssAfter: process.memoryUsage().rss,
    peakRss: maxRss(),
    samples,
  };
}

const syncRow = (id: string) => db.selectFrom('telematics_syncs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const napMs = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Queues a sync of the window for one connection, as POST .../replay does. */
const queueSync = (connectionId: string, from: string, to: string) =>
  db.transaction().execute((tx) => gateway.services.syncs.create(tx, orgId, connectionId, { from: new Date(from), to: new Date(to) }));

async function replay(from: string, to: string, provider: string) {
  const id = await connect(provider);
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const peakBefore = maxRss();
  const samples: { s: number; rss: number; peakRss: number; events: number }[] = [];
  const start = Date.now();
  let sampling = false;
  const timer = setInterval(() => {
    if (sampling) return;
    sampling = true;
    void outboxEvents().then((events) => {
      samples.push({ s: (Date.now() - start) / 1000, rss: process.memoryUsage().rss, peakRss: maxRss(), events });
      if (process.env.BENCH_MEMORY_DETAIL) process.stderr.write(`${JSON.stringify({ events, ...process.memoryUsage() })}\n`);
      sampling = false;
    });
  }, 2000);
  const sync = await queueSync(id, from, to);
  const worker = gateway.services.syncWorker;
  worker.start();
  let row = await syncRow(sync.id);
  while (row.status === 'queued' || row.status === 'running') {
    await napMs(200);
    row = await syncRow(sync.id);
  }
  await worker.stop();
  clearInterval(timer);
  if (row.status !== 'completed') throw new Error(`sync ended ${row.status}: ${row.failure_reason ?? ''}`);
  const elapsedMs = Date.now() - start;
  return { events: row.events_enqueued, outbox: await outboxEvents(), elapsedMs, rssBefore, peakBefore, peakRss: maxRss(), rssAfter: process.memoryUsage().rss, samples };
}

async function syncPolls(from: string, to: string, connections: number, intervalS: number, windowSec: number) {
  const syncConnection = await connect('vendor1_livelink');
  const polled: string[] = [];
  for (let i = 0; i < connections; i += 8) polled.push(...(await Promise.all(Array.from({ length: Math.min(8, connections - i) }, () => connect('vendor13')))));
  for (const id of polled) await gateway.services.connections.setPolling(id, { intervalSeconds: intervalS });
  // The sync's own connection is not polled here (2,000 machines a poll): the polls measured are the others'.
  await db.updateTable('telematics_connections').set({ next_poll_at: '9999-12-31T00:00:00.000Z' }).where('id', '=', syncConnection).execute();
  const sync = await queueSync(syncConnection, from, to);
  const { poller, syncWorker } = gateway.services;
  const due = new Map<string, string | null>();
  const lateMs: number[] = [];
  const start = Date.now();
  poller.start();
  syncWorker.start();
  const rows = () => db.selectFrom('telematics_connections').select(['id', 'next_poll_at', 'last_run']).where('id', 'in', polled).execute();
  const seen = new Map<string, string>();
  while (Date.now() - start < windowSec * 1000) {
    for (const row of await rows()) {
      const run = row.last_run === null ? undefined : (JSON.parse(row.last_run) as { started_at: string });
      // A poll that started since the last look: how long after its due time (the first poll of each has none).
      if (run !== undefined && seen.get(row.id) !== run.started_at) {
        const wasDue = due.get(row.id);
        if (wasDue !== undefined && wasDue !== null) lateMs.push(Math.max(0, Date.parse(run.started_at) - Date.parse(wasDue)));
        seen.set(row.id, run.started_at);
      }
      due.set(row.id, row.next_poll_at);
    }
    await napMs(250);
  }
  const elapsedMs = Date.now() - start;
  const progress = await syncRow(sync.id);
  await Promise.all([poller.stop(), syncWorker.stop()]);
  lateMs.sort((a, b) => a - b);
  const failedPolls = (await rows()).filter((r) => r.last_run !== null && (JSON.parse(r.last_run) as { outcome: string }).outcome !== 'ok').length;
  return {
    connections,
    intervalS,
    elapsedMs,
    polls: lateMs.length,
    failedPolls,
    lateP50Ms: percentile(lateMs, 50),
    lateP99Ms: percentile(lateMs, 99),
    lateMaxMs: lateMs.at(-1) ?? 0,
    sync: { status: progress.status, machinesDone: progress.machines_done, machinesTotal: progress.machines_total, slicesDone: progress.slices_done, events: progress.events_enqueued },
    peakRss: maxRss(),
  };
}

let report: unknown;
if (mode === 'poll') {
  const [connections = '1000', windowSec = '60', providers = 'vendor13'] = rest;
  report = await poll(Number(connections), Number(windowSec), providers.split(','));
} else if (mode === 'replay') {
  const [from = '', to = '', provider = 'vendor1_livelink'] = rest;
  report = await replay(from, to, provider);
} else if (mode === 'syncpolls') {
  const [, from = '', to = '', connections = '100', intervalS = '60', windowSec = '300'] = rest;
  report = await syncPolls(from, to, Number(connections), Number(intervalS), Number(windowSec));
} else {
  throw new Error(`unknown mode ${mode}`);
}
await app.close();
await gateway.close();
rmSync(dir, { recursive: true, force: true });
process.stdout.write(`${JSON.stringify(report)}\n`);
