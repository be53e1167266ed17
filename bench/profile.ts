import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import type autocannon from 'autocannon';
import { chromium } from 'playwright-core';
import { ORDER_SKUS, orderLoad } from './orders.bench.js';
import { benchKey, type LoadResult, load, root, seedProducts, startGateway, startHubSimProcess } from './support.js';

/**
 * `npm run profile -- <healthz|product|order> [seconds]`: one `serve` process under `node --cpu-prof` on a fresh SQLite
 * database with a key and products (as the benchmarks seed them), one route driven by autocannon (50 connections) after
 * a 2 s warm-up, stopped with SIGTERM. Prints self time per category in µs per request over the measured run and renders
 * that run's flame graph (speedscope, "Left Heavy", idle time left out) to docs/flamegraph-<name>.png.
 */

/** The subset of V8's .cpuprofile this reads. */
interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number }; children?: number[] }[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const SKU = 'BENCH-225-45R17';
const routes = ['healthz', 'product', 'order'] as const;
type Route = (typeof routes)[number];

const [name, secondsArg] = process.argv.slice(2);
if (!routes.includes(name as Route)) {
  process.stderr.write(`usage: npm run profile -- <${routes.join('|')}> [seconds]\n`);
  process.exit(2);
}
const route = name as Route;
const durationSec = Number(secondsArg ?? process.env.PROFILE_DURATION ?? 10);

/** Where a frame's code lives: a package, a directory of ours, a node: module, or a native/V8 bucket. */
function category(frame: CpuProfile['nodes'][number]['callFrame']): string {
  const { functionName: fn, url } = frame;
  if (fn === '(idle)' || fn === '(program)') return fn;
  if (fn === '(garbage collector)') return 'gc';
  if (fn === 'writev' || fn === 'writeString' || fn === 'writeBuffer') return 'socket write';
  if (url.includes('sqlite-statement-cache') && fn === 'all') return 'sqlite all/get/run';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg?.[1]) return pkg[1];
  const ours = url.split('/dist/src/')[1];
  if (ours !== undefined) return `gateway:${ours.split('/').slice(0, 2).join('/')}`;
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/').slice(0, 2).join('/')}`;
  return `(native) ${fn || '?'}`;
}

/** The samples taken between two monotonic instants (µs, the clock V8 stamps profiles with), idle ones left out. */
function windowOf(p: CpuProfile, fromUs: number, toUs: number): { samples: number[]; timeDeltas: number[] } {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const samples: number[] = [];
  const timeDeltas: number[] = [];
  let t = p.startTime;
  p.samples.forEach((id, i) => {
    const dt = p.timeDeltas[i] ?? 0;
    t += dt;
    if (t < fromUs || t > toUs || byId.get(id)?.callFrame.functionName === '(idle)') return;
    samples.push(id);
    timeDeltas.push(dt);
  });
  return { samples, timeDeltas };
}

function report(p: CpuProfile, kept: ReturnType<typeof windowOf>, requests: number, measured: LoadResult): void {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const byCategory = new Map<string, number>();
  let busy = 0;
  kept.samples.forEach((id, i) => {
    const node = byId.get(id);
    if (node === undefined) return;
    const c = category(node.callFrame);
    const dt = kept.timeDeltas[i] ?? 0;
    byCategory.set(c, (byCategory.get(c) ?? 0) + dt);
    busy += dt;
  });
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(`${route}: ${requests} requests in ${durationSec} s (${Math.round(measured.requestsPerSec)}/s, p99 ${measured.p99Ms} ms)`);
  out(`process CPU from /proc (profiler overhead included): ${(measured.cpuUsPerRequest ?? 0).toFixed(1)} µs per request`);
  // The profiler samples the main thread by wall clock: a sample counts while JS or a call it made runs or blocks (fsync
  // under synchronous = FULL, a loopback write) and while the OS runs something else, so this can exceed the CPU above.
  out(`profiled main-thread time, idle left out (wall clock: blocking calls and descheduled time count): ${(busy / 1e3).toFixed(0)} ms,`);
  out(`${(busy / requests).toFixed(1)} µs per request; self time by category:`);
  for (const [c, us] of [...byCategory].sort((a, b) => b[1] - a[1]).slice(0, 40)) {
    out(`${(us / requests).toFixed(2).padStart(9)} µs ${((100 * us) / busy).toFixed(1).padStart(5)}%  ${c}`);
  }
}

