import { z } from 'zod';
import { defineRead, defineSteps, defineWrite, type Operation } from '../../platform/operations/operation.js';
import {
  createEndpointInput,
  deliveryParams,
  deliverySchema,
  endpointParams,
  endpointSchema,
  eventParams,
  eventSchema,
  listDeliveriesQuery,
  listEndpointsQuery,
  listEventsQuery,
  secretSchema,
  updateEndpointInput,
} from './webhooks.schemas.js';
import type { WebhooksService } from './webhooks.service.js';

const exampleEndpoint = {
  id: 'whe_01jx2m8d7k3q9v6t5r4p2n1b0a',
  url: 'https://dealer.example.com/hooks/tire-gateway',
  description: 'Order updates for the dealer site',
  event_types: ['order.created', 'order.status_changed'],
  enabled: true,
  disabled_reason: null,
  failing_since: null,
  previous_secret_valid_until: null,
  created_at: '2026-06-01T12:00:00.000Z',
  updated_at: '2026-06-01T12:00:00.000Z',
};
const exampleSecret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const exampleDelivery = {
  id: 'whd_3f6c1a9e0b2d4c8a7e5f1b3d9c',
  endpoint_id: exampleEndpoint.id,
  event_id: 'evt_01jx2m9a1b2c3d4e5f6g7h8j9k',
  type: 'order.created',
  status: 'delivered',
  attempt_count: 1,
  next_attempt_at: null,
  last_error: null,
  created_at: '2026-06-01T12:00:01.000Z',
  delivered_at: '2026-06-01T12:00:01.250Z',
  attempts: [{ attempted_at: '2026-06-01T12:00:01.000Z', status_code: 200, duration_ms: 84, error: null, response_snippet: 'ok' }],
};
const exampleEvent = {
  id: exampleDelivery.event_id,
  type: 'order.status_changed',
  created_at: '2026-06-01T12:00:01.000Z',
  data: { order_id: 'ord_01jx2m8d7k3q9v6t5r4p2n1b0a', po_number: 'PO-1001', from: 'received', to: 'confirmed', changed_at: '2026-06-01T12:00:01.000Z' },
};

const SIGNING =
  'Each delivery is a POST of `{ id, type, created_at, data }` signed per the Standard Webhooks spec: headers `webhook-id` ' +
  '(the event id, the same on every redelivery: de-duplicate by it), `webhook-timestamp` and `webhook-signature` ' +
  '(`v1,<base64 HMAC-SHA256 of id.timestamp.body>` keyed with the secret).';
const NOT_FOUND = 'No webhook endpoint with this id in your organisation.';
const SHOWN_ONCE = 'A retry with the same Idempotency-Key: the secret was shown once, in the first answer, and is not replayed (`details.id` names the endpoint).';
const rotateUrl = (id: string) => `POST /v1/webhook-endpoints/${id}/rotate-secret`;
const UNSAFE = 'The URL is not https, carries credentials, or its host resolves to a private, loopback, link-local or metadata address (`details.field` is `url`).';

