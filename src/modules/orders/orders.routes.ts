import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { authOf } from '../../platform/http/api-auth.js';
import { authErrorResponses, errorEnvelope, okEnvelope } from '../../platform/http/envelope.js';
import { createOrderInput, listOrdersQuery, orderRefParams, orderSchema, setStatusInput } from './orders.schemas.js';
import type { OrdersService } from './orders.service.js';

const tags = ['orders'];
const security = [{ bearerAuth: [] }];
const orderEnvelope = okEnvelope({ order: orderSchema });
const idempotencyHeader = z.object({ 'idempotency-key': z.string().max(255).optional() });

/** REST door onto OrdersService: parse, call, wrap. No logic lives here. */
export function ordersRoutes(orders: OrdersService): FastifyPluginAsyncZod {
  return (app) => {
    app.get('/orders', {
      schema: {
        tags, security, summary: 'List orders, newest first, with lines',
        description: 'The 50 most recent orders (optionally of one `status`); `next_cursor` pages further back.',
        querystring: listOrdersQuery,
        response: { 200: okEnvelope({ orders: z.array(orderSchema), next_cursor: z.string().nullable() }), ...authErrorResponses },
      },
    }, async (request) => ({ ok: true as const, ...(await orders.list(authOf(request), request.query)) }));

    app.get('/orders/:idOrPoNumber', {
      schema: {
        tags, security, summary: 'Get an order by id, or else by PO number',
        params: orderRefParams,
        response: { 200: orderEnvelope, ...authErrorResponses, 404: errorEnvelope },
      },
    }, async (request) => ({ ok: true as const, order: await orders.get(authOf(request), request.params.idOrPoNumber) }));

    app.post('/orders', {
      schema: {
        tags, security, summary: 'Create an order',
        description:
          'Lines resolve against the catalog by SKU (case-insensitive; unknown or inactive -> 422 naming the line). ' +
          'The order is forwarded to the hub; if the hub is unavailable it stays queued and the call still succeeds. ' +
          'Send `Idempotency-Key` to make retries safe.',
        headers: idempotencyHeader,
        body: createOrderInput,
        response: { 201: orderEnvelope, ...authErrorResponses, 409: errorEnvelope, 422: errorEnvelope },
      },
    }, async (request, reply) => {
      const order = await orders.create(authOf(request), request.body);
      return reply.status(201).send({ ok: true as const, order });
    });

    app.post('/orders/:idOrPoNumber/ack', {
      schema: {
        tags, security, summary: 'Acknowledge an order (submitted -> confirmed)',
        description: 'A confirmed order is returned unchanged; any other state -> 409.',
        headers: idempotencyHeader,
        params: orderRefParams,
        response: { 200: orderEnvelope, ...authErrorResponses, 404: errorEnvelope, 409: errorEnvelope },
      },
    }, async (request) => ({ ok: true as const, order: await orders.ack(authOf(request), request.params.idOrPoNumber) }));

    app.patch('/orders/:idOrPoNumber/status', {
      schema: {
        tags, security, summary: 'Move an order to another status',
        description:
          'submitted -> confirmed | cancelled; confirmed -> processing | cancelled; processing -> shipped | cancelled; ' +
          'shipped -> delivered. The current status is a no-op; anything else -> 409 with the allowed next states in `details`.',
        params: orderRefParams,
        body: setStatusInput,
        response: { 200: orderEnvelope, ...authErrorResponses, 404: errorEnvelope, 409: errorEnvelope },
      },
    }, async (request) => ({
      ok: true as const,
      order: await orders.setStatus(authOf(request), request.params.idOrPoNumber, request.body.status),
    }));
    return Promise.resolve();
  };
}
