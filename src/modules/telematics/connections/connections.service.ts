import type { Actor } from '../../../platform/core/actor.js';
import { recordAudit } from '../../../platform/audit/audit.service.js';
import type { Clock } from '../../../platform/core/clock.js';
import type { BeforeCommit, Db, Executor, Tx } from '../../../platform/db/schema.js';
import { enqueueDeliveries, hubDelivery } from '../../../platform/outbox/outbox.js';
import { AppError, invalidInput, notFound } from '../../../platform/core/errors.js';
import { decodeCursor, page, sincePage, sinceWindowOf } from '../../../platform/core/pagination.js';
import { z } from 'zod';
import * as repo from './connections.repository.js';
import * as syncs from '../polling/syncs.repository.js';
import { parseCursors } from '../polling/cursors.js';
import { parseIssues } from '../polling/issues.js';
import { deleteMarks } from '../polling/marks.repository.js';
import { findProvider } from '../providers/catalog.js';
import type { ProviderEndpoints } from '../providers/endpoints.js';
import type { Connection, ConnectionStatus, ListConnectionsQuery } from '../telematics.schemas.js';

const cursorSchema = z.object({ id: z.string() });

/** A poll interval is at least 60 s and the provider's own minimum (issue 9/12), and at most a day. */
const MIN_POLL_INTERVAL_S = 60;
const MAX_POLL_INTERVAL_S = 24 * 3600;

const UNIT_SECONDS: Record<string, number> = { '': 1, s: 1, m: 60, h: 3600 };

/** `90s`, `5m`, `1h` or plain seconds (`300`) -> seconds; anything else is a 400 saying which forms work. */
export function parsePollInterval(text: string): number {
  const match = /^(\d{1,7})\s*([smh]?)$/i.exec(text.trim());
  if (match === null) throw invalidInput(`interval '${text}' is not a duration: give seconds (300) or a number with s, m or h (90s, 5m, 1h)`);
  return Number(match[1]) * (UNIT_SECONDS[(match[2] ?? '').toLowerCase()] ?? 1);
}

/** Seconds as the shortest exact form (`300` -> `5m`), for messages. */
function formatInterval(seconds: number): string {
  if (seconds === 0) return '0s';
  if (seconds % 3600 === 0) return `${seconds / 3600}h`;
  if (seconds % 60 === 0) return `${seconds / 60}m`;
  return `${seconds}s`;
}

/** What `connections set` changes: any of the interval and one of pause / resume. */
interface PollingChange {
  intervalSeconds?: number | undefined;
  pause?: boolean | undefined;
  resume?: boolean | undefined;
}

/** A pending consent whose time ran out reads as consent_expired, whether or not anyone has written it down yet. */
export function statusOf(row: repo.ConnectionRow, now: Date): ConnectionStatus {
  if (row.status === 'pending_consent' && row.consent_expires_at !== null && row.consent_expires_at <= now.toISOString()) return 'consent_expired';
  return row.status as ConnectionStatus;
}

/** A stored connection's provider is always one the registry knows and never a stub (POST /connect refuses both). */
function groupOf(providerId: string): Connection['provider_group'] {
  const group = findProvider(providerId)?.group;
  if (group === undefined || group === 'stub') throw new Error(`connection of provider ${providerId}, which cannot be connected`);
  return group;
}

/** The moments of a connection's life the hub hears of, as `telematics.connection.<moment>` events. */
export type ConnectionMoment = 'connected' | 'reauth_required' | 'breaker_opened' | 'breaker_closed' | 'disconnected';

/** Queues the hub event of a moment in the transaction that made it, with the connection as the API shows it after. */
export async function announce(tx: Tx, moment: ConnectionMoment, row: repo.ConnectionRow, at: Date): Promise<void> {
  await enqueueDeliveries(tx, [hubDelivery({ type: `telematics.connection.${moment}`, orgId: row.org_id, data: present(row, at), at })]);
}

