import Fastify, { type FastifyInstance } from 'fastify';
import { pino } from 'pino';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { type ZodTypeProvider, validatorCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Gateway } from './gateway.js';
import { mcpRoutes } from './mcp/mcp.routes.js';
import { allTools } from './mcp/registry.js';
import { ediRoutes } from './modules/edi/edi.routes.js';
import { objectsRoutes } from './modules/objects/objects.routes.js';
import { inventoryRoutes } from './modules/inventory/inventory.routes.js';
import { ordersRoutes } from './modules/orders/orders.routes.js';
import { productsRoutes } from './modules/products/products.routes.js';
import { warrantyRoutes } from './modules/warranty/warranty.routes.js';
import { API_VERSION } from './platform/api-version.js';
import { AccessLogController } from './platform/http/access-log.js';
import { apiKeyAuth } from './platform/http/api-auth.js';
import { okEnvelope } from './platform/http/envelope.js';
import { frameworkErrorHandler, registerErrorHandling } from './platform/http/error-handler.js';
import { registerIdempotency } from './platform/http/idempotency.js';
import { rejectNulCharacters } from './platform/http/nul-guard.js';
import { registerOpenApi } from './platform/http/openapi.js';
import { requestIdFor } from './platform/http/request-id.js';
import { registerHttpMetrics } from './platform/metrics.js';

export interface AppOptions {
  /** Pino logger options; tests pass false, or a stream to read what was logged. */
  logger?: false | { level: string; stream?: NodeJS.WritableStream };
}

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

/** Builds the HTTP app on a gateway; no listen() here, so tests inject. */
export async function buildApp(gateway: Gateway, opts: AppOptions = {}): Promise<FastifyInstance> {
  const { config } = gateway;
  const logger = opts.logger ?? { level: config.LOG_LEVEL };
  const app = Fastify({
    logger:
      logger === false
        ? false
        : {
            level: logger.level,
            redact: { paths: REDACT, censor: '[redacted]' },
            // Buffered, so a request does not pay a write syscall per log line; serve flushes on shutdown.
            stream: logger.stream ?? pino.destination({ dest: 1, sync: false, minLength: 4096 }),
          },
    bodyLimit: config.BODY_LIMIT_BYTES,
    genReqId: requestIdFor,
    logController: new AccessLogController(),
    frameworkErrors: frameworkErrorHandler,
    routerOptions: { ignoreTrailingSlash: true },
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  // Responses are typed at compile time; runtime schemas serve the OpenAPI document, not a second validation.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

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

  registerErrorHandling(app, allowedMethods);
  app.addHook('preValidation', rejectNulCharacters);
  // Set first thing, so every answer (errors, 404s, replays) carries it.
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    done();
  });
  await registerOpenApi(app, config.SERVICE_NAME);
  registerHttpMetrics(app, gateway.metrics);

  app.get('/healthz', {
    schema: { tags: ['health'], summary: 'Liveness check (no authentication)', response: { 200: okEnvelope({ service: z.string() }) } },
  }, () => ({ ok: true as const, service: config.SERVICE_NAME }));

  const { services } = gateway;
  await app.register(
    async (v1) => {
      v1.addHook(
        'onRequest',
        apiKeyAuth({ verifier: gateway.verifier, limiter: gateway.limiter, defaultLimitPerMinute: config.RATE_LIMIT_PER_MINUTE, source: 'api' }),
      );
      registerIdempotency(v1, { db: gateway.database.db, clock: gateway.clock });
      await v1.register(productsRoutes(services.products));
      await v1.register(ordersRoutes(services.orders));
      await v1.register(inventoryRoutes(services.inventory));
      await v1.register(warrantyRoutes(services.warranty));
      await v1.register(objectsRoutes(services.objects));
      await v1.register(ediRoutes(services.edi));
    },
    { prefix: '/v1' },
  );
  await app.register(
    mcpRoutes({
      tools: allTools(services),
      authenticate: apiKeyAuth({ verifier: gateway.verifier, limiter: gateway.limiter, defaultLimitPerMinute: config.RATE_LIMIT_PER_MINUTE, source: 'mcp' }),
      allowedOrigins: config.ALLOWED_ORIGINS,
      serverInfo: { name: config.SERVICE_NAME, version: API_VERSION },
    }),
  );

  return app;
}
