import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import Fastify from 'fastify';
import pino from 'pino';
import { Counter, Histogram, Registry } from 'prom-client';

// The baseline: bare Fastify answering {ok:true}, in its own process like the gateway.
const app = Fastify({ logger: false });
app.get('/', () => ({ ok: true }));

/**
 * The same answer after `us` microseconds of busy CPU work: what any work per request costs this machine's bare
 * Fastify, so a ratio goal reads as a budget of microseconds (docs/benchmarks.md, "work budget").
 */
app.get<{ Params: { us: string } }>('/work/:us', (request) => {
  const until = performance.now() + Number(request.params.us) / 1000;
  while (performance.now() < until);
  return { ok: true };
});

/*
 * Floors: the least any code could do for what the goals keep, written straight into a handler (no hooks, no layers),
 * with the same libraries as the gateway. A floor's ratio is an upper bound for the gateway's on this machine.
 */
const log = pino({ level: 'info' }, pino.destination({ dest: '/dev/null', sync: false, minLength: 4096 }));
const registry = new Registry();
const labels = { method: 'GET', route: '/floor', status: '200' };
const requests = new Counter({ name: 'requests', help: 'requests', labelNames: ['method', 'route', 'status'], registers: [registry] }).labels(labels);
const latency = new Histogram({ name: 'latency', help: 'latency', labelNames: ['method', 'route', 'status'], registers: [registry] }).labels(labels);

/** The frame: a request id, the two security headers, one access line at info, one counter and one histogram sample. */
function frame(request: { method: string; url: string }, reply: { header(name: string, value: string): unknown }, started: number): void {
  const reqId = randomUUID();
  reply.header('x-request-id', reqId);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('cache-control', 'no-store');
  const ms = performance.now() - started;
  log.info({ reqId, method: request.method, url: request.url, status: 200, ms }, 'request completed');
  requests.inc();
  latency.observe(ms / 1000);
}

app.get('/floor/frame', (request, reply) => {
  frame(request, reply, performance.now());
  return { ok: true, service: 'floor' };
});

// A product row in a WAL file, read by primary key inside one read transaction per event-loop turn, as the gateway reads.
const floorDir = mkdtempSync(join(tmpdir(), 'gw-floor-'));
const db = new SQLite(join(floorDir, 'floor.sqlite'));
// The bench stops this server with SIGTERM: exit through 'exit' so the floor's file goes with it.
process.once('SIGTERM', () => process.exit(0));
process.once('exit', () => rmSync(floorDir, { recursive: true, force: true }));
db.pragma('journal_mode = WAL');
db.exec('create table products (org_id text, sku_lower text, sku text, name text, stock_qty integer, updated_at text, primary key (org_id, sku_lower))');
db.prepare('insert into products values (?, ?, ?, ?, ?, ?)').run('org', 'bench-225-45r17', 'BENCH-225-45R17', 'Bench', 40, new Date().toISOString());
const read = db.prepare('select * from products where org_id = ? and sku_lower = ?');
const begin = db.prepare('begin');
const commit = db.prepare('commit');
let inRead = false;
const endRead = (): void => {
  inRead = false;
  commit.run();
};
const keys = new Map<string, string>();

/** The frame, the key's SHA-256 looked up in memory (as the key cache does), one product read by primary key. */
app.get<{ Params: { sku: string } }>('/floor/product/:sku', (request, reply) => {
  const started = performance.now();
  const hash = createHash('sha256').update(request.headers.authorization ?? '').digest('hex');
  let orgId = keys.get(hash);
  if (orgId === undefined) keys.set(hash, (orgId = 'org'));
  if (!inRead) {
    begin.run();
    inRead = true;
    setImmediate(endRead);
  }
  const product = read.get(orgId, request.params.sku.toLowerCase());
  frame(request, reply, started);
  return { ok: true, product };
});

const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
process.stdout.write(`${address}\n`);
