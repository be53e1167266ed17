import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../support/auth-checks.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';

const TOKEN = 'metrics-token-0123456789';
const REMOTE = '203.0.113.20';

describe.each(dialects)('GET /metrics with METRICS_TOKEN set (%s)', (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(dialect, { env: { METRICS_TOKEN: TOKEN } });
  });
  afterAll(() => h.close());

  it('answers the token from anywhere, and nothing else, loopback included', async () => {
    const ok = await h.request({ method: 'GET', url: '/metrics', remoteAddress: REMOTE, headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toContain('http_requests_total');
    for (const [remoteAddress, headers] of [
      [REMOTE, {}],
      [REMOTE, { authorization: `Bearer ${TOKEN}x` }],
      [REMOTE, { authorization: TOKEN }],
      ['127.0.0.1', {}],
    ] as [string, Record<string, string>][]) {
      const res = await h.request({ method: 'GET', url: '/metrics', remoteAddress, headers });
      expectError(res, 401, 'unauthorized');
      expect(String(res.headers['www-authenticate'])).toMatch(/^Bearer /);
      expect(res.body).not.toContain('http_requests_total');
    }
  });

  it('refuses a token too short at start, as other settings', async () => {
    await expect(startHarness(dialect, { env: { METRICS_TOKEN: 'short' } })).rejects.toThrow(/METRICS_TOKEN/);
  });
});

describe.each(dialects)('GET /metrics without METRICS_TOKEN (%s)', (dialect) => {
  let h: Harness;
  let proxied: Harness;
  beforeAll(async () => {
    h = await startHarness(dialect);
    proxied = await startHarness(dialect, { env: { TRUST_PROXY: '127.0.0.1' } });
  });
  afterAll(async () => {
    await h.close();
    await proxied.close();
  });

  it('answers loopback clients only', async () => {
    for (const remoteAddress of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
      expect((await h.request({ method: 'GET', url: '/metrics', remoteAddress })).statusCode, remoteAddress).toBe(200);
    }
    const res = await h.request({ method: 'GET', url: '/metrics', remoteAddress: REMOTE });
    expectError(res, 401, 'unauthorized');
    expect(res.json<{ error: string }>().error).toMatch(/METRICS_TOKEN/);
  });

  it('behind a trusted proxy on the machine, judges the forwarded client, not the proxy', async () => {
    const from = (client: string) => ({ method: 'GET' as const, url: '/metrics', remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': client } });
    expectError(await proxied.request(from(REMOTE)), 401, 'unauthorized');
    expect((await proxied.request(from('127.0.0.1'))).statusCode).toBe(200);
  });
});