function present(row: repo.ConnectionRow, now: Date): Connection {
  const status = statusOf(row, now);
  return {
    id: row.id,
    provider: row.provider,
    provider_group: groupOf(row.provider),
    label: row.label,
    status,
    credentials_hint: row.credentials_hint,
    poll_interval_s: row.poll_interval_s,
    consent_expires_at: status === 'pending_consent' ? row.consent_expires_at : null,
    cursors: parseCursors(row.cursors),
    issues: parseIssues(row.issues),
    breaker: { state: row.breaker_state as Connection['breaker']['state'], consecutive_failures: row.consecutive_failures, open_until: row.open_until },
    next_poll_at: row.next_poll_at,
    last_run: row.last_run === null ? null : (JSON.parse(row.last_run) as Connection['last_run']),
    last_error: row.last_error === null ? null : (JSON.parse(row.last_error) as Connection['last_error']),
    last_hub_rejections: row.last_hub_rejections === null ? [] : (JSON.parse(row.last_hub_rejections) as Connection['last_hub_rejections']),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The org-scoped telematics connections behind REST, MCP and the CLI. Secrets never leave this layer but as hints. */
export class ConnectionsService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    /** Where the operator's per-provider minimum interval comes from. */
    private readonly endpoints: ProviderEndpoints,
  ) {}

  /** An org's connections (REST, MCP and the operator's CLI). */
  async list(db: Executor, orgId: string, query: ListConnectionsQuery): Promise<{ connections: Connection[]; next_cursor: string | null }> {
    const now = this.clock.now();
    const filters = { limit: query.limit, status: query.status, nowIso: now.toISOString() };
    const since = sinceWindowOf(query);
    let found: { items: repo.ConnectionRow[]; next_cursor: string | null };
    if (since !== undefined) {
      found = sincePage(await repo.listConnections(db, orgId, { ...filters, since }), query.limit, since, (row) => ({ at: row[since.column], id: row.id }));
    } else {
      const after = decodeCursor(query.cursor, cursorSchema);
      found = page(await repo.listConnections(db, orgId, { ...filters, beforeId: after?.id }), query.limit, (row) => ({ id: row.id }));
    }
    const { items, next_cursor } = found;
    return { connections: items.map((row) => present(row, now)), next_cursor };
  }

  async get(db: Executor, orgId: string, id: string): Promise<Connection> {
    const row = await repo.findConnection(db, orgId, id);
    if (row === undefined) throw notFound(`connection ${id}`);
    return present(row, this.clock.now());
  }

  /**
   * DELETE: polling stops, the credentials and tokens are erased, the row stays as `disconnected` for the record and
   * the hub is told. Disconnecting a disconnected connection answers it as it is, telling nobody again.
   */
  async disconnect(tx: Tx, orgId: string, id: string): Promise<Connection> {
    const row = await repo.findConnection(tx, orgId, id);
    if (row === undefined) throw notFound(`connection ${id}`);
    const now = this.clock.now();
    if (row.status === 'disconnected') return present(row, now);
    const after = await repo.disconnect(tx, orgId, id, now.toISOString());
    if (after === undefined) throw notFound(`connection ${id}`);
    await syncs.cancelUnfinished(tx, id, now.toISOString());
    await announce(tx, 'disconnected', after, now);
    return present(after, now);
  }

  /** For the operator's CLI: one connection by id, optionally narrowed to an org. */
  async getForOperator(id: string, orgId?: string): Promise<Connection> {
    const row = await repo.findConnectionForOperator(this.db, id, orgId);
    if (row === undefined) throw notFound(`connection ${id}`);
    return present(row, this.clock.now());
  }

  /**
   * The operator's `connections set`: poll interval, pause (only an active connection) and resume (only a paused one,
   * due at once). All or nothing: a refused pause or resume leaves the interval as it was too.
   */
  async setPolling(id: string, change: PollingChange, orgId?: string): Promise<Connection> {
    const { intervalSeconds, pause = false, resume = false } = change;
    if (pause && resume) throw invalidInput('pause and resume cannot be combined');
    if (intervalSeconds === undefined && !pause && !resume) throw invalidInput('nothing to change: give an interval, pause or resume');
    const row = await repo.findConnectionForOperator(this.db, id, orgId);
    if (row === undefined) throw notFound(`connection ${id}`);
    const now = this.clock.now();
    const status = statusOf(row, now);
    if (intervalSeconds !== undefined) checkInterval(intervalSeconds, row.provider, this.endpoints);
    if (pause && status !== 'active') {
      throw new AppError('connection_not_active', status === 'paused' ? `connection ${id} is already paused` : `connection ${id} is ${status}: only an active connection can be paused`);
    }
    if (resume && status !== 'paused') throw new AppError('connection_not_active', `connection ${id} is ${status}, not paused: only a paused connection can be resumed`);
    const update: Parameters<typeof repo.updatePolling>[3] = { updated_at: now.toISOString() };
    if (pause) update.status = 'paused';
    if (resume) {
      update.status = 'active';
      update.next_poll_at = null;
    }
    if (intervalSeconds !== undefined) {
      update.poll_interval_s = intervalSeconds;
      if (!resume) update.next_poll_at = nextPollAfterIntervalChange(row, intervalSeconds, now);
    }
    // Decided on the status read above: a poll that marked it reauth_required meanwhile wins, and this call says so.
    if (!(await repo.updatePolling(this.db, row.id, row.status, update))) throw new AppError('concurrent_change', `connection ${id} changed while it was being updated; run the command again`);
    return this.getForOperator(row.id);
  }

  /**
   * The operator's reset (`connections reset-cursors`, the admin API): forgets every mark, so the next poll sends all
   * the vendor returns again (the hub drops what it has by event id). Refused while a poll holds the connection, whose
   * last transaction would store marks moved from the old ones. Audited in the same transaction.
   */
  async resetCursors(id: string, actor: Actor, orgId?: string, beforeCommit?: BeforeCommit<Connection>): Promise<Connection> {
    const row = await repo.findConnectionForOperator(this.db, id, orgId);
    if (row === undefined) throw notFound(`connection ${id}`);
    const now = this.clock.now().toISOString();
    return this.db.transaction().execute(async (tx) => {
      if (!(await repo.clearCursors(tx, row.id, now))) throw new AppError('concurrent_change', `a poll of connection ${id} is running: reset its cursors when it has finished`);
      await deleteMarks(tx, row.org_id, row.id);
      await recordAudit(tx, this.clock, actor, { action: 'connection.cursors_reset', target: row.id, orgId: row.org_id });
      const cleared = await repo.findConnectionForOperator(tx, row.id);
      if (cleared === undefined) throw notFound(`connection ${id}`);
      const answer = present(cleared, this.clock.now());
      await beforeCommit?.(tx, answer);
      return answer;
    });
  }
}

