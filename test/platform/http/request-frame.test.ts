import { Writable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RequestFrame, requestLogFactory } from '../../../src/platform/http/request-frame.js';
import { requestIdFor } from '../../../src/platform/http/request-id.js';
import { httpMetricsOf, registerMetricsRoute } from '../../../src/platform/core/metrics.js';
import { metricsAuth } from '../../../src/platform/http/metrics-auth.js';

interface Line {
  level: number;
  msg: string;
  reqId?: string;
  method?: string;
  url?: string;
  status?: number;
  ms?: number;
}

function capture(): { stream: Writable; lines: () => Line[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk.toString());
      cb();
    },
  });
  return { stream, lines: () => chunks.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Line) };
}

/** A bare app with the gateway's frame, so what the frame alone does is what is seen. */
function frameApp(opts: { level: string; stream?: Writable; registry?: Registry; disableRequestLogging?: boolean }): FastifyInstance {
  const registry = opts.registry ?? new Registry();
  const app = Fastify({
    logger: { level: opts.level, ...(opts.stream ? { stream: opts.stream } : {}) },
    genReqId: requestIdFor,
    logController: new RequestFrame(httpMetricsOf(registry), { disableRequestLogging: opts.disableRequestLogging ?? false }),
    childLoggerFactory: requestLogFactory,
  });
  app.get('/quiet', () => ({ ok: true }));
  app.get('/chatty/:id', (request) => {
    request.log.warn({ item: 'x' }, 'handler speaks');
    return { ok: true };
  });
  app.get('/cached', (_request, reply) => reply.header('cache-control', 'public, max-age=60').send('script'));
  registerMetricsRoute(app, registry, metricsAuth(undefined));
  return app;
}

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});
function track(app: FastifyInstance): FastifyInstance {
  apps.push(app);
  return app;
}

describe('request frame', () => {
  it('sets the request id and security headers on answers, 404s included; a route may replace Cache-Control', async () => {
    const app = track(frameApp({ level: 'silent' }));
    for (const url of ['/quiet', '/nope']) {
      const res = await app.inject({ method: 'GET', url, headers: { 'x-request-id': 'trace-1' } });
      expect(res.headers['x-request-id']).toBe('trace-1');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['cache-control']).toBe('no-store');
    }
    const generated = await app.inject({ method: 'GET', url: '/quiet', headers: { 'x-request-id': 'not safe' } });
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect((await app.inject({ method: 'GET', url: '/cached' })).headers['cache-control']).toBe('public, max-age=60');
  });

  it('writes one access line per request with reqId, and a handler line carrying the same reqId', async () => {
    const { stream, lines } = capture();
    const app = track(frameApp({ level: 'info', stream }));
    await app.inject({ method: 'GET', url: '/quiet', headers: { 'x-request-id': 'q-1' } });
    await app.inject({ method: 'GET', url: '/chatty/7?token=secret-value', headers: { 'x-request-id': 'c-1' } });
    const logged = lines();
    expect(logged.filter((l) => l.msg === 'request completed').map(({ reqId, method, url, status }) => ({ reqId, method, url, status }))).toEqual([
      { reqId: 'q-1', method: 'GET', url: '/quiet', status: 200 },
      { reqId: 'c-1', method: 'GET', url: '/chatty/7?token=[redacted]', status: 200 },
    ]);
    expect(logged.find((l) => l.msg === 'request completed')?.ms).toEqual(expect.any(Number));
    expect(logged.filter((l) => l.msg === 'handler speaks')).toEqual([expect.objectContaining({ reqId: 'c-1', level: 40, item: 'x' })]);
    expect(logged.some((l) => l.msg === 'incoming request')).toBe(false);
  });

  it('makes no pino child for a request that does not log', async () => {
    const app = track(frameApp({ level: 'info', stream: capture().stream }));
    await app.ready();
    const child = vi.spyOn(app.log, 'child');
    await app.inject({ method: 'GET', url: '/quiet' });
    await app.inject({ method: 'GET', url: '/quiet' });
    expect(child).not.toHaveBeenCalled();
    await app.inject({ method: 'GET', url: '/chatty/1' });
    expect(child).toHaveBeenCalledTimes(1);
  });

  it('counts requests by route pattern and status whatever the log level, and with request logging disabled', async () => {
    for (const opts of [{ level: 'silent' }, { level: 'info', stream: capture().stream, disableRequestLogging: true }]) {
      const app = track(frameApp(opts));
      await app.inject({ method: 'GET', url: '/chatty/1' });
      await app.inject({ method: 'GET', url: '/chatty/2' });
      await app.inject({ method: 'GET', url: '/nope' });
      const body = (await app.inject({ method: 'GET', url: '/metrics' })).body;
      expect(body).toContain('http_requests_total{method="GET",route="/chatty/:id",status="200"} 2');
      expect(body).toContain('http_requests_total{method="GET",route="unmatched",status="404"} 1');
      expect(body).toContain('http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/chatty/:id",status="200"} 2');
      expect(body).toMatch(/http_request_duration_seconds_bucket\{le="0\.001",method="GET",route="\/chatty\/:id",status="200"\} \d/);
      expect(body).toMatch(/http_request_duration_seconds_sum\{method="GET",route="\/chatty\/:id",status="200"\} [0-9.e-]+/);
      expect(body).toContain('http_request_duration_seconds_count{method="GET",route="/chatty/:id",status="200"} 2');
    }
  });

  it('lets two apps on one registry count into the same series', async () => {
    const registry = new Registry();
    const a = track(frameApp({ level: 'silent', registry }));
    const b = track(frameApp({ level: 'silent', registry }));
    await a.inject({ method: 'GET', url: '/quiet' });
    await b.inject({ method: 'GET', url: '/quiet' });
    expect(await registry.metrics()).toContain('http_requests_total{method="GET",route="/quiet",status="200"} 2');
  });
});
