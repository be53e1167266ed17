// The module's tables, added to the platform's Database by declaration merging (see platform/db/schema.ts).
// Same storage rules as there: ISO 8601 UTC text times, 0/1 booleans, integer 1/10000 money, JSON as text.

/** A single-use connect token the hub hands a fleet owner; only its SHA-256 hash is kept. */
export interface TelematicsConnectTokensTable {
  /** SHA-256 hex of the token: the key it is looked up by. */
  token_hash: string;
  org_id: string;
  /** Set when the hub fixed the provider at issue time: a POST /connect for another is refused. */
  provider: string | null;
  label: string | null;
  created_at: string;
  expires_at: string;
  /** When a POST /connect consumed it; null while usable. */
  used_at: string | null;
  /** Set for a reconnect token: POST /connect replaces this connection's credentials instead of creating one. */
  connection_id: string | null;
}


/** A fleet's linked telematics account at one provider. Secrets are stored encrypted (AES-256-GCM, the row id as AAD). */
export interface TelematicsConnectionsTable {
  id: string;
  org_id: string;
  provider: string;
  label: string | null;
  /** active | pending_consent | consent_expired | reauth_required | paused | disconnected (a pending consent past its time reads as consent_expired). */
  status: string;
  /** The credentials the fleet posted, as JSON, encrypted; null for OAuth-consent providers. */
  credentials_ciphertext: string | null;
  /** The masked hint shown instead (`fl***@acme.example`, `••••ab12`). */
  credentials_hint: string | null;
  /** OAuth tokens (access, refresh, expiry) as JSON, encrypted; set when consent completes. */
  oauth_tokens_ciphertext: string | null;
  /** The fleet's id at the vendor, given at connect when the provider's paths name one; null otherwise. */
  fleet_id: string | null;
  /**
   * The bearer token of an OAuth password or client-credentials grant as JSON `{ access_token, expires_at?, obtained_at }`,
   * encrypted: polls reuse it until shortly before it expires; a vendor's 401 drops it.
   */
  vendor_token_ciphertext: string | null;
  /** SHA-256 of the OAuth `state` of a pending consent; cleared when the callback uses it. */
  consent_state_hash: string | null;
  /** The PKCE code verifier of a pending consent, encrypted. */
  consent_verifier_ciphertext: string | null;
  consent_expires_at: string | null;
  /** The connect token that created it: unique, so one token makes one connection whatever races. */
  connect_token_hash: string;
  poll_interval_s: number;
  created_at: string;
  updated_at: string;
  /** When the poller should next poll it; null: at once. */
  next_poll_at: string | null;
  /** The process polling it now, and until when its claim holds (a dead process's claim runs out). */
  lease_owner: string | null;
  lease_until: string | null;
  /** JSON: `{ snapshot_at, machines, oldest_mark, newest_mark }`, a summary of telematics_marks written with them; null after a reset. */
  cursors: string | null;
  /** closed | open | half_open */
  breaker_state: string;
  consecutive_failures: number;
  open_until: string | null;
  /** The breaker's current cooldown (doubles from 60 s to 30 min while trials fail); 0 when closed. */
  cooldown_s: number;
  /** JSON: `{ started_at, finished_at, events, outcome }` of the last poll. */
  last_run: string | null;
  /** JSON: `{ at, message }` of the last failure. */
  last_error: string | null;
  /** JSON: the hub's last 20 per-event rejections of this connection's events, newest first: `[{ event_id, reason, at }]`. */
  last_hub_rejections: string | null;
  /** JSON: `[{ kind, detail, count, first_seen, last_seen }]`, what polls read and could not use, most recently seen first. */
  issues: string | null;
}

/** How far a connection's polls have sent one machine's data element: only readings after `mark` are sent again. */
export interface TelematicsMarksTable {
  connection_id: string;
  /** The normalized event's `equipment.id`. */
  equipment_id: string;
  /** The event type (`location`, `operating_hours`, ...). */
  element: string;
  org_id: string;
  /** The newest `observed_at` sent (ISO 8601 UTC, milliseconds); moves only in a successful poll's last transaction. */
  mark: string;
}

/** A replay of a past window run in the background (POST .../replay), one slice (machine x data element) at a time. */
export interface TelematicsSyncsTable {
  id: string;
  org_id: string;
  connection_id: string;
  /** queued | running | completed | failed | cancelled */
  status: 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
  window_from: string;
  window_to: string;
  /** JSON array of the data elements each machine is read for, fixed when the sync starts; null before. */
  elements: string | null;
  /** Slices committed: slice k is machine k / elements, element k % elements. */
  slices_done: number;
  machines_done: number;
  /** 0 until the sync has listed the machines. */
  machines_total: number;
  events_enqueued: number;
  /** Failures in a row of the slice it is on; the sync fails at SYNC_MAX_ATTEMPTS. */
  attempts: number;
  /** After a failure, not before this time; null: at once. */
  next_attempt_at: string | null;
  failure_reason: string | null;
  /** The process running it now, and until when its claim holds (its own claim, not the connection's poll lease). */
  lease_owner: string | null;
  lease_until: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
}

/** The machines a sync reads, by position (its slices' order); deleted when the sync ends. */
export interface TelematicsSyncMachinesTable {
  sync_id: string;
  position: number;
  pin: string;
  /** JSON: the equipment as the fleet snapshot named it, so replayed events key to the same equipment as polls. */
  equipment: string;
}

declare module '../../platform/db/schema.js' {
  interface Database {
    telematics_connect_tokens: TelematicsConnectTokensTable;
    telematics_connections: TelematicsConnectionsTable;
    telematics_syncs: TelematicsSyncsTable;
    telematics_sync_machines: TelematicsSyncMachinesTable;
    telematics_marks: TelematicsMarksTable;
  }
}
