import { z } from 'zod';
import { CREATES, defineTool, READ_ONLY, type ToolDefinition, UPDATES } from '../../mcp/tool.js';
import { createProductInput, listProductsQuery, productSchema, updateProductInput } from './products.schemas.js';
import type { ProductsService } from './products.service.js';

const productOut = z.object({ product: productSchema });

/** MCP door onto ProductsService: the same functions the REST routes call. */
export function productsTools(products: ProductsService): ToolDefinition[] {
  return [
    defineTool({
      name: 'products_list',
      title: 'List products',
      description:
        'List the active products of your organisation with stock quantity and stock status (backorder, low_stock, in_stock), ordered by SKU. ' +
        'Use `q` to search SKU and name; pass `next_cursor` back as `cursor` for the next page.',
      scope: 'products:read',
      rest: 'GET /v1/products',
      input: listProductsQuery,
      output: z.object({ products: z.array(productSchema), next_cursor: z.string().nullable() }),
      annotations: READ_ONLY,
      handler: (auth, input) => products.list(auth, input),
    }),
    defineTool({
      name: 'products_get',
      title: 'Get a product',
      description: 'Get one product by SKU (case-insensitive), whatever its status, with stock quantity, stock status and bin location.',
      scope: 'products:read',
      rest: 'GET /v1/products/:sku',
      input: z.object({ sku: z.string().min(1).max(200) }),
      output: productOut,
      annotations: READ_ONLY,
      handler: async (auth, input) => ({ product: await products.get(auth, input.sku) }),
    }),
    defineTool({
      name: 'products_create',
      title: 'Create a product',
      description:
        'Create a product. `sku` and `name` are required; `status` defaults to active and `stock_qty` to 0. ' +
        'stock_status is derived from stock_qty. Fails with a conflict if the SKU exists (case-insensitively).',
      scope: 'products:write',
      rest: 'POST /v1/products',
      input: createProductInput,
      output: productOut,
      annotations: CREATES,
      handler: async (auth, input) => ({ product: await products.create(auth, input) }),
    }),
    defineTool({
      name: 'products_update',
      title: 'Update a product',
      description:
        'Update a product by SKU: any of name, description, status (active, inactive, discontinued), stock_qty, bin_location. ' +
        'stock_status is recomputed from stock_qty and cannot be set.',
      scope: 'products:write',
      rest: 'PATCH /v1/products/:sku',
      input: z.object({ sku: z.string().min(1).max(200), changes: updateProductInput }),
      output: productOut,
      annotations: UPDATES,
      handler: async (auth, input) => ({ product: await products.update(auth, input.sku, input.changes) }),
    }),
  ];
}
