import type { Clock } from '../../../platform/core/clock.js';
import type { YieldToRequests } from '../../../platform/core/yield-to-requests.js';
import { leaseOwnerId } from '../../../platform/core/ids.js';
import type { Db, Tx } from '../../../platform/db/schema.js';
import type { Settle } from '../../../platform/operations/operation.js';
import { AppError, notFound } from '../../../platform/core/errors.js';
import { enqueueDeliveries, hubDelivery } from '../../../platform/outbox/outbox.js';
import type { SecretVault } from '../../../platform/secrets/vault.js';
import { DEFAULT_RATE_LIMIT } from '../../../platform/ratelimit/rate-limiter.js';
import { type Credentials, type ProviderEndpoint, retryAfterOf, VendorBudgetError, VendorDocumentInvalidError, VendorRejectedError, VendorUnavailableError } from '../providers/adapter.js';
import * as repo from '../connections/connections.repository.js';
import { announce, statusOf } from '../connections/connections.service.js';
import { type OAuthConsentService, REFRESH_AHEAD_MS } from '../connect/oauth-consent.service.js';
import { grantToken, usesGrantToken } from '../providers/vendor-auth.js';
import type { ProviderEndpoints } from '../providers/endpoints.js';
import { findProvider, type Provider } from '../providers/catalog.js';
import { vendorError } from '../providers/vendor-errors.js';
import { admission, afterFailure, type Breaker, CLOSED } from './breaker.js';
import { advance, type CursorSummary, isNew, type MarkRow, type Marks, marksOf, rowsOf, summarize } from './cursors.js';
import { BackgroundWrites, type ChunkSizes } from './background-writes.js';
import { IssueTally } from './issues.js';
import { loadMarks, saveMarks } from './marks.repository.js';
import type { NormalizedEvent } from '../providers/event.js';
import { readerFor } from '../providers/readers.js';
import type { VendorRateGate } from './rate-gate.js';
import type { ReaderContext, ReadIssueKind, VendorReader } from '../providers/reader.js';

export const TELEMATICS_EVENT = 'telematics.event';

/**
 * Events one transaction of a poll writes: the reader's batch with no request in flight; while requests are in flight
 * 100 (~7 ms under load, as a sync's slice), so a read waits at most that long behind one.
 */
const POLL_WRITE_CHUNK: ChunkSizes = { idle: 500, busy: 100 };
/** The same for marks (rows of three short strings, cheaper than an event's outbox row). */
const MARKS_WRITE_CHUNK: ChunkSizes = { idle: 2000, busy: 250 };

interface PollResult {
  events_enqueued: number;
  cursors: CursorSummary;
}

/** A grant's bearer token as kept (encrypted) on the connection. */
interface CachedToken {
  access_token: string;
  expires_at?: string;
  obtained_at: string;
}

/** How a read authenticates: `retry` is there when it uses a cached token, to drop it and read once more with a new one. */
interface ReadAuth {
  reader: VendorReader;
  ctx: ReaderContext;
  retry?: { drop: () => Promise<void>; fresh: () => Promise<ReaderContext> };
}

/** A vendor's 4xx other than 401/403/429: the request is wrong (a page gone, a path misconfigured), not the vendor busy. */
const refusedRequest = (err: unknown): boolean => err instanceof VendorUnavailableError && err.status !== undefined && err.status >= 400 && err.status < 500 && err.status !== 429;

const urlPath = (url: string): string => (URL.canParse(url) ? new URL(url).pathname : url);

const breakerOf = (row: repo.ConnectionRow): Breaker => ({
  state: row.breaker_state as Breaker['state'],
  consecutive_failures: row.consecutive_failures,
  open_until: row.open_until,
  cooldown_s: row.cooldown_s,
});

/** Why a connection cannot be polled now, or undefined when it can. */
export function notPollable(row: repo.ConnectionRow, now: Date): string | undefined {
  const status = statusOf(row, now);
  if (status === 'reauth_required') return 'the vendor refused the stored credentials: the fleet must connect again with a new connect token';
  if (status === 'pending_consent') return 'consent has not been given at the vendor yet';
  if (status === 'consent_expired') return 'consent was not given in time: the fleet must connect again';
  if (status === 'paused') return 'it is paused: the operator resumes it with `gateway connections set <id> --resume`';
  if (status === 'disconnected') return 'it was disconnected: the fleet connects anew with a new connect token';
  return undefined;
}

