import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HARNESS_ADMIN_TOKEN, type Harness, startHarness } from '../../support/harness.js';
import { waitFor } from '../../support/wait-for.js';
import { childEnv, freePort, requireBuild, type ServeProcess, startServe } from '../outbox/process-support.js';

/**
 * Two `serve` processes sharing a Redis of the test's own, which is killed (SIGKILL) and started again: no request
 * fails, limits are per process while it is down (limit / RATE_LIMIT_INSTANCES), a revocation still lands within the
 * key cache's TTL, and once Redis is back the two share one budget again, exactly.
 */
const hasRedis = spawnSync('redis-server', ['--version']).status === 0;
const LIMIT = 10;
const INSTANCES = 2;

/** A redis-server of this test's, on a loopback port, nothing persisted: a restart starts empty. */
async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'], { stdio: 'ignore' });
  const client = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
        if (client.status !== 'ready') await client.connect().catch(() => client.disconnect());
        return (await client.ping()) === 'PONG';
      },
      { what: 'redis-server to answer', timeoutMs: 10_000 },
    );
  } finally {
    client.disconnect();
  }
  return child;
}

function killRedis(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

describe.skipIf(!hasRedis)('Redis lost and back under two serve processes (redis-server on this machine)', () => {
  let h: Harness;
  let redisPort: number;
  let redis: ChildProcess | undefined;
  const serves: ServeProcess[] = [];
  const logs: string[] = [];
  const statuses: number[] = [];

  beforeAll(async () => {
    requireBuild();
    redisPort = await freePort();
    redis = await startRedis(redisPort);
    h = await startHarness('sqlite', { env: { REDIS_URL: undefined } });
    const env = childEnv(h, {
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      RATE_LIMIT_INSTANCES: String(INSTANCES),
      KEY_CACHE_TTL_MS: '2000',
      GATEWAY_ADMIN_TOKEN: HARNESS_ADMIN_TOKEN,
      LOG_LEVEL: 'info',
    });
    // One after the other: the first migrates the shared SQLite file.
    for (let i = 0; i < INSTANCES; i++) {
      const serve = await startServe(env);
      logs.push('');
      serve.child.stderr?.on('data', (d: Buffer) => (logs[i] += d.toString()));
      serves.push(serve);
    }
  }, 60_000);

  afterAll(async () => {
    await Promise.all(serves.map((s) => s.kill('SIGKILL')));
    if (redis) await killRedis(redis);
    await h?.close();
  });

  function serveAt(i: number): ServeProcess {
    const serve = serves[i];
    if (serve === undefined) throw new Error(`no serve process ${i}`);
    return serve;
  }

  async function get(serve: ServeProcess, key: string): Promise<number> {
    const res = await fetch(`${serve.url}/v1/products?limit=1`, { headers: { authorization: `Bearer ${key}` } });
    await res.arrayBuffer();
    statuses.push(res.status);
    return res.status;
  }

  /** `n` requests, alternating between the processes; how many each status got. */
  async function burst(key: string, n: number, only?: ServeProcess): Promise<Record<number, number>> {
    const counts: Record<number, number> = {};
    for (let i = 0; i < n; i++) {
      const status = await get(only ?? serveAt(i % serves.length), key);
      counts[status] = (counts[status] ?? 0) + 1;
    }
    return counts;
  }

  async function metric(serve: ServeProcess, name: string): Promise<number | undefined> {
    const text = await (await fetch(`${serve.url}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`${name} `));
    return line === undefined ? undefined : Number(line.split(' ')[1]);
  }

  const redisUpOnAll = (up: 0 | 1) => async () => (await Promise.all(serves.map((s) => metric(s, 'gateway_redis_up')))).every((v) => v === up);

  it('keeps answering with Redis down, per-process limits, revocations within the TTL, and exact shared limits once it is back', async () => {
    await h.org('acme');
    const before = await h.key('acme', 'products:read', { rateLimit: LIMIT });
    expect(await burst(before.key, LIMIT + 4)).toEqual({ 200: LIMIT, 429: 4 });
    expect(await metric(serveAt(0), 'gateway_redis_up')).toBe(1);

    const revoked = await h.key('acme', 'products:read');
    for (const serve of serves) expect(await get(serve, revoked.key)).toBe(200);

    if (redis) await killRedis(redis);
    redis = undefined;
    // The first requests after the kill, before any process may have noticed: answered all the same.
    expect((await burst(before.key, 4))[500]).toBeUndefined();
    await waitFor(redisUpOnAll(0), { what: 'both processes to report gateway_redis_up 0' });

    const during = await h.key('acme', 'products:read', { rateLimit: LIMIT });
    const share = LIMIT / INSTANCES;
    for (const serve of serves) expect(await burst(during.key, share + 2, serve)).toEqual({ 200: share, 429: 2 });
    for (const serve of serves) expect(await metric(serve, 'gateway_redis_fallback_total')).toBeGreaterThan(0);

    const revoke = await fetch(`${serveAt(0).url}/admin/v1/keys/${revoked.id}/revoke`, { method: 'POST', headers: { authorization: `Bearer ${HARNESS_ADMIN_TOKEN}` } });
    statuses.push(revoke.status);
    expect(revoke.status).toBe(200);
    expect(await get(serveAt(0), revoked.key)).toBe(401);
    // The other process missed the message (no Redis): its cache lets the key go within KEY_CACHE_TTL_MS.
    await waitFor(async () => (await get(serveAt(1), revoked.key)) === 401, { what: 'the revocation to reach the second process by the TTL', timeoutMs: 15_000 });

    redis = await startRedis(redisPort);
    await waitFor(redisUpOnAll(1), { what: 'both processes to report gateway_redis_up 1', timeoutMs: 15_000 });
    const after = await h.key('acme', 'products:read', { rateLimit: LIMIT });
    expect(await burst(after.key, LIMIT + 4)).toEqual({ 200: LIMIT, 429: 4 });

    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    // Once per outage and once per recovery, not per request.
    for (const log of logs) {
      expect(log.split('\n').filter((l) => l.includes('Redis unavailable')).length).toBe(1);
      expect(log.split('\n').filter((l) => l.includes('Redis available again')).length).toBe(1);
    }
    console.log(`redis loss: ${statuses.length} requests, 5xx: 0; limit ${LIMIT} shared before and after, ${share} per process while down`);
  }, 90_000);
});
