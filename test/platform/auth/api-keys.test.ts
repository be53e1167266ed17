import { readFileSync, readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { createGateway } from '../../../src/gateway.js';
import { ManualClock } from '../../../src/platform/core/clock.js';
import { expectError } from '../../support/auth-checks.js';
import { dialects, HARNESS_ADMIN_TOKEN, type Harness, startHarness } from '../../support/harness.js';
import { waitFor } from '../../support/wait-for.js';

describe.each(dialects)('API keys (%s)', (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(dialect);
  });
  afterAll(async () => h.close());

  const get = (key: string) => h.request({ method: 'GET', url: '/v1/products', key });
  /** The `t` of a RateLimit field. */
  const tOf = (field: string) => Number(/;t=(\d+)$/.exec(field)?.[1]);

  it('issues trk_live_ keys, stores only the hash and lists a display prefix', async () => {
    const created = await h.key('keys-org', 'products:read', { expiresIn: '30d' });
    expect(created.key).toMatch(/^trk_live_[A-Za-z0-9_-]{32}$/);
    expect(created.expires_at).toBe(new Date(h.clock.now().getTime() + 30 * 86_400_000).toISOString());
    const listed = (await h.gateway.services.apiKeys.list({ org: 'keys-org', limit: 100 })).keys;
    const row = listed.find((k) => k.id === created.id);
    expect(row?.prefix).toBe(`${created.key.slice(0, 13)}…`);
    expect(JSON.stringify(listed)).not.toContain(created.key);
    expect((await get(created.key)).statusCode).toBe(200);
  });

  it('grants every static scope with all, object scopes by name, and refuses unknown scopes', async () => {
    const all = await h.key('keys-org', 'all');
    expect(all.scopes).toContain('edi:write');
    expect(all.scopes.some((s) => s.startsWith('objects:'))).toBe(false);
    const obj = await h.key('keys-org', 'objects:fitments:read,products:read');
    expect(obj.scopes).toEqual(['objects:fitments:read', 'products:read']);
    await expect(h.key('keys-org', 'products:delete')).rejects.toThrow(/unknown scope/);
    await expect(h.key('keys-org', '')).rejects.toThrow(/at least one scope/);
    await expect(h.key('keys-org', 'all', { expiresIn: '3 days' })).rejects.toThrow(/invalid duration/);
  });

  const admin = (url: string, payload?: object) =>
    h.request({ method: 'POST', url, headers: { authorization: `Bearer ${HARNESS_ADMIN_TOKEN}` }, ...(payload === undefined ? {} : { payload }) });
  /** A second gateway on the same database; given the harness's Redis namespace it hears its key changes. */
  const secondInstance = async (opts: { sameChannel: boolean }) => {
    const other = await createGateway(h.config, {
      clock: h.clock,
      ...(h.databaseSchema ? { databaseSchema: h.databaseSchema } : {}),
      ...(opts.sameChannel ? { redisKeyPrefix: h.redisKeyPrefix } : {}),
      migrate: false,
    });
    const app = await buildApp(other, { logger: false });
    return {
      get: (key: string) => app.inject({ method: 'GET', url: '/v1/products', headers: { authorization: `Bearer ${key}` } }),
      close: async () => {
        await app.close();
        await other.close();
      },
    };
  };

  it('a revoked key is refused at once by the instance that revoked it, the clock not moved (admin door and CLI service)', async () => {
    for (const revoke of [(id: string) => admin(`/admin/v1/keys/${id}/revoke`), (id: string) => h.gateway.services.apiKeys.revoke(id)]) {
      const k = await h.key('keys-org', 'products:read');
      expect((await get(k.key)).statusCode).toBe(200);
      await revoke(k.id);
      const res = expectError(await get(k.key), 401, 'unauthorized');
      expect(res.error).toMatch(/revoked/);
    }
  });

  it('a rotated key is refused as soon as its grace ends, though it was verified (cached) just before the rotation', async () => {
    const old = await h.key('keys-org', 'products:read');
    expect((await get(old.key)).statusCode).toBe(200);
    const rotated = await admin(`/admin/v1/keys/${old.id}/rotate`, { grace: '1s' });
    expect(rotated.statusCode, rotated.body).toBe(201);
    expect((await get(old.key)).statusCode).toBe(200);
    // One second: shorter than the cache TTL, so only the dropped cache entry can make this a 401.
    expect(h.config.KEY_CACHE_TTL_MS).toBeGreaterThan(1000);
    h.clock.advance(1000);
    expectError(await get(old.key), 401, 'unauthorized');
    expect((await get(rotated.json<{ key: { key: string } }>().key.key)).statusCode).toBe(200);
  });

  it.skipIf(!process.env.TEST_REDIS_URL)('another instance on the same database and Redis refuses a revoked key at once, through pub/sub', async () => {
    const other = await secondInstance({ sameChannel: true });
    try {
      const k = await h.key('keys-org', 'products:read');
      expect((await other.get(k.key)).statusCode).toBe(200);
      await admin(`/admin/v1/keys/${k.id}/revoke`);
      // The message crosses Redis: waited for as an outcome, the clock never moved, so the cache TTL cannot be what refuses.
      await waitFor(async () => (await other.get(k.key)).statusCode === 401, { what: 'the other instance to refuse the key' });
    } finally {
      await other.close();
    }
  });

  it('an instance that misses the message (another Redis channel, or none) refuses a revoked key once the cache TTL passes', async () => {
    const other = await secondInstance({ sameChannel: false });
    try {
      const k = await h.key('keys-org', 'products:read');
      expect((await other.get(k.key)).statusCode).toBe(200);
      await h.gateway.services.apiKeys.revoke(k.id);
      expect((await other.get(k.key)).statusCode, 'cached until the TTL passes').toBe(200);
      h.clock.advance(h.config.KEY_CACHE_TTL_MS);
      expect((await other.get(k.key)).statusCode).toBe(401);
    } finally {
      await other.close();
    }
  });

  it('rotation issues a new key with the same grants; the old key works until the grace period ends', async () => {
    const old = await h.key('keys-org', 'products:read,orders:read');
    const rotated = await h.gateway.services.apiKeys.rotate(old.id, '1h');
    expect(rotated.scopes).toEqual(old.scopes);
    expect(rotated.key).not.toBe(old.key);
    expect((await get(old.key)).statusCode).toBe(200);
    expect((await get(rotated.key)).statusCode).toBe(200);
    h.clock.advance(59 * 60 * 1000);
    expect((await get(old.key)).statusCode).toBe(200);
    h.clock.advance(60 * 1000 + h.config.KEY_CACHE_TTL_MS);
    expectError(await get(old.key), 401, 'unauthorized');
    expect((await get(rotated.key)).statusCode).toBe(200);
    await expect(h.gateway.services.apiKeys.rotate('key_nope')).rejects.toThrow(/not found/);
  });

  it('rate limits per key: RateLimit-Policy and RateLimit on every response, 429 with Retry-After, per-key override', async () => {
    const k = await h.key('rl-org', 'products:read', { rateLimit: 5 });
    for (let i = 0; i < 4; i++) {
      const res = await get(k.key);
      expect(res.statusCode).toBe(200);
      expect(res.headers['ratelimit-policy']).toBe('"key";q=5;w=60');
      expect(String(res.headers.ratelimit)).toMatch(new RegExp(`^"key";r=${4 - i};t=[1-9][0-9]*$`));
    }
    // An error answer after the limiter carries them too.
    const missing = await h.request({ method: 'GET', url: '/v1/products/NOPE', key: k.key });
    expectError(missing, 404, 'not_found');
    expect(missing.headers['ratelimit-policy']).toBe('"key";q=5;w=60');
    expect(String(missing.headers.ratelimit)).toMatch(/^"key";r=0;t=[1-9][0-9]*$/);
    const limited = await get(k.key);
    expectError(limited, 429, 'rate_limited');
    const t = tOf(String(limited.headers.ratelimit));
    expect(limited.headers.ratelimit).toBe(`"key";r=0;t=${t}`);
    expect(limited.headers['retry-after']).toBe(String(t));
    // Waited, the reset admits; a second earlier it does not.
    h.clock.advance((t - 1) * 1000);
    expect((await get(k.key)).statusCode).toBe(429);
    h.clock.advance(1000);
    expect((await get(k.key)).statusCode).toBe(200);
    // another key of the same org has its own budget, at the default limit
    const other = await h.key('rl-org', 'products:read');
    const res = await get(other.key);
    expect(res.statusCode).toBe(200);
    expect(res.headers['ratelimit-policy']).toBe('"key";q=600;w=60');
    // two minutes later the window has slid past every counted request
    h.clock.advance(120_000);
    expect((await get(k.key)).statusCode).toBe(200);
  });
});

