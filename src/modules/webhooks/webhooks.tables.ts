/** An org's webhook endpoint: where its events are POSTed, signed with its secret (Standard Webhooks). */
export interface WebhookEndpointsTable {
  id: string;
  org_id: string;
  url: string;
  description: string | null;
  /** JSON array of event types, or `["*"]` for every type. */
  event_types: string;
  /** 1 while events are delivered to it; 0 once disabled (by the org, or after failing every attempt for too long). */
  enabled: number;
  /** Why it was disabled by the gateway; null while enabled or when the org disabled it. */
  disabled_reason: string | null;
  /** The signing secret (`whsec_…`), encrypted by the vault with the endpoint id as AAD. */
  secret_ciphertext: string;
  /** The secret before the last rotation, signing beside the new one until `previous_secret_until`. */
  previous_secret_ciphertext: string | null;
  previous_secret_until: string | null;
  /** Since when every attempt to it has failed; null after a success. */
  failing_since: string | null;
  created_at: string;
  updated_at: string;
}

/**
 * An org's event as its webhooks carry it (the body `{ id, type, created_at, data }`), kept for the events API and read
 * by each delivery when sent (a `webhook.test` is kept for that only).
 */
export interface WebhookEventsTable {
  id: string;
  org_id: string;
  type: string;
  created_at: string;
  /** The JSON body, exactly as delivered. */
  body: string;
  /**
   * Its pending fan-out: the JSON array of the endpoint ids subscribed to it when it happened, written with the change;
   * null once the fan-out queued their deliveries, or when no endpoint subscribed (migration 0047).
   */
  fanout: string | null;
}

/** One event for one endpoint: its delivery is the outbox row with the same id (destination `webhook_event`). */
export interface WebhookDeliveriesTable {
  id: string;
  org_id: string;
  endpoint_id: string;
  event_id: string;
  type: string;
  created_at: string;
}

/** One HTTP attempt of a delivery, as the org sees it. */
export interface WebhookAttemptsTable {
  id: string;
  org_id: string;
  delivery_id: string;
  attempted_at: string;
  /** The receiver's HTTP status; null when there was no answer (timeout, refused, unsafe target). */
  status_code: number | null;
  duration_ms: number;
  /** Why it failed, when it did. */
  error: string | null;
  /** The start of the response body, capped. */
  response_snippet: string | null;
}

declare module '../../platform/db/schema.js' {
  interface Database {
    webhook_endpoints: WebhookEndpointsTable;
    webhook_events: WebhookEventsTable;
    webhook_deliveries: WebhookDeliveriesTable;
    webhook_attempts: WebhookAttemptsTable;
  }
}
