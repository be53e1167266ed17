import Fastify, { type FastifyInstance } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import type { Gateway } from './gateway.js';
import { mcpRoutes } from './mcp/mcp.routes.js';
import { toolOf } from './mcp/operation-tools.js';
import { API_VERSION } from './platform/core/api-version.js';
import { PACKAGE } from './platform/core/package-info.js';
import { apiKeyAuth } from './platform/http/api-auth.js';
import { clientErrorHandler, frameworkErrorHandler, registerErrorHandling } from './platform/http/error-handler.js';
import { registerApiDocs } from './platform/operations/openapi-routes.js';
import { RequestFrame, requestLogFactory } from './platform/http/request-frame.js';
import { requestIdFor } from './platform/http/request-id.js';
import { registerRestOperations } from './platform/operations/rest.js';
import { audienceOf, type Audience } from './platform/operations/operation.js';
import { adminTokenAuth } from './platform/http/admin-auth.js';
import { ConnectionCap } from './platform/http/connection-cap.js';
import { metricsAuth } from './platform/http/metrics-auth.js';
import { publicGuard } from './platform/http/public-guard.js';
import { PORTAL_CORS, portalKeyAuth } from './platform/http/portal-auth.js';
import { registerHomePage, registerPages } from './platform/http/html-page.js';
import { registerStaticFiles } from './platform/http/static-files.js';
import { corsPreflight, type CorsOptions } from './platform/http/origin.js';
import { bufferedLogSink } from './platform/core/log-sink.js';
import { httpMetricsOf, registerMetricsRoute } from './platform/core/metrics.js';
import { refuseQueryParameters } from './platform/operations/query-string.js';

interface AppOptions {
  /** Pino logger options; tests pass false, or a stream to read what was logged. */
  logger?: false | { level: string; stream?: NodeJS.WritableStream };
}

/** The longest a log line waits in the buffered stream. */
const LOG_FLUSH_MS = 1000;

/**
 * Paths that must never reach a log line in clear. Named one by one: a wildcard path (`*.password`) makes pino
 * walk every logged object and cost four times as much per line.
 */
const REDACT = [
  'req.headers.authorization',
  'req.headers["x-portal-key"]',
  'req.headers.cookie',
  ...['connect_token', 'password', 'credentials', 'key'].flatMap((field) => [field, `body.${field}`, `req.body.${field}`]),
];

/** What a public route's page may send and read (its preflight's answer). */
const PUBLIC_CORS: CorsOptions = {
  methods: ['POST'],
  allowHeaders: ['content-type'],
  exposeHeaders: ['x-request-id', 'retry-after', 'ratelimit-policy', 'ratelimit'],
  maxAgeSeconds: 600,
};

/** LOG_FORMAT=pretty on a terminal: coloured lines for a person; piped or redirected the lines stay JSON for a collector. */
async function prettyStream(config: Gateway['config']): Promise<NodeJS.WritableStream | undefined> {
  if (config.LOG_FORMAT !== 'pretty' || !process.stdout.isTTY) return undefined;
  const { default: pretty } = await import('pino-pretty');
  return pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', destination: 1 });
}

