import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { runHubSimCli, startHubSim, type HubSim } from '../../src/sim/hub-sim.js';

const TOKEN = 'hub-test-token';
const agent = new Agent();

interface CallOptions {
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

interface CallResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: unknown;
}

async function call(sim: HubSim, method: 'GET' | 'POST', path: string, opts: CallOptions = {}): Promise<CallResult> {
  const hasBody = opts.body !== undefined || opts.rawBody !== undefined;
  const res = await request(`${sim.url}${path}`, {
    method,
    dispatcher: agent,
    headers: { ...(hasBody ? { 'content-type': 'application/json' } : {}), ...opts.headers },
    body: opts.rawBody ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
    signal: opts.timeoutMs === undefined ? undefined : AbortSignal.timeout(opts.timeoutMs),
  });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, json: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

const ev = (id: string, type = 'order.created', orgId = 'org_1') => ({
  id,
  type,
  org_id: orgId,
  occurred_at: '2026-01-01T00:00:00.000Z',
  data: { ref: id },
});

function postEvents(sim: HubSim, body: unknown, opts: { token?: string | null; key?: string | null; timeoutMs?: number } = {}) {
  const headers: Record<string, string> = {};
  const token = opts.token === undefined ? TOKEN : opts.token;
  const key = opts.key === undefined ? 'batch-1' : opts.key;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (key !== null) headers['idempotency-key'] = key;
  return call(sim, 'POST', '/v1/events', { body, headers, ...(opts.timeoutMs === undefined ? {} : { timeoutMs: opts.timeoutMs }) });
}

async function isUp(sim: HubSim): Promise<boolean> {
  try {
    await call(sim, 'GET', '/_sim/stats');
    return true;
  } catch {
    return false;
  }
}

async function waitUntilUp(sim: HubSim): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await isUp(sim))) {
    if (Date.now() > deadline) throw new Error('hub simulator did not come back up');
    await sleep(25);
  }
}

let sim: HubSim;

beforeAll(async () => {
  sim = await startHubSim({ token: TOKEN });
});

afterAll(async () => {
  await sim.close();
  await agent.close();
});

beforeEach(async () => {
  await sim.reset();
});

describe('POST /v1/events', () => {
  it('accepts a batch and reports each id', async () => {
    const res = await postEvents(sim, { events: [ev('e1'), ev('e2', 'inventory.updated')] });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ accepted: ['e1', 'e2'], duplicates: [], rejected: [] });
    expect(sim.events()).toEqual([ev('e1'), ev('e2', 'inventory.updated')]);
    expect(sim.received()).toBe(1);
  });

  it('answers 401 without the bearer token or with a wrong one, and counts the attempts', async () => {
    expect((await postEvents(sim, { events: [ev('e1')] }, { token: null })).status).toBe(401);
    expect((await postEvents(sim, { events: [ev('e1')] }, { token: 'wrong' })).status).toBe(401);
    expect(sim.events()).toEqual([]);
    expect(sim.received()).toBe(2);
  });

  it('needs no token when none is configured', async () => {
    const open = await startHubSim();
    try {
      const res = await postEvents(open, { events: [ev('e1')] }, { token: null });
      expect(res.status).toBe(200);
    } finally {
      await open.close();
    }
  });

  it('answers 400 without an Idempotency-Key', async () => {
    const res = await postEvents(sim, { events: [ev('e1')] }, { key: null });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: expect.stringContaining('Idempotency-Key') as unknown });
    expect(sim.events()).toEqual([]);
  });

  it('deduplicates by event id across calls and within a batch, storing each event once in order', async () => {
    await postEvents(sim, { events: [ev('e1'), ev('e2')] }, { key: 'b1' });
    const again = await postEvents(sim, { events: [ev('e2'), ev('e3'), ev('e3')] }, { key: 'b2' });
    expect(again.json).toEqual({ accepted: ['e3'], duplicates: ['e2', 'e3'], rejected: [] });
    expect(sim.events().map((e) => e.id)).toEqual(['e1', 'e2', 'e3']);
  });

  it('rejects events of a rejected type per event, without storing them', async () => {
    sim.rejectType('inventory.updated', 'unknown sku');
    const res = await postEvents(sim, { events: [ev('e1'), ev('e2', 'inventory.updated')] });
    expect(res.json).toEqual({ accepted: ['e1'], duplicates: [], rejected: [{ id: 'e2', reason: 'unknown sku' }] });
    sim.rejectType(null);
    const retried = await postEvents(sim, { events: [ev('e2', 'inventory.updated')] }, { key: 'b2' });
    expect(retried.json).toEqual({ accepted: ['e2'], duplicates: [], rejected: [] });
  });

  it('takes at most 500 events a batch', async () => {
    const batch = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ev(`${prefix}${i}`));
    expect((await postEvents(sim, { events: batch(501, 'big') })).status).toBe(400);
    expect(sim.events()).toEqual([]);
    expect((await postEvents(sim, { events: batch(500, 'ok') })).status).toBe(200);
    expect(sim.events()).toHaveLength(500);
  });

  it.each([
    ['no events field', { batch: [] }],
    ['an empty list', { events: [] }],
    ['an event without id', { events: [{ ...ev('e1'), id: undefined }] }],
    ['an event without data', { events: [{ ...ev('e1'), data: undefined }] }],
    ['a non-ISO occurred_at', { events: [{ ...ev('e1'), occurred_at: 'yesterday' }] }],
    ['events that is not a list', { events: 'e1' }],
  ])('answers 400 for %s', async (_name, body) => {
    const res = await postEvents(sim, body);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: expect.any(String) as unknown });
    expect(sim.events()).toEqual([]);
  });

  it('answers 400 for malformed JSON and for a non-JSON body', async () => {
    const headers = { authorization: `Bearer ${TOKEN}`, 'idempotency-key': 'b1' };
    expect((await call(sim, 'POST', '/v1/events', { rawBody: '{"events": [', headers })).status).toBe(400);
    const text = await call(sim, 'POST', '/v1/events', { rawBody: 'hello', headers: { ...headers, 'content-type': 'text/plain' } });
    expect(text.status).toBe(400);
  });
});

