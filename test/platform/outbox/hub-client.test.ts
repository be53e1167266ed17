import { fastify, type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/platform/core/clock.js';
import {
  backoffDelayMs,
  HubClient,
  parseRetryAfterMs,
  type HubEvent,
} from '../../../src/platform/outbox/hub-client.js';
import { startHubSim, type HubSim } from '../../../src/sim/hub-sim.js';

const TOKEN = 'hub-client-token';

/** A hub event as the outbox stores its payload: JSON text. */
const ev = (id: string, type = 'order.created'): string =>
  JSON.stringify({ id, type, org_id: 'org_1', occurred_at: '2026-01-01T00:00:00.000Z', data: { ref: id } } satisfies HubEvent);

let sim: HubSim;
let client: HubClient;

beforeAll(async () => {
  sim = await startHubSim({ token: TOKEN });
  client = new HubClient({ url: sim.url, token: TOKEN, timeoutMs: 5000 });
});

afterAll(async () => {
  await client.close();
  await sim.close();
});

beforeEach(async () => {
  await sim.reset();
});

describe('HubClient against the hub simulator', () => {
  it('returns ok with the accepted ids and the hub stores the events', async () => {
    const result = await client.send('batch-1', [ev('e1'), ev('e2')]);
    expect(result).toEqual({ kind: 'ok', accepted: ['e1', 'e2'], duplicates: [], rejected: [] });
    expect(sim.events().map((e) => e.id)).toEqual(['e1', 'e2']);
  });

  it('reports ids the hub already has as duplicates', async () => {
    await client.send('batch-1', [ev('e1')]);
    const result = await client.send('batch-2', [ev('e1'), ev('e2')]);
    expect(result).toEqual({ kind: 'ok', accepted: ['e2'], duplicates: ['e1'], rejected: [] });
  });

  it('reports per-event rejections', async () => {
    sim.rejectType('warranty_claim.created', 'claim window closed');
    const result = await client.send('batch-1', [ev('e1'), ev('e2', 'warranty_claim.created')]);
    expect(result).toEqual({
      kind: 'ok',
      accepted: ['e1'],
      duplicates: [],
      rejected: [{ id: 'e2', reason: 'claim window closed' }],
    });
  });

  it('turns a 500 into retry without a delay hint, and the next send goes through', async () => {
    await sim.setMode({ kind: 'error', status: 500, count: 1 });
    const result = await client.send('batch-1', [ev('e1')]);
    expect(result).toMatchObject({ kind: 'retry', reason: expect.stringContaining('500') as unknown });
    expect(result).not.toHaveProperty('retryAfterMs');
    expect(await client.send('batch-1', [ev('e1')])).toMatchObject({ kind: 'ok', accepted: ['e1'] });
  });

  it('turns a 429 into retry with Retry-After in milliseconds', async () => {
    await sim.setMode({ kind: 'rate_limited', retryAfterSeconds: 7 });
    expect(await client.send('batch-1', [ev('e1')])).toMatchObject({ kind: 'retry', retryAfterMs: 7000 });
  });

  it('turns a 401 into failed', async () => {
    const wrong = new HubClient({ url: sim.url, token: 'wrong', timeoutMs: 5000 });
    const none = new HubClient({ url: sim.url, timeoutMs: 5000 });
    try {
      expect(await wrong.send('batch-1', [ev('e1')])).toMatchObject({ kind: 'failed', status: 401 });
      expect(await none.send('batch-1', [ev('e1')])).toMatchObject({ kind: 'failed', status: 401 });
    } finally {
      await wrong.close();
      await none.close();
    }
    expect(sim.events()).toEqual([]);
  });

  it('turns a hub that is down into retry, and delivers once it is back', async () => {
    await sim.setMode({ kind: 'down' });
    const result = await client.send('batch-1', [ev('e1')]);
    expect(result).toMatchObject({ kind: 'retry', reason: expect.stringContaining('unreachable') as unknown });
    await sim.setMode({ kind: 'up' });
    expect(await client.send('batch-1', [ev('e1')])).toMatchObject({ kind: 'ok', accepted: ['e1'] });
  });

  it('turns a hub slower than the timeout into retry', async () => {
    await sim.setMode({ kind: 'slow', delayMs: 2000 });
    const perSend = await client.send('batch-1', [ev('e1')], { timeoutMs: 200 });
    expect(perSend).toEqual({ kind: 'retry', reason: 'hub did not answer within 200 ms' });
    const impatient = new HubClient({ url: `${sim.url}/`, token: TOKEN, timeoutMs: 200 });
    try {
      expect(await impatient.send('batch-2', [ev('e2')])).toMatchObject({ kind: 'retry' });
    } finally {
      await impatient.close();
    }
  });

  it('refuses an empty or oversized batch as a programming error', async () => {
    await expect(client.send('batch-1', [])).rejects.toThrow(RangeError);
    const big = Array.from({ length: 501 }, (_, i) => ev(`e${i}`));
    await expect(client.send('batch-1', big)).rejects.toThrow(RangeError);
  });
});

describe('HubClient against a hub that answers oddly', () => {
  let odd: FastifyInstance;
  let base: string;
  const clock = new ManualClock(new Date('2026-01-01T00:00:00.000Z'));

  beforeAll(async () => {
    odd = fastify({ logger: false });
    odd.post('/garbage/v1/events', (_request, reply) => reply.type('text/plain').send('not json'));
    odd.post('/shape/v1/events', () => ({ accepted: 'e1' }));
    odd.post('/gone/v1/events', (_request, reply) => reply.code(404).send({ error: 'no such route' }));
    odd.post('/busy/v1/events', (_request, reply) =>
      reply.code(408).header('retry-after', 'Thu, 01 Jan 2026 00:00:30 GMT').send(''),
    );
    base = await odd.listen({ port: 0, host: '127.0.0.1' });
  });

  afterAll(async () => {
    await odd.close();
  });

  async function sendTo(prefix: string) {
    const c = new HubClient({ url: `${base}/${prefix}`, timeoutMs: 5000, clock });
    try {
      return await c.send('batch-1', [ev('e1')]);
    } finally {
      await c.close();
    }
  }

  it('turns an unparseable 200 into retry', async () => {
    expect(await sendTo('garbage')).toMatchObject({ kind: 'retry', reason: expect.stringContaining('unreadable') as unknown });
    expect(await sendTo('shape')).toMatchObject({ kind: 'retry' });
  });

  it('turns another 4xx into failed with the body in the reason', async () => {
    expect(await sendTo('gone')).toEqual({ kind: 'failed', status: 404, reason: 'hub answered 404: {"error":"no such route"}' });
  });

  it('turns a 408 into retry and honours an HTTP-date Retry-After', async () => {
    expect(await sendTo('busy')).toEqual({ kind: 'retry', reason: 'hub answered 408', retryAfterMs: 30_000 });
  });
});

describe('parseRetryAfterMs', () => {
  const now = Date.parse('2026-01-01T00:00:00.000Z');

  it('reads seconds and HTTP-dates, never negative, capped at 10 minutes', () => {
    expect(parseRetryAfterMs('5', now)).toBe(5000);
    expect(parseRetryAfterMs(['2', '9'], now)).toBe(2000);
    expect(parseRetryAfterMs('Thu, 01 Jan 2026 00:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfterMs('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
    expect(parseRetryAfterMs('86400', now)).toBe(600_000);
  });

  it('ignores a missing or unreadable value', () => {
    expect(parseRetryAfterMs(undefined, now)).toBeUndefined();
    expect(parseRetryAfterMs('', now)).toBeUndefined();
    expect(parseRetryAfterMs('soon', now)).toBeUndefined();
    expect(parseRetryAfterMs('-3', now)).toBeUndefined();
  });
});

describe('backoffDelayMs', () => {
  it('doubles the ceiling per attempt and scales it by the random draw', () => {
    const half = () => 0.5;
    expect([1, 2, 3, 4].map((attempt) => backoffDelayMs(attempt, { random: half }))).toEqual([500, 1000, 2000, 4000]);
    expect(backoffDelayMs(3, { random: () => 0 })).toBe(0);
  });

  it('never exceeds maxMs, with defaults of 1 s base and 5 min cap', () => {
    const top = () => 0.999999;
    expect(backoffDelayMs(1, { random: top })).toBeLessThan(1000);
    expect(backoffDelayMs(1, { random: top })).toBeGreaterThanOrEqual(999);
    expect(backoffDelayMs(60, { random: top })).toBeLessThanOrEqual(300_000);
    expect(backoffDelayMs(60, { random: top })).toBeGreaterThanOrEqual(299_000);
    expect(backoffDelayMs(2000, { random: top })).toBeLessThanOrEqual(300_000);
    expect(backoffDelayMs(10, { baseMs: 100, maxMs: 2000, random: top })).toBeLessThanOrEqual(2000);
  });

  it('stays within [0, ceiling) for any draw', () => {
    for (let attempt = 0; attempt < 40; attempt += 1) {
      const delay = backoffDelayMs(attempt);
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThanOrEqual(300_000);
    }
  });
});
