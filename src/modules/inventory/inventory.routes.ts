import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { authOf } from '../../platform/http/api-auth.js';
import { authErrorResponses, okEnvelope } from '../../platform/http/envelope.js';
import { inventoryUpdateInput, inventoryUpdateResult } from './inventory.schemas.js';
import type { InventoryService } from './inventory.service.js';

const tags = ['inventory'];
const security = [{ bearerAuth: [] }];
const resultEnvelope = okEnvelope(inventoryUpdateResult.shape);

/** REST door onto InventoryService. */
export function inventoryRoutes(inventory: InventoryService): FastifyPluginAsyncZod {
  return (app) => {
    app.post('/inventory', {
      schema: {
        tags, security, summary: 'Update stock levels',
        description:
          'Sets stock_qty (and the derived stock_status) of known SKUs and forwards all rows to the hub; unknown SKUs are listed in ' +
          '`unknown_skus` and still forwarded. 202 with `queued: true` while the hub has not taken it, 200 with `queued: false` when it did during the request.',
        body: inventoryUpdateInput,
        response: { 200: resultEnvelope, 202: resultEnvelope, ...authErrorResponses },
      },
    }, async (request, reply) => {
      const result = await inventory.update(authOf(request), request.body);
      return reply.status(result.queued ? 202 : 200).send({ ok: true as const, ...result });
    });
    return Promise.resolve();
  };
}
