import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { ScopeCatalog } from '../auth/scopes.js';
import { docUrlOf, type ErrorCode } from '../core/errors.js';
import type { OperationEntry } from './module.js';
import { type PageRoute, pagePaths } from '../http/html-page.js';
import { buildOpenApiDocument, type OpenApiTag, type WebhookDoc } from './openapi.js';

const DESCRIPTION = [
  'Org-scoped REST resources of the tire and equipment gateway. Every `/v1` call needs `Authorization: Bearer <API key>`',
  'and the scope named on the operation (`x-required-scope`); a key sees only its own organisation. Errors share one',
  'envelope (`{ ok: false, status, error, code, request_id, details? }`). Operations that change something take an',
  '`Idempotency-Key`.',
  'The same operations are MCP tools at `POST /mcp` (Streamable HTTP, same Bearer header), named by their operationId.',
  'Dealer sites call the portal routes under `/api/portal/v1` from the browser with a portal key in `X-Portal-Key` instead.',
].join(' ');

const HEALTH_TAG: OpenApiTag = { name: 'health', description: 'Liveness of the gateway process; no authentication.' };

/** Every answer names its request, these hand-written routes' too. */
const REQUEST_ID = { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } };

const healthzError = (status: number, code: ErrorCode, error: string) => ({
  ok: false,
  status,
  error,
  code,
  request_id: '3f2b8c1e-5d4a-4b7e-9c21-7a0d6e4f1b90',
  ...(code === 'invalid_input' ? { param: 'verbose' } : {}),
  doc_url: docUrlOf(code),
});

const HEALTHZ = {
  get: {
    operationId: 'healthz',
    tags: [HEALTH_TAG.name],
    summary: 'Liveness check',
    description: 'Answers while the process serves HTTP. No authentication.',
    security: [],
    responses: {
      '200': {
        description: 'OK: the process is up.',
        headers: REQUEST_ID,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              properties: { ok: { type: 'boolean', const: true }, service: { type: 'string' } },
              required: ['ok', 'service'],
              additionalProperties: false,
            },
            example: { ok: true, service: 'tire-gateway' },
          },
        },
      },
      '400': {
        description: 'A query parameter (this route takes none), or a request Node or Fastify cannot take (a malformed URL), in the error envelope.',
        headers: REQUEST_ID,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, example: healthzError(400, 'invalid_input', 'verbose: unknown query parameter (this route takes none)') } },
      },
      '431': {
        description: 'Request headers (or the URL) too large, in the error envelope.',
        headers: REQUEST_ID,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, example: healthzError(431, 'headers_too_large', 'request headers are too large (the URL counts toward the limit)') } },
      },
    },
  },
};

/** A tire, drawn: the gateway's own icon instead of Swagger's. */
const FAVICON = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><circle cx="16" cy="16" r="14" fill="#1f2933"/>' +
    '<circle cx="16" cy="16" r="7" fill="#c2410c"/><circle cx="16" cy="16" r="3" fill="#fff"/></svg>',
);

/** The page's own padding, once the top bar is gone. */
const DOCS_CSS = 'body { margin: 0; } .swagger-ui .information-container { padding-top: 1rem; }';

export interface ApiDocsOptions {
  /** The gateway's name (SERVICE_NAME) and release (package.json), so a reader knows whose API this is. */
  title: string;
  version: string;
  /** The version of the /v1 contract, stated in the description beside the release. */
  apiVersion: string;
  operations: OperationEntry[];
  tags: OpenApiTag[];
  webhooks: readonly WebhookDoc[];
  /** HTML pages (OAuth redirects back), documented beside the operations under their module's tag. */
  pages: readonly PageRoute[];
  scopes: ScopeCatalog;
}

/** GET /openapi.json, the document generated from the operation list, and interactive docs on it at GET /docs. */
export async function registerApiDocs(app: FastifyInstance, opts: ApiDocsOptions): Promise<void> {
  const tagOf = new Map(opts.operations.map((e) => [e.operation.name, e.tag]));
  const document = buildOpenApiDocument({
    title: opts.title,
    // info.version is the contract's version (what a client codes against); the release serving it is in the description.
    version: opts.apiVersion,
    description: `${DESCRIPTION}\n\nServed by ${opts.title} ${opts.version}; REST contract \`/v1\` version ${opts.apiVersion}. ` +
      'Browse it at `/docs`, fetch it at `/openapi.json`.',
    tags: [HEALTH_TAG, ...opts.tags],
    operations: opts.operations.map((e) => e.operation),
    tagOf: (op) => tagOf.get(op.name) ?? 'other',
    extraPaths: { '/healthz': HEALTHZ, ...pagePaths(opts.pages) },
    scopes: opts.scopes,
    webhooks: opts.webhooks,
  });
  await app.register(swagger, { mode: 'static', specification: { document: document as never } });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // BaseLayout has no top bar: neither the Swagger logo nor the "Explore" box that loads any other document.
    uiConfig: { layout: 'BaseLayout', deepLinking: true, displayOperationId: true, defaultModelsExpandDepth: 0 },
    logo: { type: 'image/svg+xml', content: FAVICON },
    theme: {
      title: `${opts.title} ${opts.version} · API reference`,
      favicon: [{ filename: 'favicon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: FAVICON }],
      css: [{ filename: 'gateway.css', content: DOCS_CSS }],
    },
  });
  app.get('/openapi.json', () => document);
}
