import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects, type Harness, startHarness } from '../../support/harness.js';
import { answers, open, uploadHead } from '../../support/raw-http.js';

const get = (path: string, headers: Record<string, string> = {}) =>
  `GET ${path} HTTP/1.1\r\n${Object.entries({ host: 'localhost', ...headers }).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;

describe.each(dialects)('slow clients cannot hold sockets (%s)', (dialect) => {
  let h: Harness;
  let port: number;
  let apiKey: string;
  beforeAll(async () => {
    h = await startHarness(dialect, { env: { REQUEST_TIMEOUT_MS: '300', MAX_CONNECTIONS_PER_IP: '3' } });
    apiKey = (await h.key('slow', 'products:write')).key;
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    port = (h.app.server.address() as { port: number }).port;
  });
  afterAll(() => h.close());

  it('cuts an upload that trickles in slower than the request timeout, with 408, however often a byte comes', async () => {
    const client = await open(port);
    client.socket.write(uploadHead('/v1/products', 1000, { authorization: `Bearer ${apiKey}` }));
    // A byte every 20 ms keeps an idle timeout from ever firing; the request timeout counts the whole request.
    const trickle = setInterval(() => client.socket.writable && client.socket.write(' '), 20);
    const raw = await client.closed;
    clearInterval(trickle);
    expect(answers(raw).map((a) => a.status)).toEqual([408]);
    expect(raw).toContain('"code":"request_timeout"');
  });

  it.each([
    ['no key (401)', {}],
    ['a body over the limit (413)', { authorization: 'Bearer KEY', 'content-length': String(64 * 1024 * 1024) }],
  ])('answers an early error on an upload still arriving, then closes the connection: %s', async (what, extra) => {
    const client = await open(port);
    const headers = Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, v.replace('KEY', apiKey)]));
    client.socket.write(uploadHead('/v1/products', 1000, headers) + '{"sku":');
    const raw = await client.closed;
    // One answer, saying it closes: not a 408 after it, which a connection left open would get at the timeout.
    const got = answers(raw);
    expect(got.map((a) => a.status)).toEqual([Number(/\((\d+)\)/.exec(what)?.[1])]);
    expect(got[0]?.headers.connection).toBe('close');
  });

  it('keeps the connection of an error answered after the whole body came (nothing left to refuse)', async () => {
    const client = await open(port);
    const body = '{"sku":5}';
    client.socket.write(uploadHead('/v1/products', body.length, { authorization: `Bearer ${apiKey}` }) + body);
    client.socket.write(get('/healthz'));
    await new Promise<void>((resolve) => client.socket.on('data', () => answers(client.received()).length === 2 && resolve()));
    expect(answers(client.received()).map((a) => a.status)).toEqual([400, 200]);
    expect(answers(client.received())[0]?.headers.connection).not.toBe('close');
    client.socket.destroy();
    await client.closed;
  });

  it('refuses a client address its connection past the cap with 429, and serves the ones it holds', async () => {
    const held = [await open(port), await open(port), await open(port)];
    const extra = await open(port);
    const raw = await extra.closed;
    expect(answers(raw).map((a) => a.status)).toEqual([429]);
    expect(raw).toContain('"code":"rate_limited"');
    const [first] = held;
    first?.socket.write(get('/healthz', { connection: 'close' }));
    expect(answers((await first?.closed) ?? '').map((a) => a.status)).toEqual([200]);
    for (const client of held) client.socket.destroy();
    await Promise.all(held.map((c) => c.closed));
  });
});

describe.each(dialects)('behind a trusted proxy, the cap counts the forwarded client (%s)', (dialect) => {
  let h: Harness;
  let port: number;
  let apiKey: string;
  beforeAll(async () => {
    h = await startHarness(dialect, { env: { TRUST_PROXY: '127.0.0.1', MAX_CONNECTIONS_PER_IP: '2' } });
    apiKey = (await h.key('proxied', 'products:write')).key;
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    port = (h.app.server.address() as { port: number }).port;
  });
  afterAll(() => h.close());

  it("refuses a forwarded client's request past the cap while the proxy's other clients go on", async () => {
    const from = (client: string) => ({ 'x-forwarded-for': client });
    // Two uploads of one client in flight (their bodies still arriving) on the proxy's connections.
    const slow = [await open(port), await open(port)];
    for (const c of slow) c.socket.write(uploadHead('/v1/products', 1000, { ...from('203.0.113.7'), authorization: `Bearer ${apiKey}` }) + '{');
    const third = await open(port);
    third.socket.write(get('/healthz', { ...from('203.0.113.7'), connection: 'close' }));
    expect(answers(await third.closed).map((a) => a.status)).toEqual([429]);
    const other = await open(port);
    other.socket.write(get('/healthz', { ...from('198.51.100.9'), connection: 'close' }));
    expect(answers(await other.closed).map((a) => a.status)).toEqual([200]);
    for (const c of slow) c.socket.destroy();
    await Promise.all(slow.map((c) => c.closed));
  });
});
