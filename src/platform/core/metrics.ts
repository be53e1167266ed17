import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** One registry per app instance, so several apps (tests) never collide on metric names. */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** Stands for a route context without a config object (Fastify gives every one of them one today). */
const NO_CONFIG = {};

/** One label set's prom-client children, resolved once. */
interface Series {
  requests: { inc(): void };
  latency: { observe(seconds: number): void };
}

/**
 * http_requests_total and http_request_duration_seconds by method, route and status. A request finds its label set's
 * children through its route's config object, method and status (no label object or string key built per request);
 * prom-client counts. Several apps may share one gateway's registry (tests, a second door): they count together.
 */
export class HttpMetrics {
  /** Per route config object: by method (a route can answer several), series by status. */
  private readonly byRoute = new WeakMap<object, Map<string, Series[]>>();

  constructor(
    private readonly requests: Counter,
    private readonly latency: Histogram,
  ) {}

  observe(request: FastifyRequest, reply: FastifyReply): void {
    const options = request.routeOptions;
    const status = reply.statusCode;
    const route: object = options.config ?? NO_CONFIG;
    let byMethod = this.byRoute.get(route);
    if (byMethod === undefined) this.byRoute.set(route, (byMethod = new Map<string, Series[]>()));
    let byStatus = byMethod.get(request.method);
    if (byStatus === undefined) byMethod.set(request.method, (byStatus = []));
    let series = byStatus[status];
    if (series === undefined) {
      // The route pattern, not the URL, keeps label cardinality bounded.
      const labels = { method: request.method, route: options.url ?? 'unmatched', status: String(status) };
      series = { requests: this.requests.labels(labels), latency: this.latency.labels(labels) };
      byStatus[status] = series;
    }
    series.requests.inc();
    series.latency.observe(reply.elapsedTime / 1000);
  }
}

const httpMetricsByRegistry = new WeakMap<Registry, HttpMetrics>();

/** The HTTP metrics of a registry, made on first use. */
export function httpMetricsOf(registry: Registry): HttpMetrics {
  let metrics = httpMetricsByRegistry.get(registry);
  if (metrics === undefined) {
    const labelNames = ['method', 'route', 'status'];
    metrics = new HttpMetrics(
      new Counter({ name: 'http_requests_total', help: 'HTTP requests by method, route and status', labelNames, registers: [registry] }),
      new Histogram({ name: 'http_request_duration_seconds', help: 'HTTP request latency by method, route and status', labelNames, buckets: BUCKETS, registers: [registry] }),
    );
    httpMetricsByRegistry.set(registry, metrics);
  }
  return metrics;
}

/** GET /metrics behind `guard`; requests are observed by the request frame (request-frame.ts), not by a hook here. */
export function registerMetricsRoute(app: FastifyInstance, registry: Registry, guard: onRequestHookHandler): void {
  app.get('/metrics', { schema: { hide: true }, onRequest: guard }, async (_request, reply) => {
    void reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
}
