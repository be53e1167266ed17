import type { AuthContext } from '../../platform/auth/scopes.js';
import { requireScope } from '../../platform/auth/scopes.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/schema.js';
import { notFound } from '../../platform/http/errors.js';
import { decodeCursor, page } from '../../platform/http/pagination.js';
import { z } from 'zod';
import * as repo from './connections.repository.js';
import { parseCursors } from './polling/cursors.js';
import { findProvider } from './providers.js';
import type { Connection, ConnectionStatus, ListConnectionsQuery } from './telematics.schemas.js';

const cursorSchema = z.object({ id: z.string() });

/** A pending consent whose time ran out reads as consent_expired, whether or not anyone has written it down yet. */
export function statusOf(row: repo.ConnectionRow, now: Date): ConnectionStatus {
  if (row.status === 'pending_consent' && row.consent_expires_at !== null && row.consent_expires_at <= now.toISOString()) return 'consent_expired';
  return row.status as ConnectionStatus;
}

function present(row: repo.ConnectionRow, now: Date): Connection {
  const status = statusOf(row, now);
  return {
    id: row.id,
    provider: row.provider,
    provider_group: (findProvider(row.provider)?.group ?? 'iso15143') as Connection['provider_group'],
    label: row.label,
    status,
    credentials_hint: row.credentials_hint,
    poll_interval_s: row.poll_interval_s,
    consent_expires_at: status === 'pending_consent' ? row.consent_expires_at : null,
    cursors: parseCursors(row.cursors),
    breaker: { state: row.breaker_state as Connection['breaker']['state'], consecutive_failures: row.consecutive_failures, open_until: row.open_until },
    next_poll_at: row.next_poll_at,
    last_run: row.last_run === null ? null : (JSON.parse(row.last_run) as Connection['last_run']),
    last_error: row.last_error === null ? null : (JSON.parse(row.last_error) as Connection['last_error']),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The org-scoped telematics connections behind REST, MCP and the CLI. Secrets never leave this layer but as hints. */
export class ConnectionsService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async list(auth: AuthContext, query: ListConnectionsQuery): Promise<{ connections: Connection[]; next_cursor: string | null }> {
    requireScope(auth, 'telematics:read');
    return this.listOf(auth.orgId, query);
  }

  /** For the operator's CLI: an org's connections without a key. */
  async listOf(orgId: string, query: ListConnectionsQuery): Promise<{ connections: Connection[]; next_cursor: string | null }> {
    const after = decodeCursor(query.cursor, cursorSchema);
    const now = this.clock.now();
    const rows = await repo.listConnections(this.db, orgId, { limit: query.limit, beforeId: after?.id, status: query.status, nowIso: now.toISOString() });
    const { items, next_cursor } = page(rows, query.limit, (row) => ({ id: row.id }));
    return { connections: items.map((row) => present(row, now)), next_cursor };
  }

  async get(auth: AuthContext, id: string): Promise<Connection> {
    requireScope(auth, 'telematics:read');
    const row = await repo.findConnection(this.db, auth.orgId, id);
    if (row === undefined) throw notFound(`connection ${id}`);
    return present(row, this.clock.now());
  }
}
