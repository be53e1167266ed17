import type { InjectOptions } from 'fastify';
import { expect, it } from 'vitest';
import type { Harness } from './harness.js';

export interface ProtectedRoute {
  method: NonNullable<InjectOptions['method']>;
  url: string;
  /** The scope the route needs. */
  scope: string;
  payload?: unknown;
  headers?: Record<string, string>;
}

/** The error envelope every failure must have. */
export function expectError(res: { statusCode: number; body: string }, status: number, code?: string): Record<string, unknown> {
  const body = JSON.parse(res.body) as Record<string, unknown>;
  expect(res.statusCode, res.body).toBe(status);
  expect(body.ok).toBe(false);
  expect(body.status).toBe(status);
  expect(typeof body.error).toBe('string');
  expect(typeof body.request_id).toBe('string');
  if (code) expect(body.code).toBe(code);
  return body;
}

/**
 * The shared auth checks every key-authenticated route gets: no key, malformed, unknown, expired, revoked -> 401;
 * a key without the route's scope -> 403 `missing scope: <scope>`. Call inside a describe with a harness getter.
 */
export function itChecksAuth(h: () => Harness, route: ProtectedRoute): void {
  const send = (key?: string, headers: Record<string, string> = {}) =>
    h().request({
      method: route.method,
      url: route.url,
      ...(route.payload === undefined ? {} : { payload: route.payload as InjectOptions['payload'] }),
      headers: { ...route.headers, ...headers },
      ...(key ? { key } : {}),
    });
  const label = `${route.method} ${route.url}`;

  it(`${label}: 401 without a key`, async () => {
    expectError(await send(), 401, 'unauthorized');
  });

  it(`${label}: 401 for a malformed, unknown or non-Bearer key`, async () => {
    expectError(await send('not-a-key'), 401, 'unauthorized');
    expectError(await send(`trk_live_${'x'.repeat(32)}`), 401, 'unauthorized');
    const real = await h().key('auth-org', route.scope);
    expectError(await send(undefined, { authorization: `Basic ${real.key}` }), 401, 'unauthorized');
  });

  it(`${label}: 401 for an expired key`, async () => {
    const key = await h().key('auth-org', route.scope, { expiresIn: '1h' });
    h().clock.advance(60 * 60 * 1000 + 1);
    expectError(await send(key.key), 401, 'unauthorized');
  });

  it(`${label}: 401 for a revoked key`, async () => {
    const key = await h().key('auth-org', route.scope);
    await h().gateway.services.apiKeys.revoke(key.id);
    h().clock.advance(h().config.KEY_CACHE_TTL_MS);
    expectError(await send(key.key), 401, 'unauthorized');
  });

  it(`${label}: 403 missing scope: ${route.scope}`, async () => {
    const other = route.scope === 'products:read' ? 'orders:read' : 'products:read';
    const key = await h().key('auth-org', other);
    const body = expectError(await send(key.key), 403, 'missing_scope');
    expect(body.error).toBe(`missing scope: ${route.scope}`);
  });
}
