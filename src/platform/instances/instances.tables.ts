/** A gateway process that is (or was) running: its heartbeat says whether the claims and leases it owns still hold. */
export interface GatewayInstancesTable {
  /** Random per process start (leaseOwnerId): the owner id its claims and leases carry. */
  id: string;
  started_at: string;
  /** The database's clock at its last heartbeat, in ms since the epoch: one clock for every host, no skew to allow for. */
  heartbeat_ms: number;
}

// The instance registry owns its table, as a module does: merged into the platform's Database.
declare module '../db/schema.js' {
  interface Database {
    gateway_instances: GatewayInstancesTable;
  }
}