/** Builds the HTTP app on a gateway; no listen() here, so tests inject. */
export async function buildApp(gateway: Gateway, opts: AppOptions = {}): Promise<FastifyInstance> {
  const { config } = gateway;
  const logger = opts.logger ?? { level: config.LOG_LEVEL };
  const frame = new RequestFrame(httpMetricsOf(gateway.metrics), undefined, gateway.requests);
  const pretty = logger === false || logger.stream ? undefined : await prettyStream(config);
  const app = Fastify({
    // Silent rather than none: Fastify reports a finished request to the frame (metrics) only when there is a logger.
    logger:
      logger === false
        ? { level: 'silent' }
        : {
            level: logger.level,
            redact: { paths: REDACT, censor: '[redacted]' },
            // Buffered, so a request does not pay a write syscall per log line; flushed every second too, or a quiet
            // gateway's lines would wait for 4 KB of others. serve flushes on shutdown.
            stream: logger.stream ?? pretty ?? bufferedLogSink(1, { minLength: 4096, periodicFlushMs: LOG_FLUSH_MS }),
          },
    bodyLimit: config.BODY_LIMIT_BYTES,
    // A whole request, headers and body, within REQUEST_TIMEOUT_MS, or 408 and the socket closed: a client trickling its
    // upload cannot hold a socket. Node checks its connections on an interval, so the interval follows the timeout.
    requestTimeout: config.REQUEST_TIMEOUT_MS,
    http: {
      requestTimeout: config.REQUEST_TIMEOUT_MS,
      headersTimeout: config.REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: Math.min(1000, config.REQUEST_TIMEOUT_MS),
    },
    genReqId: requestIdFor,
    // The request frame (headers, metrics, access line) without hooks, and request.log without a pino child per request.
    logController: frame,
    childLoggerFactory: requestLogFactory,
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    routerOptions: { ignoreTrailingSlash: true },
    // request.ip: the socket's address, or X-Forwarded-For's when the hop is a proxy the operator named.
    trustProxy: config.TRUST_PROXY ?? false,
  });

  // A twin router that only answers "which methods exist for this path", for 405 versus 404.
  const methodsRouter = FindMyWay({ ignoreTrailingSlash: true });
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD') continue;
      try {
        methodsRouter.on(method as HTTPMethod, route.url, () => undefined);
      } catch {
        // the same method and path registered twice (HEAD twins): already known
      }
    }
  });
  const allowedMethods = (path: string): string[] =>
    ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => methodsRouter.find(m as HTTPMethod, path) !== null);

  if (config.MAX_CONNECTIONS_PER_IP > 0) {
    const cap = new ConnectionCap(config.MAX_CONNECTIONS_PER_IP);
    // Behind a trusted proxy every socket is the proxy's: the forwarded client is known per request only.
    if (config.TRUST_PROXY === undefined) app.server.on('connection', cap.onConnection);
    else app.addHook('onRequest', cap.onRequest);
  }

  app.addHook('preClose', (done) => {
    frame.closing = true;
    done();
  });
  registerErrorHandling(app, allowedMethods);
  registerMetricsRoute(app, gateway.metrics, metricsAuth(config.METRICS_TOKEN));

  app.get('/healthz', (request) => {
    refuseQueryParameters(request.query);
    return { ok: true as const, service: config.SERVICE_NAME };
  });

  // Operator routes exist only while an admin token is configured: without one they are 404, never open.
  const served = gateway.operations.filter((entry) => audienceOf(entry.operation) !== 'operator' || config.GATEWAY_ADMIN_TOKEN !== undefined);
  const operations = served.map((entry) => entry.operation);
  const of = (audience: Audience) => operations.filter((op) => audienceOf(op) === audience);
  await registerApiDocs(app, {
    title: config.SERVICE_NAME,
    version: PACKAGE.version,
    apiVersion: API_VERSION,
    operations: served,
    tags: gateway.tags,
    webhooks: gateway.webhooks,
    pages: gateway.pages,
    scopes: gateway.scopes,
  });
  registerHomePage(app, { name: config.SERVICE_NAME, version: PACKAGE.version });
  registerPages(app, gateway.pages);
  registerStaticFiles(app, gateway.files);
  await app.register(async (api) => {
    api.addHook(
      'onRequest',
      apiKeyAuth({ verifier: gateway.verifier, limiter: gateway.limiter, defaultLimitPerMinute: config.RATE_LIMIT_PER_MINUTE, source: 'api' }),
    );
    await registerRestOperations(api, of('api'), gateway.invoker);
  });
  const adminToken = config.GATEWAY_ADMIN_TOKEN;
  if (adminToken !== undefined) {
    await app.register(async (admin) => {
      admin.addHook('onRequest', adminTokenAuth(adminToken));
      await registerRestOperations(admin, of('operator'), gateway.invoker);
    });
  }
  const publicOps = of('public');
  await registerRestOperations(app, publicOps, gateway.invoker, (op) =>
    publicGuard({ origins: config.CONNECT_ALLOWED_ORIGINS, cors: PUBLIC_CORS, limiter: gateway.limiter, bucket: op.name, perIpPerMinute: op.perIpPerMinute ?? 1 }),
  );
  for (const path of new Set(publicOps.map((op) => op.path))) {
    app.options(path, { schema: { hide: true } }, corsPreflight(config.CONNECT_ALLOWED_ORIGINS, { ...PUBLIC_CORS, methods: publicOps.filter((op) => op.path === path).map((op) => op.method) }));
  }
  const portalOps = of('portal');
  await app.register(async (portal) => {
    portal.addHook('onRequest', portalKeyAuth({ verifier: gateway.portalVerifier, limiter: gateway.limiter }));
    await registerRestOperations(portal, portalOps, gateway.invoker);
  });
  // Outside the door's hook: a preflight carries no key, so it is answered for the origins of any active key.
  const listedAnywhere = (origin: string) => gateway.portalVerifier.isListedAnywhere(origin);
  for (const path of new Set(portalOps.map((op) => op.path))) {
    app.options(path, { schema: { hide: true } }, corsPreflight(listedAnywhere, { ...PORTAL_CORS, methods: portalOps.filter((op) => op.path === path).map((op) => op.method) }));
  }
  await app.register(
    mcpRoutes({
      tools: of('api').filter((op) => !op.absent?.mcp).map((op) => toolOf(op, gateway.invoker)),
      authenticate: apiKeyAuth({ verifier: gateway.verifier, limiter: gateway.limiter, defaultLimitPerMinute: config.RATE_LIMIT_PER_MINUTE, source: 'mcp' }),
      allowedOrigins: config.ALLOWED_ORIGINS,
      serverInfo: { name: config.SERVICE_NAME, title: 'Tire gateway', version: PACKAGE.version, description: 'The integration gateway of a tire and equipment platform' },
    }),
  );

  return app;
}
