import type { WebhookDoc } from '../../platform/operations/openapi.js';
import { EVENT_TYPES, type EventType } from './catalog.js';

// The catalog as the OpenAPI document's `webhooks`: each type's body (`{ id, type, created_at, data }`) and an example.

type Json = Record<string, unknown>;

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
const text = (description: string) => ({ type: 'string', description });
const nullableText = (description: string) => ({ type: ['string', 'null'], description });
const object = (properties: Record<string, Json>, description: string, optional: readonly string[] = []) => ({
  type: 'object',
  description,
  properties,
  required: Object.keys(properties).filter((name) => !optional.includes(name)),
  additionalProperties: false,
});

const HEADERS: Record<string, Json> = {
  'webhook-id': { description: 'The event id (`evt_…`): the same on every attempt and every endpoint; de-duplicate on it.', schema: { type: 'string' }, example: 'evt_01jx2m9a1b2c3d4e5f6g7h8j9k' },
  'webhook-timestamp': { description: 'Unix seconds when this attempt was signed; refuse one too far from your clock.', schema: { type: 'string', pattern: '^\\d+$' }, example: '1780315201' },
  'webhook-signature': {
    description: '`v1,<base64 HMAC-SHA256 of id.timestamp.body>` with the endpoint secret; two space-separated entries during a rotation.',
    schema: { type: 'string' },
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  },
};

const connectionData = ref('TelematicsConnection');
const syncData = ref('TelematicsSync');

const ediDocumentSent = object(
  {
    message_id: text('the outbound message (msg_…), GET /v1/edi/messages/{id}'),
    direction: { type: 'string', const: 'outbound' },
    type: text('the transaction set: 855, 856, 810 or 997'),
    partner: object({ id: text('the trading partner (tp_…)'), name: text('its name') }, 'the trading partner it is for'),
    control_number: text('ISA13'),
    related_message_id: nullableText('the inbound interchange it answers'),
    order_id: nullableText('the order it is about'),
    po_number: nullableText('that order\'s PO number'),
    size: { type: 'integer', description: 'the interchange\'s size in bytes' },
    x12: text('the interchange as sent, when it is at most 512 KB; a larger one is left out (GET /v1/edi/messages/{id}?include=raw reads it)'),
  },
  'An outbound EDI document.',
  ['x12'],
);

const ediMessageReceived = object(
  {
    message_id: text('the inbound message (msg_…), GET /v1/edi/messages/{id}'),
    direction: { type: 'string', const: 'inbound' },
    type: nullableText("the transaction sets it carried ('850' or '850,997'); null when unreadable"),
    status: text('accepted, partial, rejected, not_x12, duplicate or conflict'),
    http_status: { type: 'integer', description: 'the status the sender was answered' },
    partner_id: nullableText('the trading partner (tp_…); null when unknown'),
    control_number: nullableText('ISA13'),
    parent_message_id: nullableText('the body it came in, when that body carried several interchanges'),
    received_at: text('ISO 8601 UTC'),
  },
  'An inbound EDI interchange and how it was answered.',
);

/** An example `data` taken from an operation's example response: `field` of it, changed by `data` when given. */
interface FromOperation {
  from: string;
  field: string;
  data?: (resource: Json) => Json;
}

