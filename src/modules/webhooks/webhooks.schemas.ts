import { z } from 'zod';
import { limitParam } from '../../platform/core/pagination.js';
import { freeText, identifier } from '../../platform/core/text-rules.js';
import { EVENT_TYPES, type EventType } from './catalog.js';

/** The types an endpoint can subscribe to: every catalog type but `webhook.test`, which goes only where it is asked for. */
const SUBSCRIBABLE = Object.keys(EVENT_TYPES).filter((t) => t !== 'webhook.test') as Exclude<EventType, 'webhook.test'>[];

const url = z
  .string()
  .min(1, { error: 'url must not be empty' })
  .max(2048, { error: 'url must be at most 2048 characters' })
  .describe('Where events are POSTed: an https URL whose host resolves to a public address (hosts the operator allows may use http).');

const eventTypes = z
  .array(z.enum(['*', ...SUBSCRIBABLE], { error: `each event type must be "*" or one of: ${SUBSCRIBABLE.join(', ')}` }))
  .min(1, { error: 'event_types must name at least one type, or be ["*"]' })
  .max(SUBSCRIBABLE.length, { error: `event_types may name at most ${SUBSCRIBABLE.length} types` })
  .refine((types) => !types.includes('*') || types.length === 1, { error: 'event_types is either ["*"] or a list of types, not both' })
  .refine((types) => new Set(types).size === types.length, { error: 'event_types must not repeat a type' })
  .describe('The event types to receive (GET /v1/webhook-event-types), or `["*"]` for all, including types added later.');

const description = freeText(500, { trim: true, what: 'description' }).describe('What the endpoint is for, up to 500 characters.');

export const createEndpointInput = z.strictObject({ url, event_types: eventTypes, description: description.optional() });
export type CreateEndpointInput = z.infer<typeof createEndpointInput>;

export const updateEndpointInput = z
  .strictObject({
    url: url.optional(),
    event_types: eventTypes.optional(),
    description: description.nullable().optional().describe('What the endpoint is for; null clears it.'),
    enabled: z.boolean().optional().describe('false stops deliveries to it (they are kept as failed); true resumes them and clears why it was disabled.'),
  })
  .refine((v) => Object.values(v).some((x) => x !== undefined), { error: 'send at least one of url, event_types, description, enabled' });
export type UpdateEndpointInput = z.infer<typeof updateEndpointInput>;

export const endpointParams = z.strictObject({ endpoint_id: identifier(64, 'endpoint_id').describe('The endpoint id (`whe_…`).') });
export const deliveryParams = z.strictObject({
  endpoint_id: identifier(64, 'endpoint_id').describe('The endpoint id (`whe_…`).'),
  delivery_id: identifier(64, 'delivery_id').describe('The delivery id (`whd_…`).'),
});
export const eventParams = z.strictObject({ event_id: identifier(64, 'event_id').describe('The event id (`evt_…`), the `webhook-id` of its deliveries.') });

const cursor = z.string().max(500).optional().describe('`next_cursor` of the previous page.');
export const listEndpointsQuery = z.strictObject({ limit: limitParam(100, 50).describe('Endpoints per page, 1-100 (default 50).'), cursor });
export const listDeliveriesQuery = z.strictObject({ limit: limitParam(100, 50).describe('Deliveries per page, 1-100 (default 50).'), cursor });
export const listEventsQuery = z.strictObject({
  type: z.enum(SUBSCRIBABLE, { error: `type must be one of: ${SUBSCRIBABLE.join(', ')}` }).optional().describe('Only events of this type.'),
  created_since: z.iso
    .datetime({ offset: true, error: 'created_since must be an ISO 8601 timestamp with a zone (Z or +hh:mm)' })
    .optional()
    .describe('Only events created at or after this time; events are kept 30 days, so earlier times list from 30 days ago.'),
  limit: limitParam(200, 50).describe('Events per page, 1-200 (default 50).'),
  cursor,
});

export const endpointSchema = z
  .object({
    id: z.string().describe('endpoint id, `whe_` followed by 26 characters'),
    url: z.string(),
    description: z.string().nullable(),
    event_types: z.array(z.string()).describe('the subscribed types, or ["*"]'),
    enabled: z.boolean(),
    disabled_reason: z.string().nullable().describe('why the gateway disabled it (every attempt failed for too long); null otherwise'),
    failing_since: z.string().nullable().describe('since when every attempt has failed; null after a success'),
    previous_secret_valid_until: z.string().nullable().describe('until when the secret before the last rotation still signs beside the new one'),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'WebhookEndpoint', description: "An org's webhook endpoint (its secret is shown only when created or rotated)." });
export type Endpoint = z.infer<typeof endpointSchema>;

export const secretSchema = z.string().describe('The signing secret, `whsec_<base64>`: shown this once; give it to a Standard Webhooks library to verify deliveries.');

const attemptSchema = z.object({
  attempted_at: z.string(),
  status_code: z.number().int().nullable().describe("the receiver's HTTP status; null when it did not answer"),
  duration_ms: z.number().int(),
  error: z.string().nullable(),
  response_snippet: z.string().nullable().describe('the start of the response body (500 characters at most)'),
});

export const deliverySchema = z
  .object({
    id: z.string().describe('delivery id, `whd_…`'),
    endpoint_id: z.string(),
    event_id: z.string().describe('the `webhook-id` header of every attempt'),
    type: z.string(),
    status: z.enum(['pending', 'delivering', 'delivered', 'failed']).describe('failed after the last attempt, or refused for good (a 4xx, an unsafe target)'),
    attempt_count: z.number().int(),
    next_attempt_at: z.string().nullable().describe('when it is tried again; null once delivered or failed'),
    last_error: z.string().nullable(),
    created_at: z.string(),
    delivered_at: z.string().nullable(),
    attempts: z.array(attemptSchema).describe('every attempt, oldest first'),
  })
  .meta({ id: 'WebhookDelivery', description: 'One event sent to one endpoint, with its attempts.' });
export type Delivery = z.infer<typeof deliverySchema>;

export const eventSchema = z
  .object({
    id: z.string().describe('event id, `evt_…`: the `webhook-id` of its deliveries'),
    type: z.string(),
    created_at: z.string(),
    data: z.record(z.string(), z.unknown()).describe('the resource as the REST API shows it (see each type in GET /v1/webhook-event-types)'),
  })
  .meta({ id: 'WebhookEvent', description: 'An event as its webhooks carry it (the POSTed body).' });