/** The deepest stack among the profile's samples (frames from the root). */
function maxDepth(p: CpuProfile): number {
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  let deepest = 0;
  for (const id of new Set(p.samples)) {
    let depth = 0;
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) depth++;
    deepest = Math.max(deepest, depth);
  }
  return deepest;
}

/**
 * Serves speedscope's built release and the profile on 127.0.0.1, screenshots the Left Heavy view to `png`: 2400 px wide
 * so the labels of our frames fit, tall enough for the deepest stack (speedscope draws a frame 20 px high under a 140 px header).
 */
async function renderFlameGraph(profile: CpuProfile, title: string, png: string): Promise<void> {
  const release = join(root, 'node_modules/speedscope/dist/release');
  const body = JSON.stringify(profile);
  const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.png': 'image/png', '.wasm': 'application/wasm', '.woff2': 'font/woff2' };
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    if (path === '/profile.cpuprofile') return res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    const file = normalize(join(release, path === '/' ? 'index.html' : path));
    if (!file.startsWith(release)) return res.writeHead(404).end();
    try {
      res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  try {
    const page = await browser.newPage({ viewport: { width: 2400, height: Math.min(3000, Math.max(600, 180 + 20 * maxDepth(profile))) } });
    // speedscope reads its hash with decodeURIComponent (a '+' stays a '+').
    await page.goto(`${base}/index.html#profileURL=${encodeURIComponent(`${base}/profile.cpuprofile`)}&title=${encodeURIComponent(title)}&view=left-heavy`);
    await page.getByText('Left Heavy').waitFor();
    await page.waitForSelector('canvas');
    await page.waitForTimeout(1500);
    await page.screenshot({ path: png });
  } finally {
    await browser.close();
    server.close();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'gw-profile-'));
const profDir = join(dir, 'prof');
mkdirSync(profDir);
const hub = route === 'order' ? await startHubSimProcess() : undefined;
let measured: LoadResult;
let fromUs: number;
let toUs: number;
try {
  const gw = await startGateway(hub ? { HUB_URL: hub.url } : {}, { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profDir}`] });
  try {
    const headers = benchKey(gw);
    await seedProducts(gw.url, headers, route === 'order' ? ORDER_SKUS : [SKU]);
    const orders = orderLoad();
    const target = (): autocannon.Options =>
      route === 'healthz'
        ? { url: `${gw.url}/healthz` }
        : route === 'product'
          ? { url: `${gw.url}/v1/products/${SKU.toLowerCase()}`, headers }
          : orders.target(gw.url, headers);
    await load({ ...target(), duration: 2 });
    // V8 stamps profile samples with the monotonic clock process.hrtime reads, in µs.
    fromUs = Number(process.hrtime.bigint() / 1000n);
    measured = await load({ ...target(), duration: durationSec }, { pids: [gw.pid] });
    toUs = Number(process.hrtime.bigint() / 1000n);
  } finally {
    await gw.stop();
  }
} finally {
  await hub?.stop();
}

const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
if (file === undefined) throw new Error(`no .cpuprofile in ${profDir}: did serve exit cleanly on SIGTERM?`);
const profile = JSON.parse(readFileSync(join(profDir, file), 'utf8')) as CpuProfile;
const kept = windowOf(profile, fromUs, toUs);
if (kept.samples.length === 0) throw new Error(`no samples between ${fromUs} and ${toUs} µs (profile ${profile.startTime}..${profile.endTime}): clocks differ?`);
report(profile, kept, measured.requests, measured);

// The measured run alone, idle left out, so the flame graph is the work of serving requests.
const trimmed: CpuProfile = { ...profile, ...kept, startTime: fromUs, endTime: fromUs + kept.timeDeltas.reduce((a, b) => a + b, 0) };
const trimmedPath = join(dir, `${route}.cpuprofile`);
writeFileSync(trimmedPath, JSON.stringify(trimmed));
const png = join(root, `docs/flamegraph-${route}.png`);
const titles: Record<Route, string> = { healthz: 'GET /healthz', product: 'GET /v1/products/:sku (SQLite)', order: 'POST /v1/orders, 3 lines, hub up (SQLite)' };
await renderFlameGraph(trimmed, `${titles[route]}: ${durationSec} s at 50 connections, idle left out`, png);
process.stdout.write(`profile: ${join(profDir, file)}\nmeasured run only: ${trimmedPath}\nflame graph: ${png}\n`);
