import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { ScopeCatalog } from '../auth/scopes.js';
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
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
      '431': {
        description: 'Request headers (or the URL) too large, in the error envelope.',
        headers: REQUEST_ID,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
    },
  },
};

export interface ApiDocsOptions {
  title: string;
  version: string;
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
    version: opts.version,
    description: DESCRIPTION,
    tags: [HEALTH_TAG, ...opts.tags],
    operations: opts.operations.map((e) => e.operation),
    tagOf: (op) => tagOf.get(op.name) ?? 'other',
    extraPaths: { '/healthz': HEALTHZ, ...pagePaths(opts.pages) },
    scopes: opts.scopes,
    webhooks: opts.webhooks,
  });
  await app.register(swagger, { mode: 'static', specification: { document: document as never } });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', () => document);
}
