import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { authOf } from '../../platform/http/api-auth.js';
import { authErrorResponses, errorEnvelope, okEnvelope } from '../../platform/http/envelope.js';
import type { ProductsService } from './products.service.js';
import { createProductInput, listProductsQuery, productSchema, skuParams, updateProductInput } from './products.schemas.js';

const tags = ['products'];
const security = [{ bearerAuth: [] }];
const productEnvelope = okEnvelope({ product: productSchema });

/** REST door onto ProductsService: parse, call, wrap. No logic lives here. */
export function productsRoutes(products: ProductsService): FastifyPluginAsyncZod {
  return (app) => {
    app.get('/products', {
      schema: {
        tags, security, summary: 'List active products',
        description: 'Active products with stock quantity and status, ordered by SKU. `q` searches SKU and name.',
        querystring: listProductsQuery,
        response: { 200: okEnvelope({ products: z.array(productSchema), next_cursor: z.string().nullable() }), ...authErrorResponses },
      },
    }, async (request) => ({ ok: true as const, ...(await products.list(authOf(request), request.query)) }));

    app.get('/products/:sku', {
      schema: {
        tags, security, summary: 'Get a product by SKU (case-insensitive, any status)',
        params: skuParams,
        response: { 200: productEnvelope, ...authErrorResponses, 404: errorEnvelope },
      },
    }, async (request) => ({ ok: true as const, product: await products.get(authOf(request), request.params.sku) }));

    app.post('/products', {
      schema: {
        tags, security, summary: 'Create a product',
        body: createProductInput,
        response: { 201: productEnvelope, ...authErrorResponses, 409: errorEnvelope },
      },
    }, async (request, reply) => {
      const product = await products.create(authOf(request), request.body);
      return reply.status(201).send({ ok: true as const, product });
    });

    app.patch('/products/:sku', {
      schema: {
        tags, security, summary: 'Update a product',
        description: 'stock_status is derived from stock_qty with the org thresholds and cannot be set.',
        params: skuParams,
        body: updateProductInput,
        response: { 200: productEnvelope, ...authErrorResponses, 404: errorEnvelope },
      },
    }, async (request) => ({
      ok: true as const,
      product: await products.update(authOf(request), request.params.sku, request.body),
    }));
    return Promise.resolve();
  };
}
