import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mainJs, requireBuild } from '../platform/outbox/process-support.js';
import { waitFor } from '../support/wait-for.js';

const exec = promisify(execFile);

interface Demo {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `gateway demo` as a newcomer runs it: the compiled CLI, its own data folder, nothing from the caller's environment but PATH. */
function startDemo(dataDir: string, ...args: string[]): Demo {
  const child = spawn(process.execPath, [mainJs, 'demo', '--port', '0', '--data-dir', dataDir, ...args], {
    env: { PATH: process.env.PATH, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, out: () => out, err: () => err, exited };
}

/** The banner's `export A=… B=…` lines, as a shell would read them. */
function exportsOf(banner: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const line of banner.split('\n').filter((l) => l.startsWith('export '))) {
    for (const pair of line.slice('export '.length).split(' ')) {
      const [name, ...value] = pair.split('=');
      if (name) vars[name] = value.join('=');
    }
  }
  return vars;
}

async function hasCurl(): Promise<boolean> {
  try {
    await exec('curl', ['--version']);
    return true;
  } catch {
    return false;
  }
}

// The demo runs the embedded default: the PostgreSQL pass of CI (TEST_DIALECTS=postgres) has nothing to add to it.
const otherPass = process.env.TEST_DIALECTS !== undefined && !process.env.TEST_DIALECTS.split(',').includes('sqlite');

describe.skipIf(otherPass)('npm run demo (gateway demo)', () => {
  const root = mkdtempSync(join(tmpdir(), 'gateway-demo-test-'));
  let demo: Demo;
  let vars: Record<string, string>;

  beforeAll(async () => {
    requireBuild();
    demo = startDemo(join(root, 'data'));
    await waitFor(
      () => {
        if (demo.child.exitCode !== null) throw new Error(`demo exited with ${demo.child.exitCode}: ${demo.err()}`);
        return demo.out().includes('Demo ready.');
      },
      { what: 'the demo banner', timeoutMs: 60_000, intervalMs: 100 },
    );
    vars = exportsOf(demo.out());
  }, 90_000);

  afterAll(async () => {
    if (demo.child.exitCode === null && demo.child.signalCode === null) {
      demo.child.kill('SIGKILL');
      await demo.exited;
    }
    rmSync(root, { recursive: true, force: true });
  });

  it('prints a key, the simulators, the MCP snippet and the portal demo page', () => {
    expect(vars.KEY).toMatch(/^trk_live_/);
    expect(vars.PK).toMatch(/^pk_portal_dealer_/);
    expect(vars.G).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(vars.HUB).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const banner = demo.out();
    expect(banner).toContain(`"url": "${vars.G}/mcp"`);
    expect(banner).toContain(`"Authorization": "Bearer ${vars.KEY}"`);
    expect(banner).toContain(`${vars.G}/portal/demo.html?key=${vars.PK}`);
    expect(banner.split('\n').filter((l) => l.startsWith('curl ')).length).toBeGreaterThanOrEqual(12);
  });

  it('an order created with the printed key reaches the hub simulator', async () => {
    const { G, HUB, KEY } = vars as { G: string; HUB: string; KEY: string };
    const res = await fetch(`${G}/v1/orders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ po_number: 'PO-DEMO-TEST', ship_to: 'Springfield Tire, 100 Main St', lines: [{ sku: 'MICH-225-45R17', quantity: 4, unit_price: '129.99' }] }),
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const orderId = (await res.json() as { order: { id: string } }).order.id;
    const atHub = await waitFor(async () => {
      const { events } = await (await fetch(`${HUB}/v1/events?type=order.created`)).json() as { events: { data: { id: string } }[] };
      return events.find((e) => e.data.id === orderId);
    }, { what: 'order.created at the hub simulator' });
    expect(atHub.data.id).toBe(orderId);
  });

  it('subscribes its receiver: a signed webhook.test, then the order above, each verified by the reference library', async () => {
    const receiverUrl = /^ {2}webhook receiver (http:\/\/127\.0\.0\.1:\d+\/webhooks) /m.exec(demo.out())?.[1];
    expect(receiverUrl).toBeDefined();
    const { G, KEY } = vars as { G: string; KEY: string };
    const { endpoints } = await (await fetch(`${G}/v1/webhook-endpoints`, { headers: { authorization: `Bearer ${KEY}` } })).json() as { endpoints: { url: string; event_types: string[] }[] };
    expect(endpoints).toMatchObject([{ url: receiverUrl, event_types: ['*'] }]);
    const verified = (type: string) => demo.out().split('\n').find((l) => l.startsWith(`webhook verified: ${type} evt_`));
    await waitFor(() => verified('webhook.test'), { what: 'the verified webhook.test line' });
    // The order of the test above, delivered to the receiver and verified there.
    const line = await waitFor(() => verified('order.created'), { what: 'a verified order.created line' });
    const eventId = line.split(' ')[3] ?? '';
    const event = await (await fetch(`${G}/v1/events/${eventId}`, { headers: { authorization: `Bearer ${KEY}` } })).json() as { event: { data: { po_number: string } } };
    expect(event.event.data.po_number).toBe('PO-DEMO-TEST');
  });

  it('the seeded catalog, object, telematics connection and portal key answer', async () => {
    const { G, HUB, KEY, PK } = vars as { G: string; HUB: string; KEY: string; PK: string };
    const auth = { authorization: `Bearer ${KEY}` };
    const products = await (await fetch(`${G}/v1/products`, { headers: auth })).json() as { products: unknown[] };
    expect(products.products.length).toBeGreaterThanOrEqual(3);
    const rows = await (await fetch(`${G}/v1/objects/fitments?make=Audi`, { headers: auth })).json() as { rows: unknown[] };
    expect(rows.rows).toHaveLength(1);
    const portal = await fetch(`${G}/api/portal/v1/products?q=R17`, { headers: { 'x-portal-key': PK, origin: G } });
    expect(portal.status).toBe(200);
    expect(portal.headers.get('access-control-allow-origin')).toBe(G);
    const { connections } = await (await fetch(`${G}/v1/telematics/connections`, { headers: auth })).json() as { connections: { id: string }[] };
    expect(connections).toHaveLength(1);
    // The demo's own poller may be polling it right now: that answers 409 concurrent_change, and a moment later 200.
    const polled = await waitFor(async () => {
      const answer = await fetch(`${G}/v1/telematics/connections/${connections[0]?.id ?? ''}/run`, { method: 'POST', headers: auth });
      const body = await answer.text();
      if (answer.status === 409 && body.includes('"concurrent_change"')) return false;
      return { status: answer.status, body };
    }, { what: 'a run-now that is not refused as concurrent' });
    expect(polled.status, polled.body).toBe(200);
    await waitFor(async () => ((await (await fetch(`${HUB}/v1/events?type=telematics.event`)).json()) as { count: number }).count > 0, {
      what: 'telematics events at the hub simulator',
    });
  });

  it('every printed curl command succeeds when pasted into a shell', async (ctx) => {
    if (!(await hasCurl())) return ctx.skip('curl is not installed');
    const lines = demo.out().split('\n').filter((l) => l.startsWith('export ') || l.startsWith('curl '));
    // Each answer on its own line; no pipefail, since `| head -c` cuts curl off on purpose.
    const script = lines.map((l) => (l.startsWith('curl ') ? `${l}; echo` : l)).join('\n');
    const { stdout } = await exec('bash', ['-eu', '-c', script], { timeout: 30_000, maxBuffer: 16 * 1024 * 1024 });
    const answers = stdout.split('\n').filter((l) => l.startsWith('{"ok":'));
    expect(answers.length).toBeGreaterThanOrEqual(9);
    for (const answer of answers) expect(answer.startsWith('{"ok":true'), answer.slice(0, 400)).toBe(true);
  });

  it('Ctrl-C stops the gateway, both simulators and the webhook receiver, and exits 0', async () => {
    const { G, HUB } = vars as { G: string; HUB: string };
    const receiverUrl = /^ {2}webhook receiver (\S+) /m.exec(demo.out())?.[1] ?? '';
    demo.child.kill('SIGINT');
    const { code, signal } = await demo.exited;
    expect({ code, signal, stderr: demo.err() }).toMatchObject({ code: 0, signal: null });
    await expect(fetch(`${G}/healthz`)).rejects.toThrow();
    await expect(fetch(`${HUB}/v1/events`)).rejects.toThrow();
    await expect(fetch(receiverUrl, { method: 'POST' })).rejects.toThrow();
  });

  it('--json prints one object with the receiver; its verified lines go to stderr', async () => {
    const json = startDemo(join(root, 'json'), '--json');
    try {
      const printed = await waitFor(() => {
        if (json.child.exitCode !== null) throw new Error(`demo --json exited with ${json.child.exitCode}: ${json.err()}`);
        try {
          return JSON.parse(json.out()) as { webhook_receiver: { url: string; endpoint_id: string; secret: string } };
        } catch {
          return undefined;
        }
      }, { what: 'the JSON object', timeoutMs: 60_000, intervalMs: 100 });
      const { url, endpoint_id: endpointId, secret } = printed.webhook_receiver;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks$/);
      expect(endpointId).toMatch(/^whe_/);
      expect(secret).toMatch(/^whsec_/);
      await waitFor(() => json.err().includes('webhook verified: webhook.test evt_'), { what: 'the verified line on stderr' });
      // Still the one object: nothing was written after it.
      expect(JSON.parse(json.out())).toEqual(printed);
    } finally {
      json.child.kill('SIGINT');
      await json.exited;
    }
  }, 90_000);

  it('refuses to wipe a data folder an earlier demo did not make', async () => {
    const other = join(root, 'not-demo');
    rmSync(other, { recursive: true, force: true });
    mkdirSync(other, { recursive: true });
    writeFileSync(join(other, 'keep.txt'), 'mine');
    const refused = startDemo(other);
    const { code } = await refused.exited;
    expect(code).toBe(1);
    expect(refused.err()).toContain('is not empty and not a demo data folder');
  });
});