/** The webhook and events operations: each one REST route, one MCP tool and one OpenAPI operation. */
export function webhooksOperations(webhooks: WebhooksService): Operation[] {
  return [
    defineSteps({
      name: 'webhook_endpoints_create',
      method: 'POST',
      path: '/v1/webhook-endpoints',
      scope: 'webhooks:write',
      summary: 'Create a webhook endpoint',
      description:
        'Subscribe a URL to your organisation\'s events: `event_types` lists the types (GET /v1/webhook-event-types) or is `["*"]`. ' +
        `The answer holds the signing \`secret\` (\`whsec_…\`), shown only here and on rotation (a retry with the same Idempotency-Key answers 409 \`secret_shown_once\`). ${SIGNING} ` +
        'Failed attempts (timeouts, refusals, 408, 429, 5xx) are retried with backoff; an endpoint failing every attempt for days is disabled.',
      body: createEndpointInput,
      output: z.object({ endpoint: endpointSchema, secret: secretSchema }),
      status: 201,
      returns: 'the endpoint and its secret.',
      errors: { invalid_input: UNSAFE, secret_shown_once: SHOWN_ONCE },
      hints: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
      shownOnce: ({ endpoint: { id } }) => ({
        created: `webhook endpoint ${id}`,
        details: { id },
        instead: `unless the secret was kept, rotate it (${rotateUrl(id)}) with a new Idempotency-Key and use that one; do not create the endpoint again`,
      }),
      example: {
        body: { url: exampleEndpoint.url, event_types: exampleEndpoint.event_types, description: exampleEndpoint.description },
        response: { endpoint: exampleEndpoint, secret: exampleSecret },
      },
      // The URL's DNS lookup runs before the write transaction: a slow resolver must not hold the database's writer.
      handle: async ({ db, orgId, settle }, { body }) => {
        await webhooks.checkUrl(body.url);
        return db.transaction().execute(async (tx) => {
          const created = await webhooks.create(tx, orgId, body);
          await settle(tx, created);
          return created;
        });
      },
    }),
    defineRead({
      name: 'webhook_endpoints_list',
      method: 'GET',
      path: '/v1/webhook-endpoints',
      scope: 'webhooks:read',
      summary: 'List webhook endpoints',
      description: "List your organisation's webhook endpoints, oldest first; pass `next_cursor` back as `cursor` for the next page.",
      query: listEndpointsQuery,
      output: z.object({ endpoints: z.array(endpointSchema), next_cursor: z.string().nullable().describe('cursor of the next page; null on the last') }),
      status: 200,
      returns: 'one page of endpoints.',
      errors: {},
      example: { query: { limit: '20' }, response: { endpoints: [exampleEndpoint], next_cursor: null } },
      handle: ({ db, orgId }, { query }) => webhooks.list(db, orgId, query),
    }),
    defineRead({
      name: 'webhook_endpoints_get',
      method: 'GET',
      path: '/v1/webhook-endpoints/:endpoint_id',
      scope: 'webhooks:read',
      summary: 'Get a webhook endpoint',
      description: 'Get one webhook endpoint: its URL, types, whether it is enabled and, when the gateway disabled it, why.',
      params: endpointParams,
      output: z.object({ endpoint: endpointSchema }),
      result: 'endpoint',
      status: 200,
      returns: 'the endpoint.',
      errors: { not_found: NOT_FOUND },
      example: { params: { endpoint_id: exampleEndpoint.id }, response: { endpoint: exampleEndpoint } },
      handle: ({ db, orgId }, { params }) => webhooks.get(db, orgId, params.endpoint_id),
    }),
    defineSteps({
      name: 'webhook_endpoints_update',
      method: 'PATCH',
      path: '/v1/webhook-endpoints/:endpoint_id',
      scope: 'webhooks:write',
      summary: 'Update a webhook endpoint',
      description:
        'Change the URL, the event types, the description (null clears it) or `enabled`; send at least one. Enabling an endpoint ' +
        'the gateway disabled clears why; events queued while it was disabled are failed (retry them one by one).',
      params: endpointParams,
      body: updateEndpointInput,
      output: z.object({ endpoint: endpointSchema }),
      result: 'endpoint',
      status: 200,
      returns: 'the endpoint as updated.',
      errors: { not_found: NOT_FOUND, invalid_input: UNSAFE },
      hints: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
      example: { params: { endpoint_id: exampleEndpoint.id }, body: { enabled: false }, response: { endpoint: { ...exampleEndpoint, enabled: false } } },
      handle: async ({ db, orgId, settle }, { params, body }) => {
        if (body.url !== undefined) await webhooks.checkUrl(body.url);
        return db.transaction().execute(async (tx) => {
          const updated = await webhooks.update(tx, orgId, params.endpoint_id, body);
          await settle(tx, updated);
          return updated;
        });
      },
    }),
    defineWrite({
      name: 'webhook_endpoints_delete',
      method: 'DELETE',
      path: '/v1/webhook-endpoints/:endpoint_id',
      scope: 'webhooks:write',
      summary: 'Delete a webhook endpoint',
      description: 'Delete a webhook endpoint: nothing more is sent to it (deliveries still queued for it are failed).',
      params: endpointParams,
      output: z.object({ deleted: z.literal(true), id: z.string() }),
      status: 200,
      returns: 'the id deleted.',
      errors: { not_found: NOT_FOUND },
      hints: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
      example: { params: { endpoint_id: exampleEndpoint.id }, response: { deleted: true, id: exampleEndpoint.id } },
      handle: ({ tx, orgId }, { params }) => webhooks.delete(tx, orgId, params.endpoint_id),
    }),
    defineWrite({
      name: 'webhook_endpoints_rotate_secret',
      method: 'POST',
      path: '/v1/webhook-endpoints/:endpoint_id/rotate-secret',
      scope: 'webhooks:write',
      summary: "Rotate a webhook endpoint's secret",
      description:
        'Make a new signing secret, shown once in the answer. For a grace period (`previous_secret_valid_until`, a day by default) ' +
        'every delivery carries both signatures in `webhook-signature`, so a receiver on either secret verifies; after it only the new one signs.',
      params: endpointParams,
      output: z.object({ endpoint: endpointSchema, secret: secretSchema }),
      status: 200,
      returns: 'the endpoint and its new secret.',
      errors: { not_found: NOT_FOUND, secret_shown_once: SHOWN_ONCE },
      hints: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
      shownOnce: ({ endpoint: { id } }) => ({
        created: `a new secret for webhook endpoint ${id}`,
        details: { id },
        instead:
          `unless the secret was kept, rotate again (${rotateUrl(id)}) with a new Idempotency-Key and put that secret in your receiver at once ` +
          '(rotating again ends the grace of the secret from before the lost rotation)',
      }),
      example: {
        params: { endpoint_id: exampleEndpoint.id },
        response: { endpoint: { ...exampleEndpoint, previous_secret_valid_until: '2026-06-02T12:00:00.000Z' }, secret: exampleSecret },
      },
      handle: ({ tx, orgId }, { params }) => webhooks.rotateSecret(tx, orgId, params.endpoint_id),
    }),
    defineWrite({
      name: 'webhook_endpoints_test',
      method: 'POST',
      path: '/v1/webhook-endpoints/:endpoint_id/test',
      scope: 'webhooks:write',
      summary: 'Send a test event to a webhook endpoint',
      description: 'Queue a `webhook.test` event to this endpoint only, signed like every delivery; follow it at GET .../deliveries.',
      params: endpointParams,
      output: z.object({ delivery: deliverySchema }),
      result: 'delivery',
      status: 202,
      returns: 'the delivery, queued.',
      errors: { not_found: NOT_FOUND },
      hints: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
      example: {
        params: { endpoint_id: exampleEndpoint.id },
        response: { delivery: { ...exampleDelivery, type: 'webhook.test', status: 'pending', attempt_count: 0, next_attempt_at: '1970-01-01T00:00:00.000Z', delivered_at: null, attempts: [] } },
      },
      handle: ({ tx, orgId }, { params }) => webhooks.sendTest(tx, orgId, params.endpoint_id),
    }),
    defineRead({
      name: 'webhook_deliveries_list',
      method: 'GET',
      path: '/v1/webhook-endpoints/:endpoint_id/deliveries',
      scope: 'webhooks:read',
      summary: "List a webhook endpoint's deliveries",
      description:
        'The events sent or to be sent to this endpoint, newest first: status (pending, delivering, delivered, failed), each attempt ' +
        "with the receiver's HTTP status, duration and the start of its answer, and the next attempt.",
      params: endpointParams,
      query: listDeliveriesQuery,
      output: z.object({ deliveries: z.array(deliverySchema), next_cursor: z.string().nullable().describe('cursor of the next page; null on the last') }),
      status: 200,
      returns: 'one page of deliveries.',
      errors: { not_found: NOT_FOUND },
      example: { params: { endpoint_id: exampleEndpoint.id }, query: { limit: '20' }, response: { deliveries: [exampleDelivery], next_cursor: null } },
      handle: ({ db, orgId }, { params, query }) => webhooks.deliveries(db, orgId, params.endpoint_id, query),
    }),
    defineWrite({
      name: 'webhook_deliveries_retry',
      method: 'POST',
      path: '/v1/webhook-endpoints/:endpoint_id/deliveries/:delivery_id/retry',
      scope: 'webhooks:write',
      summary: 'Retry a webhook delivery',
      description: 'Send a failed delivery (or one waiting for its next attempt) again now, with the same `webhook-id`; its attempts start over.',
      params: deliveryParams,
      output: z.object({ delivery: deliverySchema }),
      result: 'delivery',
      status: 202,
      returns: 'the delivery, queued.',
      errors: { not_found: 'No such endpoint or delivery in your organisation.', conflict: 'The delivery was delivered already.' },
      hints: { readOnly: false, destructive: false, idempotent: true, openWorld: true },
      example: {
        params: { endpoint_id: exampleEndpoint.id, delivery_id: exampleDelivery.id },
        response: { delivery: { ...exampleDelivery, status: 'pending', attempt_count: 0, next_attempt_at: '1970-01-01T00:00:00.000Z', delivered_at: null } },
      },
      handle: ({ tx, orgId }, { params }) => webhooks.retry(tx, orgId, params.endpoint_id, params.delivery_id),
    }),
    defineRead({
      name: 'events_list',
      method: 'GET',
      path: '/v1/events',
      scope: 'webhooks:read',
      summary: 'List events',
      description:
        "Your organisation's events of the last 30 days, newest first, in the body webhooks carry: a receiver that was down catches up " +
        'here. Filter by `type` and `created_since`; pass `next_cursor` back as `cursor` for the next page.',
      query: listEventsQuery,
      output: z.object({ events: z.array(eventSchema), next_cursor: z.string().nullable().describe('cursor of the next page; null on the last') }),
      status: 200,
      returns: 'one page of events.',
      errors: {},
      example: { query: { type: 'order.status_changed', created_since: '2026-06-01T00:00:00Z', limit: '20' }, response: { events: [exampleEvent], next_cursor: null } },
      handle: ({ db, orgId }, { query }) => webhooks.events(db, orgId, query),
    }),
    defineRead({
      name: 'events_get',
      method: 'GET',
      path: '/v1/events/:event_id',
      scope: 'webhooks:read',
      summary: 'Get an event',
      description: 'One event of the last 30 days by id (the `webhook-id` of its deliveries), as webhooks carry it.',
      params: eventParams,
      output: z.object({ event: eventSchema }),
      result: 'event',
      status: 200,
      returns: 'the event.',
      errors: { not_found: 'No event with this id in your organisation in the last 30 days.' },
      example: { params: { event_id: exampleEvent.id }, response: { event: exampleEvent } },
      handle: ({ db, orgId }, { params }) => webhooks.event(db, orgId, params.event_id),
    }),
    defineRead({
      name: 'webhook_event_types_list',
      method: 'GET',
      path: '/v1/webhook-event-types',
      scope: 'webhooks:read',
      summary: 'List webhook event types',
      description: 'Every event type an endpoint can subscribe to, with what it means and what `data` holds.',
      output: z.object({ event_types: z.array(z.object({ type: z.string(), description: z.string() })) }),
      status: 200,
      returns: 'the event types.',
      errors: {},
      example: { response: { event_types: [{ type: 'order.created', description: 'An order was created.' }] } },
      handle: () => Promise.resolve(webhooks.eventTypes()),
    }),
  ];
}