/**
 * Polls connections: reads the vendor into normalized events, queues them for the hub as `telematics.event` in
 * batches, and moves the cursors only once every event is written, the last of them with the poll's outcome, so a
 * crash mid-poll repeats work (the outbox and the hub drop repeats by event id) and never skips it. Failures feed the
 * connection's circuit breaker.
 */
export class PollService {
  /** This process, as the holder of the claims it takes. */
  readonly owner = leaseOwnerId('poll');

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly vault: SecretVault,
    private readonly endpoints: ProviderEndpoints,
    private readonly oauth: OAuthConsentService,
    private readonly gate: VendorRateGate,
    /** How long one poll may hold a connection (POLL_LEASE_MS); a process that dies mid-poll frees it after this. */
    readonly leaseMs: number,
    /** Per provider, how far ahead of our clock a reading may be stamped and still be sent (FUTURE_SKEW_S). */
    private readonly futureSkewMs: (providerId: string) => number,
    /** What scheduled polls yield to (POLL_SHARE_WHEN_BUSY): their reads and writes are its rounds. */
    readonly yields: YieldToRequests,
  ) {}

  /**
   * POST .../run: polls now and waits for it; 409 while another poll holds it or when it cannot be polled. The answer
   * is settled in the poll's last transaction, with the cursors.
   */
  async run(orgId: string, id: string, settle: Settle): Promise<PollResult> {
    const row = await this.claim(orgId, id);
    try {
      return await this.pollClaimed(row, settle);
    } catch (err) {
      if (err instanceof VendorRejectedError) throw new AppError('connection_not_active', `${row.provider} refused the stored credentials; the connection now needs reconnecting (reauth_required)`);
      if (err instanceof VendorBudgetError) throw new AppError('poll_budget_exhausted', `connection ${id} cannot be polled yet: ${err.message}`, undefined, { 'retry-after': String(err.waitSeconds) });
      throw vendorError(err, row.provider);
    }
  }

  /**
   * One scheduled or manual poll of a connection this process holds; records the outcome and frees the claim. A manual
   * poll's answer is settled in its last transaction. A failure is recorded, then thrown as it came (the vendor's error).
   * A scheduled poll (no `settle`) reads and writes in rounds of `yields`; a manual one, whose caller is one of the
   * requests in flight, runs at once. Both write in small transactions while requests are in flight.
   */
  async pollClaimed(row: repo.ConnectionRow, settle?: Settle): Promise<PollResult> {
    const started = this.clock.now();
    const tally = new IssueTally();
    const trial = admission(breakerOf(row), started) !== 'go';
    const rounds = settle === undefined ? this.yields : undefined;
    const writes = new BackgroundWrites(this.db, this.yields, rounds !== undefined);
    try {
      // Readings are judged new against the marks the poll started from; `moved` is only what it will store.
      const from = marksOf(await loadMarks(this.db, row.org_id, row.id));
      const moved: Marks = new Map();
      const horizon = started.getTime() + this.futureSkewMs(row.provider);
      // No `since`: a machine added with readings older than every mark must still be read; the marks judge each.
      const read = await this.readerOf(row, undefined, { report: tally.report, ...(rounds === undefined ? {} : { yields: rounds }) });
      let enqueued = 0;
      const held: NormalizedEvent[] = [];
      // The newest events are held back, to be written with the first marks (or the outcome) in a later transaction.
      for await (const batch of this.withToken(read, (ctx) => read.reader.snapshot(ctx))) {
        const fresh = batch.filter((e) => !aheadOf(e, horizon, tally.report) && isNew(from, e));
        enqueued += fresh.length;
        advance(moved, fresh);
        held.push(...fresh);
        for (let size = writes.size(POLL_WRITE_CHUNK); held.length > size; size = writes.size(POLL_WRITE_CHUNK)) {
          const chunk = held.splice(0, size);
          await writes.transaction((tx) => this.enqueueAndRenew(tx, row, chunk));
        }
      }
      // Marks move only after every event they cover is written (a crash among these transactions repeats events, never
      // skips one); each transaction after the events' renews the claim, the last one records the outcome.
      const steps: ((tx: Tx) => Promise<void>)[] = [];
      const marks = rowsOf(moved);
      // Every event moved a mark, so the held events always have a first piece of marks to go with.
      for (let at = 0, size = writes.size(MARKS_WRITE_CHUNK); at < marks.length; at += size) {
        const piece = marks.slice(at, at + size);
        const events = at === 0 ? held.splice(0) : [];
        steps.push((tx) => this.saveAndRenew(tx, row, events, piece));
      }
      const last = steps.pop();
      for (const step of steps) await writes.transaction(step);
      const finished = this.clock.now();
      const cursors = summarize(from, moved, started.toISOString());
      const done = { ...CLOSED, last: { started_at: started.toISOString(), finished_at: finished.toISOString(), events: enqueued, outcome: 'ok' } };
      await writes.transaction(async (tx) => {
        await last?.(tx);
        const finishedHere = await repo.finishPoll(tx, row.id, this.owner, {
          cursors: JSON.stringify(cursors),
          breaker_state: done.state,
          consecutive_failures: done.consecutive_failures,
          open_until: done.open_until,
          cooldown_s: done.cooldown_s,
          last_run: JSON.stringify(done.last),
          next_poll_at: new Date(finished.getTime() + row.poll_interval_s * 1000).toISOString(),
          updated_at: finished.toISOString(),
          ...(tally.empty ? {} : { issues: tally.mergeInto(row.issues, finished.toISOString()) }),
        });
        // A poll that succeeds after failures closes the breaker: the hub hears the feed is back.
        if (finishedHere && row.breaker_state !== CLOSED.state) await announce(tx, 'breaker_closed', { ...row, breaker_state: CLOSED.state, consecutive_failures: 0, open_until: null, cooldown_s: 0 }, finished);
        await settle?.(tx, { events_enqueued: enqueued, cursors });
      });
      return { events_enqueued: enqueued, cursors };
    } catch (err) {
      if (err instanceof VendorDocumentInvalidError) tally.report('document_invalid', `${err.path}: ${err.reason}`);
      await this.recordFailure(row, started, err, trial, tally);
      throw err;
    }
  }

  private async claim(orgId: string, id: string): Promise<repo.ConnectionRow> {
    const row = await repo.findConnection(this.db, orgId, id);
    if (row === undefined) throw notFound(`connection ${id}`);
    const now = this.clock.now();
    const why = notPollable(row, now);
    if (why !== undefined) throw new AppError('connection_not_active', `connection ${id} cannot be polled: ${why}`);
    if (!(await repo.claimLease(this.db, id, this.owner, now.toISOString(), new Date(now.getTime() + this.leaseMs).toISOString()))) {
      throw new AppError('concurrent_change', `a poll of connection ${id} is already running`);
    }
    return row;
  }

  /**
   * The connection's reader and what it reads with: `renew` keeps the caller's claim alive while it waits for the vendor's
   * budget (the poll's lease by default); `report` hears what the read could not use.
   */
  async readerOf(
    row: repo.ConnectionRow,
    since: Date | undefined,
    opts: { renew?: () => Promise<void>; report?: ReaderContext['report']; yields?: ReaderContext['yields'] } = {},
  ): Promise<ReadAuth> {
    const provider = findProvider(row.provider);
    const endpoint = provider === undefined ? undefined : this.endpoints.of(provider);
    const reader = provider === undefined ? undefined : readerFor(provider);
    if (provider === undefined || endpoint === undefined || reader === undefined) throw new AppError('unavailable', `${row.provider} is not configured on this gateway`);
    const renew = opts.renew ?? (() => repo.renewClaim(this.db, row.id, this.owner, new Date(this.clock.now().getTime() + this.leaseMs).toISOString()));
    const report = (detail: string) => opts.report?.('budget_wait', detail);
    const gated: ProviderEndpoint = { ...endpoint, beforeCall: (call) => this.beforeCall(provider, endpoint, row.id, call, renew, report) };
    const contextOf = (auth: ReaderContext['auth']): ReaderContext => ({
      provider,
      endpoint: gated,
      auth,
      connectionId: row.id,
      ...(row.fleet_id === null ? {} : { fleetId: row.fleet_id }),
      ...(since === undefined ? {} : { since }),
      ...(opts.report === undefined ? {} : { report: opts.report }),
      ...(opts.yields === undefined ? {} : { yields: opts.yields }),
    });
    if (provider.auth === 'oauth_authorization_code') return { reader, ctx: (contextOf({ accessToken: await this.oauth.accessToken(row.org_id, row.id) })) };
    if (row.credentials_ciphertext === null) throw new VendorRejectedError(`${row.provider} connection holds no credentials`);
    const credentials = JSON.parse(await this.vault.decrypt(row.credentials_ciphertext, row.id)) as Credentials;
    if (!usesGrantToken(provider)) return { reader, ctx: (contextOf({ credentials })) };
    const fetchNew = async (): Promise<ReaderContext> => (contextOf({ accessToken: await this.newVendorToken(row, provider, gated, credentials) }));
    const cached = await this.cachedVendorToken(row);
    if (cached === undefined) return { reader, ctx: await fetchNew() };
    const drop = () => repo.setVendorToken(this.db, row.id, this.owner, null);
    return { reader, ctx: (contextOf({ accessToken: cached })), retry: { drop, fresh: async () => (await drop(), fetchNew()) } };
  }

  /**
   * Before each vendor call: the connection's per-URL budget (a GET to a URL fetched too recently puts the poll off,
   * VendorBudgetError) and then the provider's per-minute budget (waited for). A wait is reported to the read.
   */
  private async beforeCall(provider: Provider, endpoint: ProviderEndpoint, connectionId: string, call: { method: string; url: string }, renew: () => Promise<void>, report: (detail: string) => void): Promise<void> {
    const interval = endpoint.urlIntervalSeconds;
    if (interval !== undefined && call.method === 'GET') {
      const wait = await this.gate.tryUrl(connectionId, call.url, interval);
      if (wait > 0) {
        report(`${urlPath(call.url)}: one call per ${interval} s`);
        throw new VendorBudgetError(provider.id, urlPath(call.url), interval, wait);
      }
    }
    const perMinute = endpoint.requestsPerMinute ?? DEFAULT_RATE_LIMIT;
    await this.gate.pass(provider.id, perMinute, renew, () => report(`${provider.id}: ${perMinute} requests a minute`));
  }

  /** The connection's cached grant token while it is not about to expire (within 5 minutes, or half its life if shorter). */
  private async cachedVendorToken(row: repo.ConnectionRow): Promise<string | undefined> {
    if (row.vendor_token_ciphertext === null) return undefined;
    const token = JSON.parse(await this.vault.decrypt(row.vendor_token_ciphertext, row.id)) as CachedToken;
    if (token.expires_at === undefined) return token.access_token;
    const expires = Date.parse(token.expires_at);
    const ahead = Math.min(REFRESH_AHEAD_MS, (expires - Date.parse(token.obtained_at)) / 2);
    return expires - this.clock.now().getTime() > ahead ? token.access_token : undefined;
  }

  /** A new grant token from the credentials, kept (encrypted) on the connection for the polls to come. */
  private async newVendorToken(row: repo.ConnectionRow, provider: Provider, endpoint: ProviderEndpoint, credentials: Credentials): Promise<string> {
    const now = this.clock.now();
    const token = await grantToken(provider, endpoint, credentials);
    const cached: CachedToken = {
      access_token: token.accessToken,
      obtained_at: now.toISOString(),
      ...(token.expiresInSeconds === undefined ? {} : { expires_at: new Date(now.getTime() + token.expiresInSeconds * 1000).toISOString() }),
    };
    await repo.setVendorToken(this.db, row.id, this.owner, await this.vault.encrypt(JSON.stringify(cached), row.id));
    return token.accessToken;
  }

  /**
   * Reads with the connection's auth. A cached token the vendor refuses is dropped; if nothing was read yet the read
   * starts once more with a new token (a refusal then is the credentials'), else the poll fails and the next fetches one.
   */
  private async *withToken<T>(read: ReadAuth, from: (ctx: ReaderContext) => AsyncIterable<T>): AsyncGenerator<T> {
    let yielded = false;
    try {
      for await (const item of from(read.ctx)) {
        yielded = true;
        yield item;
      }
    } catch (err) {
      if (!(err instanceof VendorRejectedError) || read.retry === undefined) throw err;
      if (yielded) {
        await read.retry.drop();
        throw new VendorUnavailableError(`${read.ctx.provider.id} refused the cached access token part way through the read; the next poll fetches a new one`, 'failed');
      }
      yield* from(await read.retry.fresh());
    }
  }

  /** Events and marks in the caller's transaction (the events first: never a mark ahead of what is written), the claim renewed. */
  private async saveAndRenew(tx: Tx, row: repo.ConnectionRow, events: readonly NormalizedEvent[], marks: readonly MarkRow[]): Promise<void> {
    await this.enqueue(tx, row.org_id, events);
    await saveMarks(tx, row.org_id, row.id, marks);
    await repo.renewClaim(tx, row.id, this.owner, new Date(this.clock.now().getTime() + this.leaseMs).toISOString());
  }

  /** A batch written keeps the claim alive: a long poll is not taken over while it makes progress. */
  private async enqueueAndRenew(tx: Tx, row: repo.ConnectionRow, events: readonly NormalizedEvent[]): Promise<void> {
    await this.enqueue(tx, row.org_id, events);
    await repo.renewClaim(tx, row.id, this.owner, new Date(this.clock.now().getTime() + this.leaseMs).toISOString());
  }

  /** Queues events for the hub as `telematics.event` in the caller's transaction (polls and syncs alike). */
  async enqueue(tx: Tx, orgId: string, events: readonly NormalizedEvent[]): Promise<void> {
    if (events.length === 0) return;
    await enqueueDeliveries(
      tx,
      events.map((event) => hubDelivery({ type: TELEMATICS_EVENT, orgId, data: event, at: new Date(event.observed_at), id: event.id })),
    );
  }

  /**
   * A failed poll: credentials refused -> reauth_required; the per-URL budget -> put off; anything else counts against
   * the breaker, and a 4xx other than 401/403/429 opens it at once. Cursors stay.
   */
  private async recordFailure(row: repo.ConnectionRow, started: Date, err: unknown, trial: boolean, tally: IssueTally): Promise<void> {
    const now = this.clock.now();
    const issues = tally.empty ? {} : { issues: tally.mergeInto(row.issues, now.toISOString()) };
    const message = err instanceof Error ? err.message : String(err);
    const lastRun = JSON.stringify({ started_at: started.toISOString(), finished_at: now.toISOString(), events: 0, outcome: 'failed' });
    const lastError = JSON.stringify({ at: now.toISOString(), message });
    if (err instanceof VendorRejectedError) {
      const change = { status: 'reauth_required', last_run: lastRun, last_error: lastError, updated_at: now.toISOString(), ...issues };
      await this.db.transaction().execute(async (tx) => {
        if (await repo.finishPoll(tx, row.id, this.owner, change)) await announce(tx, 'reauth_required', { ...row, ...change }, now);
      });
      return;
    }
    if (err instanceof VendorBudgetError) {
      // Put off until the per-URL budget admits the call: the vendor did nothing wrong, so the breaker does not count it.
      await repo.finishPoll(this.db, row.id, this.owner, { next_poll_at: new Date(now.getTime() + err.waitSeconds * 1000).toISOString(), updated_at: now.toISOString(), ...issues });
      return;
    }
    const breaker = afterFailure(trial ? { ...breakerOf(row), state: 'half_open' } : breakerOf(row), now, refusedRequest(err));
    const retryAfter = retryAfterOf(err);
    const nextPoll = Math.max(now.getTime() + row.poll_interval_s * 1000, breaker.open_until ? Date.parse(breaker.open_until) : 0, retryAfter ? now.getTime() + retryAfter * 1000 : 0);
    const change = {
      breaker_state: breaker.state,
      consecutive_failures: breaker.consecutive_failures,
      open_until: breaker.open_until,
      cooldown_s: breaker.cooldown_s,
      last_run: lastRun,
      last_error: lastError,
      next_poll_at: new Date(nextPoll).toISOString(),
      updated_at: now.toISOString(),
      ...issues,
    };
    await this.db.transaction().execute(async (tx) => {
      const finished = await repo.finishPoll(tx, row.id, this.owner, change);
      // Told once per opening: a failed trial re-opens an open breaker, which the hub already knows of.
      if (finished && breaker.state === 'open' && row.breaker_state === CLOSED.state) await announce(tx, 'breaker_opened', { ...row, ...change }, now);
    });
  }
}

/** A reading stamped past the horizon (a device clock set wrong) is counted and neither sent nor allowed to move a mark. */
function aheadOf(event: NormalizedEvent, horizon: number, report: (kind: ReadIssueKind, detail: string) => void): boolean {
  if (Date.parse(event.observed_at) <= horizon) return false;
  report('future_timestamp', `${event.equipment.id} ${event.type}`);
  return true;
}
