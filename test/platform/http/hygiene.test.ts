import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { describeDatabase } from '../../../src/cli/serve.js';
import { redactUrl } from '../../../src/platform/http/access-log.js';
import { expectError } from '../../support/auth-checks.js';
import { dialects, type Harness, startHarness } from '../../support/harness.js';
import { waitFor } from '../../support/wait-for.js';
import { initializeRequest } from '../../mcp/support/mcp-clients.js';
import { childEnv, mainJs, requireBuild } from '../outbox/process-support.js';

const DEALER = 'https://dealer.example.com';
const CHALLENGE = 'Bearer realm="tire-gateway"';

/** Writes raw bytes to the listener and reads until the server closes: what Node's parser answers, unfiltered. */
function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    socket.on('close', () => resolve(answer));
    socket.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' || err.code === 'EPIPE' ? resolve(answer) : reject(err)));
  });
}

describe.each(dialects)('HTTP hygiene (%s)', (dialect) => {
  let h: Harness;
  let key: string;
  let base: string;
  beforeAll(async () => {
    h = await startHarness(dialect, { env: { ALLOWED_ORIGINS: DEALER } });
    key = (await h.key('acme', 'all')).key;
    base = await h.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(() => h.close());

  describe('errors from Node’s HTTP parser', () => {
    it('answers headers that are too large (a 20,000-character query) with 431 in the envelope', async () => {
      const res = await fetch(`${base}/v1/products?q=${'x'.repeat(20_000)}`, { headers: { authorization: `Bearer ${key}` } });
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const body = expectError({ statusCode: res.status, body: await res.text() }, 431, 'headers_too_large');
      expect(res.headers.get('x-request-id')).toBe(body.request_id);
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
    });

    it('answers a malformed request line with 400 in the envelope', async () => {
      const port = Number(new URL(base).port);
      const answer = await rawExchange(port, 'NOT HTTP AT ALL\r\n\r\n');
      const [head = '', payload = ''] = answer.split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(head.toLowerCase()).toContain('content-type: application/json');
      expectError({ statusCode: 400, body: payload }, 400, 'invalid_input');
    });
  });

  describe('401 challenges', () => {
    it('every 401 carries WWW-Authenticate: Bearer, on REST and /mcp alike', async () => {
      const missing = await h.request({ method: 'GET', url: '/v1/products' });
      expectError(missing, 401, 'unauthorized');
      expect(missing.headers['www-authenticate']).toBe(CHALLENGE);
      const wrong = await h.request({ method: 'GET', url: '/v1/products', key: `trk_live_${'x'.repeat(32)}` });
      expectError(wrong, 401, 'unauthorized');
      expect(wrong.headers['www-authenticate']).toBe(`${CHALLENGE}, error="invalid_token"`);
      const mcp = await h.request({ method: 'POST', url: '/mcp', payload: initializeRequest, headers: { accept: 'application/json, text/event-stream' } });
      expectError(mcp, 401, 'unauthorized');
      expect(mcp.headers['www-authenticate']).toBe(CHALLENGE);
    });

    it('other errors carry no challenge', async () => {
      const res = await h.request({ method: 'GET', url: '/v1/products/NOPE', key });
      expectError(res, 404, 'not_found');
      expect(res.headers['www-authenticate']).toBeUndefined();
    });
  });

  describe('404 versus 405', () => {
    it('a missing asset under a route that exists is a plain 404, not a 405 with Allow', async () => {
      for (const method of ['GET', 'HEAD'] as const) {
        const res = await h.request({ method, url: '/docs/static/nope.js' });
        expect(res.statusCode, method).toBe(404);
        expect(res.headers.allow).toBeUndefined();
      }
      expectError(await h.request({ method: 'GET', url: '/docs/static/nope.js' }), 404, 'not_found');
      const wrongMethod = await h.request({ method: 'POST', url: '/docs/static/nope.js' });
      expectError(wrongMethod, 405, 'method_not_allowed');
      expect(wrongMethod.headers.allow).toBe('GET');
    });
  });

  describe('CORS on /mcp', () => {
    it('answers a preflight from a listed origin without a key', async () => {
      const res = await h.request({
        method: 'OPTIONS',
        url: '/mcp',
        headers: { origin: DEALER, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, mcp-protocol-version' },
      });
      expect(res.statusCode).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe(DEALER);
      expect(res.headers.vary).toMatch(/origin/i);
      expect(res.headers['access-control-allow-methods']).toBe('POST');
      const allowed = String(res.headers['access-control-allow-headers']).split(/,\s*/);
      expect(allowed).toEqual(
        expect.arrayContaining(['authorization', 'content-type', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id', 'idempotency-key', 'x-request-id']),
      );
      expect(Number(res.headers['access-control-max-age'])).toBeGreaterThan(0);
    });

    it('refuses a preflight from an unlisted origin with 403 and no CORS headers', async () => {
      const res = await h.request({ method: 'OPTIONS', url: '/mcp', headers: { origin: 'https://evil.example.com', 'access-control-request-method': 'POST' } });
      expectError(res, 403, 'forbidden_origin');
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
      expect(res.headers['access-control-allow-methods']).toBeUndefined();
    });

    it('lets a listed origin read answers, errors and the 401 challenge included', async () => {
      const post = (headers: Record<string, string>) =>
        h.request({ method: 'POST', url: '/mcp', payload: initializeRequest, headers: { accept: 'application/json, text/event-stream', ...headers } });
      const ok = await post({ origin: DEALER, authorization: `Bearer ${key}` });
      expect(ok.statusCode).toBe(200);
      expect(ok.headers['access-control-allow-origin']).toBe(DEALER);
      const exposed = String(ok.headers['access-control-expose-headers']).split(/,\s*/);
      expect(exposed).toEqual(expect.arrayContaining(['mcp-session-id', 'mcp-protocol-version', 'x-request-id', 'ratelimit-policy', 'ratelimit', 'retry-after', 'www-authenticate']));
      const unauthorized = await post({ origin: DEALER });
      expectError(unauthorized, 401, 'unauthorized');
      expect(unauthorized.headers['access-control-allow-origin']).toBe(DEALER);
      expect(unauthorized.headers['access-control-expose-headers']).toContain('www-authenticate');
      expect(unauthorized.headers['www-authenticate']).toBe(CHALLENGE);
    });

    it('gives unlisted and absent origins no CORS headers', async () => {
      const evil = await h.request({ method: 'POST', url: '/mcp', key, payload: initializeRequest, headers: { origin: 'https://evil.example.com' } });
      expectError(evil, 403, 'forbidden_origin');
      expect(evil.headers['access-control-allow-origin']).toBeUndefined();
      const server = await h.request({ method: 'POST', url: '/mcp', key, payload: initializeRequest, headers: { accept: 'application/json, text/event-stream' } });
      expect(server.statusCode).toBe(200);
      expect(server.headers['access-control-allow-origin']).toBeUndefined();
    });
  });

  it('refuses a lone UTF-16 surrogate in a JSON body with a 400 naming where', async () => {
    const res = await h.request({ method: 'POST', url: '/v1/products', key, payload: '{"sku":"LONE-1","name":"a\\ud800b"}', headers: { 'content-type': 'application/json' } });
    const body = expectError(res, 400, 'invalid_input');
    expect(body.error).toBe('body.name: lone UTF-16 surrogate (\\ud800) is not allowed');
  });
});

describe('access log (sqlite)', () => {
  it('writes key-shaped values and secret-named query parameters as [redacted]', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, cb) {
        lines.push(chunk.toString());
        cb();
      },
    });
    const h = await startHarness('sqlite');
    const app = await buildApp(h.gateway, { logger: { level: 'debug', stream } });
    try {
      const { key } = await h.key('log-org', 'products:read');
      await app.inject({ method: 'GET', url: `/v1/products?api_key=${key}&q=tyre`, headers: { authorization: `Bearer ${key}` } });
      await app.inject({ method: 'GET', url: `/v1/products?filter=${key}&access_token=opaque-value`, headers: { authorization: `Bearer ${key}` } });
      await app.inject({ method: 'GET', url: `/v1/products/${key}`, headers: { authorization: `Bearer ${key}` } });
      const urls = lines.map((l) => JSON.parse(l) as { msg: string; url?: string }).filter((l) => l.url !== undefined).map((l) => `${l.msg}: ${l.url}`);
      expect(urls).toContain('request completed: /v1/products?api_key=[redacted]&q=tyre');
      expect(urls).toContain('incoming request: /v1/products?api_key=[redacted]&q=tyre');
      expect(urls).toContain('request completed: /v1/products?filter=[redacted]&access_token=[redacted]');
      expect(urls).toContain('request completed: /v1/products/[redacted]');
      const logged = lines.join('');
      expect(logged).not.toContain(key.slice('trk_live_'.length));
      expect(logged).not.toContain('opaque-value');
    } finally {
      await app.close();
      await h.close();
    }
  });

  it('leaves ordinary URLs alone and catches encoded names and portal keys', () => {
    expect(redactUrl('/v1/products/ABC-1')).toBe('/v1/products/ABC-1');
    expect(redactUrl('/v1/products?q=a&limit=5')).toBe('/v1/products?q=a&limit=5');
    expect(redactUrl('/portal?api%5Fkey=abc&x=pk_portal_abc-DEF_1')).toBe('/portal?api%5Fkey=[redacted]&x=[redacted]');
    expect(redactUrl('/x?Client_Secret=s&password=p&token')).toBe('/x?Client_Secret=[redacted]&password=[redacted]&token');
  });
});

describe('the listening line', () => {
  it('describes the database without credentials', () => {
    expect(describeDatabase('sqlite:./data/gateway.sqlite')).toBe('sqlite:./data/gateway.sqlite');
    expect(describeDatabase('postgres://gw:s3cret@db.internal:5432/gateway?sslmode=require')).toBe('postgres://db.internal:5432/gateway');
    expect(describeDatabase('postgresql://gw:s3cret@db.internal/gateway')).toBe('postgresql://db.internal/gateway');
  });

  it.each(dialects)('`serve` prints where it listens and which database it uses, at once (%s)', async (dialect) => {
    requireBuild();
    const h = await startHarness(dialect);
    const child = spawn(process.execPath, [mainJs, 'serve'], { env: childEnv(h, { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' }), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      const line = await waitFor(
        () => {
          if (child.exitCode !== null) throw new Error(`serve exited with ${child.exitCode}: ${stderr}`);
          return stdout.split('\n').find((l) => l.includes(' listening on '));
        },
        { what: 'the listening line', timeoutMs: 30_000 },
      );
      const match = /^tire-gateway listening on (http:\/\/127\.0\.0\.1:\d+) \(database: (.+)\)$/.exec(line);
      expect(match, line).not.toBeNull();
      expect((await fetch(`${match?.[1] ?? ''}/healthz`)).status).toBe(200);
      if (dialect === 'sqlite') expect(match?.[2]).toBe(h.databaseUrl);
      else {
        const { password } = new URL(h.databaseUrl);
        expect(match?.[2]).toMatch(/^postgres(ql)?:\/\/[^@]+\/[^?]*$/);
        if (password) expect(stdout).not.toContain(password);
      }
    } finally {
      await new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
      await h.close();
    }
  });
});
