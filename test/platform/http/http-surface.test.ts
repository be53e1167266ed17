import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../support/auth-checks.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';

describe.each(dialects)('HTTP surface (%s)', (dialect) => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await startHarness(dialect, { env: { SERVICE_NAME: 'gw-under-test', BODY_LIMIT_BYTES: String(64 * 1024) } });
    key = (await h.key('acme', 'all')).key;
  });
  afterAll(async () => h.close());

  it('GET /healthz needs no key and names the service', async () => {
    const res = await h.request({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true, service: 'gw-under-test' });
  });

  it('unknown routes are 404 and wrong methods 405 with Allow, both in the envelope', async () => {
    expectError(await h.request({ method: 'GET', url: '/nope' }), 404, 'not_found');
    expectError(await h.request({ method: 'GET', url: '/v1/nothing-here', key }), 404, 'not_found');
    const res = await h.request({ method: 'DELETE', url: '/v1/products/ABC', key });
    expectError(res, 405, 'method_not_allowed');
    expect(res.headers.allow).toBe('GET, PATCH');
    expectError(await h.request({ method: 'PUT', url: '/v1/products', key }), 405, 'method_not_allowed');
  });

  it('bad JSON, wrong types and wrong content types are 4xx envelopes', async () => {
    const post = (payload: string, contentType = 'application/json') =>
      h.request({ method: 'POST', url: '/v1/products', key, payload, headers: { 'content-type': contentType } });
    expectError(await post('{"sku": '), 400, 'invalid_input');
    expectError(await post(''), 400, 'invalid_input');
    expectError(await post('{"sku": 5, "name": []}'), 400, 'invalid_input');
    expectError(await post('[]'), 400, 'invalid_input');
    expectError(await post('null'), 400, 'invalid_input');
    expectError(await post('sku=a', 'application/x-www-form-urlencoded'), 415, 'unsupported_media_type');
  });

  it('an oversized body is 413', async () => {
    const big = JSON.stringify({ sku: 'BIG', name: 'x'.repeat(70 * 1024) });
    expectError(await h.request({ method: 'POST', url: '/v1/products', key, payload: big, headers: { 'content-type': 'application/json' } }), 413, 'payload_too_large');
  });

  it('echoes a safe X-Request-Id, makes one otherwise, and puts it in error bodies', async () => {
    const given = await h.request({ method: 'GET', url: '/v1/products/NOPE', key, headers: { 'x-request-id': 'trace-123' } });
    expect(given.headers['x-request-id']).toBe('trace-123');
    expect(given.json<{ request_id: string }>().request_id).toBe('trace-123');
    const unsafe = await h.request({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'bad id with spaces\n' } });
    expect(unsafe.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const generated = await h.request({ method: 'GET', url: '/nope' });
    expect(generated.json<{ request_id: string }>().request_id).toBe(generated.headers['x-request-id']);
  });

  it('exports request counts and latency by route and status on /metrics', async () => {
    await h.request({ method: 'GET', url: '/v1/products/NOPE', key });
    const res = await h.request({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/plain/);
    expect(res.body).toMatch(/http_requests_total\{method="GET",route="\/v1\/products\/:sku",status="404"\} \d+/);
    expect(res.body).toMatch(/http_request_duration_seconds_bucket\{le="[0-9.]+",method="GET",route="\/v1\/products\/:sku",status="404"\}/);
  });
});
