import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../support/auth-checks.js';
import { dialects, type Harness, startHarness } from '../support/harness.js';
import { clientKinds, initializeRequest, listen, postRpc } from './support/mcp-clients.js';

const DEALER = 'https://dealer.example.com';

async function envelope(res: Response, status: number, code: string): Promise<Record<string, unknown>> {
  return expectError({ statusCode: res.status, body: await res.text() }, status, code);
}

describe.each(dialects)('/mcp over HTTP (%s)', (dialect) => {
  let h: Harness;
  let url: string;
  let key: string;
  beforeAll(async () => {
    h = await startHarness(dialect, { env: { ALLOWED_ORIGINS: DEALER } });
    url = await listen(h);
    key = (await h.key('acme', 'products:read')).key;
  });
  afterAll(() => h.close());
  const auth = () => ({ authorization: `Bearer ${key}` });

  it.each(['GET', 'DELETE'])('answers %s with 405 in the envelope: the server keeps no sessions or streams', async (method) => {
    const res = await fetch(url, { method, headers: { ...auth(), accept: 'text/event-stream' } });
    await envelope(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toBe('POST');
  });

  it('answers a missing or unknown key with the REST 401 envelope', async () => {
    await envelope(await postRpc(url, initializeRequest), 401, 'unauthorized');
    await envelope(await postRpc(url, initializeRequest, { authorization: `Bearer trk_live_${'x'.repeat(32)}` }), 401, 'unauthorized');
  });

  it('refuses a browser Origin that is not on the list with 403, and serves listed or absent origins', async () => {
    const body = await envelope(await postRpc(url, initializeRequest, { ...auth(), origin: 'https://evil.example.com' }), 403, 'forbidden_origin');
    expect(body.error).toBe('origin not allowed');
    await envelope(await postRpc(url, initializeRequest, { ...auth(), origin: 'http://dealer.example.com' }), 403, 'forbidden_origin');
    await envelope(await postRpc(url, initializeRequest, { ...auth(), origin: 'null' }), 403, 'forbidden_origin');
    expect((await postRpc(url, initializeRequest, { ...auth(), origin: DEALER })).status).toBe(200);
    expect((await postRpc(url, initializeRequest, auth())).status).toBe(200);
  });

  it('shares the per-key rate limit with REST', async () => {
    const limited = (await h.key('acme', 'products:read', { rateLimit: 3 })).key;
    expect((await h.request({ method: 'GET', url: '/v1/products', key: limited })).statusCode).toBe(200);
    const headers = { authorization: `Bearer ${limited}` };
    expect((await postRpc(url, initializeRequest, headers)).status).toBe(200);
    expect((await postRpc(url, initializeRequest, headers)).status).toBe(200);
    const res = await postRpc(url, initializeRequest, headers);
    await envelope(res, 429, 'rate_limited');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('answers a body that is not JSON with a JSON-RPC parse error', async () => {
    const res = await postRpc(url, '{"jsonrpc": "2.0", "id": 1,', auth());
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
  });

  it('answers a non-JSON content type with 415', async () => {
    const res = await fetch(url, { method: 'POST', headers: { ...auth(), accept: 'application/json, text/event-stream', 'content-type': 'text/plain' }, body: 'hello' });
    expect(res.status).toBe(415);
  });

  it.each(clientKinds)('answers every $label request with one JSON body, never an SSE stream', async (kind) => {
    const seen: string[] = [];
    const recording: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (init?.method === 'POST' && res.status === 200) seen.push(res.headers.get('content-type') ?? '');
      return res;
    };
    const client = await kind.connect(url, key, recording);
    await client.listTools();
    await client.call('products_list', {});
    await client.close();
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (const type of seen) expect(type).toMatch(/^application\/json/);
  });
});