function checkInterval(seconds: number, providerId: string, endpoints: ProviderEndpoints): void {
  const provider = findProvider(providerId);
  // The operator's configured minimum wins over the catalog's (a vendor with a per-URL budget asks for longer).
  const providerMin = (provider === undefined ? undefined : (endpoints.of(provider)?.minPollSeconds ?? provider.minPollSeconds)) ?? MIN_POLL_INTERVAL_S;
  const min = Math.max(MIN_POLL_INTERVAL_S, providerMin);
  if (seconds < min) {
    const why = providerMin > MIN_POLL_INTERVAL_S ? `${providerId}'s minimum` : 'the minimum';
    throw invalidInput(`interval ${formatInterval(seconds)} is below ${why} of ${formatInterval(min)} (${min} s)`);
  }
  if (seconds > MAX_POLL_INTERVAL_S) throw invalidInput(`interval ${formatInterval(seconds)} is above the maximum of 24h (${MAX_POLL_INTERVAL_S} s)`);
}

/**
 * A shorter interval takes effect now (the next poll is no later than one new interval away), a longer one after the
 * next poll; never before an open breaker's cooldown ends. Not yet polled (null) stays due at once.
 */
function nextPollAfterIntervalChange(row: repo.ConnectionRow, seconds: number, now: Date): string | null {
  if (row.next_poll_at === null) return null;
  const sooner = Math.min(Date.parse(row.next_poll_at), now.getTime() + seconds * 1000);
  const cooldown = row.open_until === null ? 0 : Date.parse(row.open_until);
  return new Date(Math.max(sooner, cooldown)).toISOString();
}
