import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { API_VERSION } from '../api-version.js';

const DESCRIPTION = [
  'Org-scoped REST resources of the tire and equipment gateway. Every `/v1` call needs `Authorization: Bearer <API key>`',
  'and the scope named on the operation; a key sees only its own organisation. Errors share one envelope',
  '(`{ ok: false, status, error, code, request_id, details? }`).',
  'The same operations are MCP tools at `POST /mcp` (Streamable HTTP, same Bearer header).',
].join(' ');

/**
 * OpenAPI 3.1 generated from the route schemas, served at GET /openapi.json with interactive docs at GET /docs.
 * Must run before any route is registered: the document is collected from Fastify's route registrations.
 */
export async function registerOpenApi(app: FastifyInstance, serviceName: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: serviceName, version: API_VERSION, description: DESCRIPTION },
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key (`trk_live_…`) issued by the operator.' },
        },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());
}