describe('secrets stay out of storage and logs (sqlite)', () => {
  it('never writes the plaintext key to the database file or the logs', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, cb) {
        lines.push(chunk.toString());
        cb();
      },
    });
    const h = await startHarness('sqlite');
    const app = await buildApp(h.gateway, { logger: { level: 'trace', stream } });
    try {
      const k = await h.key('secret-org', 'products:read,products:write');
      await app.inject({ method: 'GET', url: '/v1/products', headers: { authorization: `Bearer ${k.key}` } });
      await app.inject({ method: 'POST', url: '/v1/products', headers: { authorization: `Bearer ${k.key}` }, payload: { sku: 'S', name: 'n' } });
      await app.inject({ method: 'GET', url: '/v1/products', headers: { authorization: `Bearer ${k.key}x` } });
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.join('')).not.toContain(k.key.slice('trk_live_'.length));
      await h.gateway.database.db.destroy();
      const dir = dirname(h.databaseUrl.slice('sqlite:'.length));
      for (const file of readdirSync(dir)) {
        expect(readFileSync(`${dir}/${file}`).includes(Buffer.from(k.key.slice('trk_live_'.length))), file).toBe(false);
      }
    } finally {
      await app.close();
      await h.close().catch(() => undefined);
    }
  });

  it('the clock is honoured for key expiry', async () => {
    const clock = new ManualClock(new Date('2030-01-01T00:00:00Z'));
    const h = await startHarness('sqlite', { clock });
    try {
      const k = await h.key('exp-org', 'products:read', { expiresIn: '12h' });
      expect(k.expires_at).toBe('2030-01-01T12:00:00.000Z');
    } finally {
      await h.close();
    }
  });
});
