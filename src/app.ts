import Fastify, { type FastifyInstance } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { type ZodTypeProvider, validatorCompiler } from 'fastify-type-provider-zod';
import type { Gateway } from './gateway.js';
import { productsRoutes } from './modules/products/products.routes.js';
import { apiKeyAuth } from './platform/http/api-auth.js';
import { registerErrorHandling } from './platform/http/error-handler.js';
import { requestIdFor } from './platform/http/request-id.js';
import { registerHttpMetrics } from './platform/metrics.js';

export interface AppOptions {
  /** Pino logger options; tests pass false, or a stream to read what was logged. */
  logger?: false | { level: string; stream?: NodeJS.WritableStream };
}

/** Paths that must never reach a log line in clear. */
const REDACT = [
  'req.headers.authorization',
  'req.headers["x-portal-key"]',
  'req.headers.cookie',
  '*.connect_token',
  '*.password',
  '*.credentials',
  '*.key',
];

/** Builds the HTTP app on a gateway; no listen() here, so tests inject. */
export async function buildApp(gateway: Gateway, opts: AppOptions = {}): Promise<FastifyInstance> {
  const { config } = gateway;
  const logger = opts.logger ?? { level: config.LOG_LEVEL };
  const app = Fastify({
    logger: logger === false ? false : { ...logger, redact: { paths: REDACT, censor: '[redacted]' } },
    bodyLimit: config.BODY_LIMIT_BYTES,
    genReqId: requestIdFor,
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
  app.addHook('onSend', (request, reply, payload, done) => {
    void reply.header('x-request-id', request.id);
    done(null, payload);
  });
  registerHttpMetrics(app, gateway.metrics);

  app.get('/healthz', { schema: { hide: true } }, () => ({ ok: true as const, service: config.SERVICE_NAME }));

  const { services } = gateway;
  await app.register(
    async (v1) => {
      v1.addHook(
        'onRequest',
        apiKeyAuth({ verifier: gateway.verifier, limiter: gateway.limiter, defaultLimitPerMinute: config.RATE_LIMIT_PER_MINUTE, source: 'api' }),
      );
      await v1.register(productsRoutes(services.products));
    },
    { prefix: '/v1' },
  );

  return app;
}
