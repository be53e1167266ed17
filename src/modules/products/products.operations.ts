import { z } from 'zod';
import { defineRead, defineWrite, type Operation } from '../../platform/operations/operation.js';
import type { ProductsService } from './products.service.js';
import { createProductInput, listProductsQuery, productSchema, skuParams, updateProductInput } from './products.schemas.js';

const productOut = z.object({ product: productSchema });

const exampleProduct = {
  sku: 'MICH-225-45R17',
  name: 'Michelin Pilot Sport 5 225/45R17',
  description: null,
  status: 'active',
  stock_qty: 24,
  stock_status: 'in_stock',
  bin_location: 'A-01',
  tire_size: '225/45R17',
  created_at: '2026-06-01T12:00:00.000Z',
  updated_at: '2026-06-01T12:00:00.000Z',
};

/** The product operations: each one REST route, one MCP tool and one OpenAPI operation. */
export function productsOperations(products: ProductsService): Operation[] {
  return [
    defineRead({
      name: 'products_list',
      method: 'GET',
      path: '/v1/products',
      scope: 'products:read',
      summary: 'List products',
      description:
        'List the products of your organisation with stock quantity and stock status (backorder, low_stock, in_stock): the ' +
        'active ones by SKU, or those in `status` (active, inactive, discontinued). To sync, pass `updated_since`: every product ' +
        'changed at or after it, whatever its status unless `status` is given, oldest change first; keep the last ' +
        '`updated_at` you saw for the next sync. `q` is a tire size in any usual spelling (`225 45 17`, `P225/45R17`, ' +
        '`LT245/75R16`), with a load index and speed rating (`94W`) and other words (`michelin 225/45R17`) narrowing it, or text ' +
        'searched in SKU and name; pass `next_cursor` back as `cursor` for the next page.',
      query: listProductsQuery,
      output: z.object({ products: z.array(productSchema), next_cursor: z.string().nullable().describe('cursor of the next page; null on the last') }),
      status: 200,
      returns: 'one page of products.',
      errors: {},
      example: { query: { q: 'pilot', limit: '20' }, response: { products: [exampleProduct], next_cursor: null } },
      handle: ({ db, orgId }, { query }) => products.list(db, orgId, query),
    }),
    defineRead({
      name: 'products_get',
      method: 'GET',
      path: '/v1/products/:sku',
      scope: 'products:read',
      summary: 'Get a product',
      description: 'Get one product by SKU (case-insensitive), whatever its status, with stock quantity, stock status and bin location.',
      params: skuParams,
      output: productOut,
      result: 'product',
      status: 200,
      returns: 'the product.',
      errors: { not_found: 'No product with this SKU in your organisation.' },
      example: { params: { sku: 'MICH-225-45R17' }, response: { product: exampleProduct } },
      handle: ({ db, orgId }, { params }) => products.get(db, orgId, params.sku),
    }),
    defineWrite({
      name: 'products_create',
      method: 'POST',
      path: '/v1/products',
      scope: 'products:write',
      summary: 'Create a product',
      description:
        'Create a product. `sku` and `name` are required; `status` defaults to active and `stock_qty` to 0. ' +
        'stock_status is derived from stock_qty. `tire_size` is stored normalized; without it the size is read from the name. ' +
        'A SKU that exists (case-insensitively) is a conflict.',
      body: createProductInput,
      output: productOut,
      result: 'product',
      status: 201,
      returns: 'the new product.',
      errors: { already_exists: 'A product with this SKU exists.' },
      hints: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
      example: {
        body: { sku: 'MICH-225-45R17', name: 'Michelin Pilot Sport 5 225/45R17', stock_qty: 24, bin_location: 'A-01' },
        response: { product: exampleProduct },
      },
      handle: ({ tx, orgId }, { body }) => products.create(tx, orgId, body),
    }),
    defineWrite({
      name: 'products_update',
      method: 'PATCH',
      path: '/v1/products/:sku',
      scope: 'products:write',
      summary: 'Update a product',
      description:
        'Update a product by SKU: any of name, description, status (active, inactive, discontinued), stock_qty, bin_location, ' +
        'tire_size (null: read the size from the name again); ' +
        'the fields sent replace the stored ones. stock_status is recomputed from stock_qty and cannot be set.',
      params: skuParams,
      body: updateProductInput,
      output: productOut,
      result: 'product',
      status: 200,
      returns: 'the product as updated.',
      errors: { not_found: 'No product with this SKU in your organisation.' },
      // Overwrites fields: what was there before is gone.
      hints: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
      example: { params: { sku: 'MICH-225-45R17' }, body: { stock_qty: 6 }, response: { product: { ...exampleProduct, stock_qty: 6, stock_status: 'low_stock' } } },
      handle: ({ tx, orgId }, { params, body }) => products.update(tx, orgId, params.sku, body),
    }),
  ];
}
