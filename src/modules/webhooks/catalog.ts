/** The events an org's webhooks carry: each with what it means. The hub's events of these kinds fan out to them. */
export const EVENT_TYPES = {
  'order.created': 'An order was created (REST, MCP or an EDI 850); `data` is the order as GET /v1/orders/{id} shows it.',
  'order.status_changed': 'An order moved to another status; `data` has `order_id`, `po_number`, `from`, `to`, `changed_at`.',
  'inventory.updated': 'Stock levels were reported; `data` has the `rows` as sent and the `unknown_skus`.',
  'warranty_claim.created': 'A warranty claim was filed; `data` is the claim as GET /v1/warranty-claims/{id} shows it.',
  'warranty_claim.updated': 'A warranty claim changed status or resolution; `data` is the claim, with `previous_status`.',
  'edi.message.received': 'An inbound EDI interchange was received and answered (accepted, partial, rejected, duplicate, ...); `data` describes the message.',
  'edi.document.sent': 'An outbound EDI document (855, 856, 810, 997) was generated for a trading partner; `data` describes it, with its X12 up to 512 KB.',
  'telematics.connection.connected': 'A telematics connection was made; `data` is the connection.',
  'telematics.connection.reauth_required': "A telematics vendor refused the connection's credentials; the fleet must connect again.",
  'telematics.connection.breaker_opened': 'Polling a telematics connection was paused after repeated vendor failures.',
  'telematics.connection.breaker_closed': 'Polling a telematics connection resumed.',
  'telematics.connection.disconnected': 'A telematics connection was disconnected.',
  'telematics.sync.completed': 'A telematics replay sync finished; `data` is the sync.',
  'telematics.sync.failed': 'A telematics replay sync ended failed; `data` is the sync, with its reason.',
  'webhook.test': 'Sent by POST /v1/webhook-endpoints/{id}/test to that endpoint only; `data` names the endpoint.',
} as const;

export type EventType = keyof typeof EVENT_TYPES;

/** The webhook type of a hub event, or undefined when webhooks do not carry it (telematics readings). */
export function webhookTypeOf(hubType: string): EventType | undefined {
  if (hubType === 'edi.document') return 'edi.document.sent';
  return hubType in EVENT_TYPES && hubType !== 'webhook.test' ? (hubType as EventType) : undefined;
}

/** Whether an endpoint subscribed to `types` (a list, or `["*"]`) gets events of `type`. */
export function subscribes(types: readonly string[], type: string): boolean {
  return types.includes('*') || types.includes(type);
}