/** Each type's `data` schema and example. */
const DATA: Record<EventType, { schema: Json; example: Json | FromOperation }> = {
  'order.created': { schema: ref('Order'), example: { from: 'orders_get', field: 'order' } },
  'order.status_changed': {
    schema: object(
      { order_id: text('ord_…'), po_number: text('the PO number'), from: text('the status before'), to: text('the status now'), changed_at: text('ISO 8601 UTC') },
      'An order status change.',
    ),
    example: { order_id: 'ord_01jx2m8d7k3q9v6t5r4p2n1b0a', po_number: 'PO-1001', from: 'submitted', to: 'confirmed', changed_at: '2026-06-01T12:00:00.000Z' },
  },
  'inventory.updated': {
    schema: object(
      {
        rows: { type: 'array', description: 'the stock levels as sent', items: object({ sku: text('the SKU as sent'), qty: { type: 'integer', minimum: 0 } }, 'One stock level.') },
        unknown_skus: { type: 'array', items: { type: 'string' }, description: 'SKUs not in the catalog' },
      },
      'Stock levels reported.',
    ),
    example: { rows: [{ sku: 'MICH-225-45R17', qty: 48 }], unknown_skus: [] },
  },
  'warranty_claim.created': { schema: ref('WarrantyClaim'), example: { from: 'warranty_claims_get', field: 'claim' } },
  'warranty_claim.updated': {
    // WarrantyClaim allows no other field, so the claim with previous_status is described rather than referenced.
    schema: {
      type: 'object',
      description: 'The claim as GET /v1/warranty-claims/{id} shows it (the WarrantyClaim schema), with `previous_status`.',
      properties: { id: text('wc_…'), status: text('the status now'), previous_status: text('the status before this change') },
      required: ['id', 'status', 'previous_status'],
      additionalProperties: true,
    },
    example: { from: 'warranty_claims_get', field: 'claim', data: (claim) => ({ ...claim, previous_status: 'submitted' }) },
  },
  'edi.message.received': {
    schema: ediMessageReceived,
    example: {
      message_id: 'msg_01jx2m8d7k3q9v6t5r4p2n1b0a', direction: 'inbound', type: '850', status: 'accepted', http_status: 200, partner_id: 'tp_01jx2m8d7k3q9v6t5r4p2n1b0b',
      control_number: '000000101', parent_message_id: null, received_at: '2026-06-01T12:00:00.000Z',
    },
  },
  'edi.document.sent': {
    schema: ediDocumentSent,
    example: {
      message_id: 'msg_01jx2m8d7k3q9v6t5r4p2n1b0c', direction: 'outbound', type: '855', partner: { id: 'tp_01jx2m8d7k3q9v6t5r4p2n1b0b', name: 'BuyerCo' }, control_number: '000000007',
      related_message_id: 'msg_01jx2m8d7k3q9v6t5r4p2n1b0a', order_id: 'ord_01jx2m8d7k3q9v6t5r4p2n1b0a', po_number: 'PO-1001', size: 612, x12: 'ISA*00*…~IEA*1*000000007~',
    },
  },
  'telematics.connection.connected': { schema: connectionData, example: { from: 'telematics_connections_get', field: 'connection' } },
  'telematics.connection.reauth_required': { schema: connectionData, example: { from: 'telematics_connections_get', field: 'connection' } },
  'telematics.connection.breaker_opened': { schema: connectionData, example: { from: 'telematics_connections_get', field: 'connection' } },
  'telematics.connection.breaker_closed': { schema: connectionData, example: { from: 'telematics_connections_get', field: 'connection' } },
  'telematics.connection.disconnected': { schema: connectionData, example: { from: 'telematics_connections_get', field: 'connection' } },
  'telematics.sync.completed': { schema: syncData, example: { from: 'telematics_syncs_get', field: 'sync' } },
  'telematics.sync.failed': { schema: syncData, example: { from: 'telematics_syncs_get', field: 'sync' } },
  'webhook.test': {
    schema: object({ endpoint_id: text('the endpoint asked (whe_…)'), url: text('its URL') }, 'The endpoint a test was sent to.'),
    example: { endpoint_id: 'whe_01jx2m8d7k3q9v6t5r4p2n1b0a', url: 'https://dealer.example.com/hooks/tire-gateway' },
  },
};

const EXAMPLE_ID = 'evt_01jx2m9a1b2c3d4e5f6g7h8j9k';
const EXAMPLE_AT = '2026-06-01T12:00:00.000Z';

function bodySchema(type: EventType, data: Json): Json {
  return object({ id: text('the event id (`evt_…`), also `webhook-id`'), type: { type: 'string', const: type }, created_at: text('ISO 8601 UTC: when it happened'), data }, `The body of a \`${type}\` delivery, as GET /v1/events/{id} shows it.`);
}

function bodyExample(type: EventType, example: Json | FromOperation): WebhookDoc['example'] {
  const envelope = (data: unknown) => ({ id: EXAMPLE_ID, type, created_at: EXAMPLE_AT, data });
  if (!isFromOperation(example)) return { body: envelope(example) };
  const { from, field, data = (resource) => resource } = example;
  return { from, field, wrap: (resource) => envelope(data(resource as Json)) };
}

function isFromOperation(example: Json | FromOperation): example is FromOperation {
  return typeof example.from === 'string' && typeof example.field === 'string';
}

export function webhookDocs(tag: string): WebhookDoc[] {
  return (Object.keys(EVENT_TYPES) as EventType[]).map((type) => ({
    type,
    tag,
    summary: type,
    description: `${EVENT_TYPES[type]}\n\nSigned per the Standard Webhooks spec (docs/webhooks.md); the same body is at GET /v1/events/{id} for 30 days.`,
    headers: HEADERS,
    body: bodySchema(type, DATA[type].schema),
    example: bodyExample(type, DATA[type].example),
  }));
}