describe('GET /v1/events', () => {
  it('lists what was accepted, filtered by type and org_id, behind the token', async () => {
    await postEvents(sim, { events: [ev('e1'), ev('e2', 'inventory.updated'), ev('e3', 'order.created', 'org_2')] });
    const auth = { authorization: `Bearer ${TOKEN}` };
    const all = await call(sim, 'GET', '/v1/events', { headers: auth });
    expect(all.json).toMatchObject({ count: 3 });
    const orders = await call(sim, 'GET', '/v1/events?type=order.created&org_id=org_1', { headers: auth });
    expect(orders.json).toEqual({ events: [ev('e1')], count: 1 });
    expect((await call(sim, 'GET', '/v1/events')).status).toBe(401);
  });
});

describe('programmatic switches', () => {
  it('down refuses connections, then listens again on the same port', async () => {
    const url = sim.url;
    await sim.setMode({ kind: 'down' });
    await expect(postEvents(sim, { events: [ev('e1')] })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await sim.setMode({ kind: 'up' });
    expect(sim.url).toBe(url);
    expect((await postEvents(sim, { events: [ev('e1')] })).status).toBe(200);
  });

  it('closes cleanly while down, with a comeback still pending', async () => {
    const other = await startHubSim();
    await other.setMode({ kind: 'down', forMs: 60_000 });
    await other.close();
    expect(await isUp(other)).toBe(false);
  });

  it('down with forMs comes back by itself', async () => {
    await sim.setMode({ kind: 'down', forMs: 100 });
    expect(await isUp(sim)).toBe(false);
    await waitUntilUp(sim);
    expect((await postEvents(sim, { events: [ev('e1')] })).status).toBe(200);
  });

  it('slow holds answers past a short client timeout', async () => {
    await sim.setMode({ kind: 'slow', delayMs: 2000 });
    await expect(postEvents(sim, { events: [ev('e1')] }, { timeoutMs: 200 })).rejects.toThrow();
    expect(sim.received()).toBe(1);
  });

  it('error with a count answers that status that many times, then is up again', async () => {
    await sim.setMode({ kind: 'error', status: 503, count: 2 });
    expect((await postEvents(sim, { events: [ev('e1')] })).status).toBe(503);
    expect((await postEvents(sim, { events: [ev('e1')] })).status).toBe(503);
    expect((await postEvents(sim, { events: [ev('e1')] })).status).toBe(200);
    expect(sim.stats().mode).toEqual({ kind: 'up' });
    expect(sim.received()).toBe(3);
  });

  it('error without a count keeps failing', async () => {
    await sim.setMode({ kind: 'error', status: 500 });
    for (let i = 0; i < 3; i += 1) expect((await postEvents(sim, { events: [ev('e1')] })).status).toBe(500);
    expect(sim.events()).toEqual([]);
  });

  it('rate_limited answers 429 with Retry-After in seconds', async () => {
    await sim.setMode({ kind: 'rate_limited', retryAfterSeconds: 7, count: 1 });
    const limited = await postEvents(sim, { events: [ev('e1')] });
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('7');
    expect((await postEvents(sim, { events: [ev('e1')] })).status).toBe(200);
  });
});

describe('HTTP switches', () => {
  it('POST /_sim/mode down stops listening for forMs, then comes back on the same port', async () => {
    const res = await call(sim, 'POST', '/_sim/mode', { body: { kind: 'down', forMs: 300 } });
    expect(res.status).toBe(200);
    expect(await isUp(sim)).toBe(false);
    await waitUntilUp(sim);
    expect((await postEvents(sim, { events: [ev('e1')] })).status).toBe(200);
  });

  it('POST /_sim/mode refuses down without forMs and unknown modes', async () => {
    expect((await call(sim, 'POST', '/_sim/mode', { body: { kind: 'down' } })).status).toBe(400);
    expect((await call(sim, 'POST', '/_sim/mode', { body: { kind: 'sideways' } })).status).toBe(400);
    expect((await call(sim, 'POST', '/_sim/mode', { body: { kind: 'error', status: 404 } })).status).toBe(400);
    expect(await isUp(sim)).toBe(true);
  });

  it('POST /_sim/mode switches error, rate_limited, slow and back up', async () => {
    await call(sim, 'POST', '/_sim/mode', { body: { kind: 'error', status: 502, count: 1 } });
    expect((await postEvents(sim, { events: [ev('e1')] })).status).toBe(502);
    await call(sim, 'POST', '/_sim/mode', { body: { kind: 'rate_limited', retryAfterSeconds: 3 } });
    const limited = await postEvents(sim, { events: [ev('e1')] });
    expect([limited.status, limited.headers['retry-after']]).toEqual([429, '3']);
    await call(sim, 'POST', '/_sim/mode', { body: { kind: 'slow', delayMs: 2000 } });
    await expect(postEvents(sim, { events: [ev('e1')] }, { timeoutMs: 200 })).rejects.toThrow();
    await call(sim, 'POST', '/_sim/mode', { body: { kind: 'up' } });
    expect((await postEvents(sim, { events: [ev('e2')] })).status).toBe(200);
  });

  it('POST /_sim/reject, GET /_sim/stats and POST /_sim/reset', async () => {
    expect((await call(sim, 'POST', '/_sim/reject', { body: { type: 'edi.document', reason: 'no partner' } })).status).toBe(200);
    const res = await postEvents(sim, { events: [ev('e1'), ev('e2', 'edi.document')] });
    expect(res.json).toMatchObject({ rejected: [{ id: 'e2', reason: 'no partner' }] });
    expect((await postEvents(sim, { events: [ev('e1')] })).json).toMatchObject({ duplicates: ['e1'] });
    const stats = await call(sim, 'GET', '/_sim/stats');
    expect(stats.json).toEqual({
      mode: { kind: 'up' },
      received: 2,
      accepted: 1,
      duplicates: 1,
      rejecting: { type: 'edi.document', reason: 'no partner' },
    });
    expect((await call(sim, 'POST', '/_sim/reset')).status).toBe(200);
    expect(sim.stats()).toEqual({ mode: { kind: 'up' }, received: 0, accepted: 0, duplicates: 0, rejecting: null });
    expect((await call(sim, 'POST', '/_sim/reject', { body: { reason: 'no type' } })).status).toBe(400);
  });
});

describe('runHubSimCli', () => {
  it('logs the listening line once', async () => {
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const cli = await runHubSimCli({ port: 0, host: '127.0.0.1' });
    try {
      expect(write).toHaveBeenCalledWith(`hub simulator listening on ${cli.url}\n`);
    } finally {
      write.mockRestore();
      await cli.close();
    }
  });
});
