import type { Command } from 'commander';
import type { Gateway } from '../gateway.js';
import { PROVIDER_IDS } from '../modules/telematics/providers/catalog.js';
import { CLI_ACTOR } from '../platform/core/actor.js';
import { invalidInput } from '../platform/core/errors.js';
import type { Sync } from '../modules/telematics/telematics.schemas.js';
import { print, run, table, type OutputOptions } from './output.js';

type WithGateway = <T>(body: (gw: Gateway) => Promise<T>) => Promise<T>;

interface CreateOptions extends OutputOptions {
  org: string;
  provider?: string;
  label?: string;
  connection?: string;
}

interface SetOptions extends OutputOptions {
  org?: string;
  interval?: string;
  pause?: boolean;
  resume?: boolean;
}

interface ReplayOptions extends OutputOptions {
  org: string;
  from?: string;
  to?: string;
  resume?: string;
}

/** What `connections set` prints of the connection after the change. */
const SET_COLUMNS = ['id', 'provider', 'status', 'poll_interval_s', 'next_poll_at', 'label'];

/** A sync as one row of `connections syncs`. */
const syncRow = (s: Sync) => ({ id: s.id, status: s.status, from: s.from, to: s.to, machines: `${s.progress.machines_done}/${s.progress.machines_total}`, events: s.progress.events_enqueued, created_at: s.created_at });

/** The window of `connections replay`, checked as the REST body is, before the database is opened; or the sync to resume. */
async function replayRequest(opts: ReplayOptions): Promise<{ window: { from: Date; to: Date } } | { resume: string }> {
  if (opts.resume !== undefined) {
    if (opts.from !== undefined || opts.to !== undefined) throw invalidInput('--resume follows an existing sync: give it without --from and --to');
    return { resume: opts.resume };
  }
  if (opts.from === undefined || opts.to === undefined) throw invalidInput('give the window with --from and --to (ISO 8601 with a zone), or --resume <sync id>');
  const { replayBody } = await import('../modules/telematics/telematics.schemas.js');
  const window = replayBody.safeParse({ from: opts.from, to: opts.to });
  if (!window.success) throw invalidInput(window.error.issues[0]?.message ?? 'the window is not valid');
  return { window: window.data };
}

/** `connect-tokens create`: what the hub runs (or calls) to let a fleet owner link a telematics account. */
export function registerTelematicsCommands(program: Command, withGateway: WithGateway): void {
  const tokens = program.command('connect-tokens');
  tokens
    .command('create')
    .description('issue a connect token; it is shown once, only its hash is stored')
    .requiredOption('--org <slug>', 'the organisation the connection will belong to')
    .option('--provider <id>', `fix the provider the token may connect, one of: ${PROVIDER_IDS.join(', ')} (docs/telematics.md says what each takes)`)
    .option('--label <text>', 'a label for the connection, up to 100 characters')
    .option('--connection <id>', "reconnect this connection of the org (new credentials or consent, same id and marks); fixes the provider to its own")
    .option('--json', 'machine-readable output')
    .action(run(async (opts: CreateOptions) => {
      const issued = await withGateway((gw) =>
        gw.services.connectTokens.issue({
          org: opts.org,
          ...(opts.provider === undefined ? {} : { provider: opts.provider }),
          ...(opts.label === undefined ? {} : { label: opts.label }),
          ...(opts.connection === undefined ? {} : { connection: opts.connection }),
        }, CLI_ACTOR),
      );
      const reconnects = (t: typeof issued) => (t.connection === null ? '' : `; reconnects ${t.connection} (${t.provider ?? ''})`);
      print(opts, issued, (t) => `${t.connect_token}\n(single use, expires ${t.expires_at}${reconnects(t)}; shown once)`);
    }));

  const connections = program.command('connections');
  connections
    .command('list')
    .description('list connections, newest first (credentials are shown only as a masked hint)')
    .requiredOption('--org <slug>', 'the organisation')
    .option('--limit <n>', 'connections to show, 1-200', '50')
    .option('--json', 'machine-readable output')
    .action(run(async (opts: OutputOptions & { org: string; limit: string }) => {
      const [{ listConnectionsQuery }, { decimalNumber }] = await Promise.all([import('../modules/telematics/telematics.schemas.js'), import('../platform/operations/query-string.js')]);
      const listed = await withGateway(async (gw) => {
        const org = await gw.services.orgs.bySlug(opts.org);
        const query = listConnectionsQuery.safeParse({ limit: decimalNumber(opts.limit) ?? opts.limit });
        if (!query.success) throw invalidInput('--limit must be a whole number from 1 to 200');
        return gw.services.connections.list(gw.database.db, org.id, query.data);
      });
      print(opts, listed, (l) => table(l.connections, ['id', 'provider', 'status', 'label', 'credentials_hint', 'created_at']));
    }));

  connections
    .command('set <id>')
    .description('change how a connection is polled: its interval, or pause / resume it (a resumed one is due at once)')
    .option('--interval <duration>', "time between polls: 90s, 5m, 1h or seconds; at least 60 s and the provider's minimum, at most 24h")
    .option('--pause', 'stop polling it (only an active connection)')
    .option('--resume', 'poll it again, at once (only a paused connection)')
    .option('--org <slug>', 'only if the connection belongs to this organisation')
    .option('--json', 'machine-readable output')
    .action(run(async (id: string, opts: SetOptions) => {
      if (opts.pause === true && opts.resume === true) throw invalidInput('--pause and --resume cannot be used together');
      if (opts.interval === undefined && opts.pause !== true && opts.resume !== true) throw invalidInput('nothing to change: give --interval, --pause or --resume');
      // Parsed before the database is opened, so a typo costs nothing.
      const { parsePollInterval } = await import('../modules/telematics/connections/connections.service.js');
      const intervalSeconds = opts.interval === undefined ? undefined : parsePollInterval(opts.interval);
      const connection = await withGateway(async (gw) => {
        const orgId = opts.org === undefined ? undefined : (await gw.services.orgs.bySlug(opts.org)).id;
        return gw.services.connections.setPolling(id, { intervalSeconds, pause: opts.pause, resume: opts.resume }, orgId);
      });
      print(opts, connection, (c) => table([c], SET_COLUMNS));
    }));

  connections
    .command('reset-cursors <id>')
    .description('forget every mark of a connection: its next poll sends all the vendor returns again (the hub drops repeats); audited')
    .option('--org <slug>', 'only if the connection belongs to this organisation')
    .option('--json', 'machine-readable output')
    .action(run(async (id: string, opts: OutputOptions & { org?: string }) => {
      const connection = await withGateway(async (gw) => {
        const orgId = opts.org === undefined ? undefined : (await gw.services.orgs.bySlug(opts.org)).id;
        return gw.services.connections.resetCursors(id, CLI_ACTOR, orgId);
      });
      print(opts, connection, (c) => `cursors of ${c.id} (${c.provider}) reset: its next poll sends everything the vendor returns`);
    }));

  connections
    .command('replay <id>')
    .description('replay a window of a connection\'s history as a sync (ISO 15143-3 feeds) and follow it to its end: run here when no serve runs, else watched')
    .requiredOption('--org <slug>', 'the organisation of the connection')
    .option('--from <time>', 'start of the window, ISO 8601 with a zone (2026-05-01T00:00:00Z)')
    .option('--to <time>', 'end of the window, ISO 8601 with a zone, not in the future; at most 31 days after --from')
    .option('--resume <sync_id>', 'follow (or, with no serve running, go on running) a sync started before instead of a new one')
    .option('--json', 'machine-readable output: the sync when it ended')
    .action(run(async (id: string, opts: ReplayOptions) => {
      const request = await replayRequest(opts);
      const { followSync } = await import('./follow-sync.js');
      const sync = await withGateway(async (gw) => {
        const org = await gw.services.orgs.bySlug(opts.org);
        const queued = 'resume' in request
          ? await gw.services.syncs.get(gw.database.db, org.id, id, request.resume)
          : await gw.database.db.transaction().execute((tx) => gw.services.syncs.create(tx, org.id, id, request.window));
        return followSync(gw, org.id, opts.org, queued, opts);
      });
      const { machines_done, machines_total, events_enqueued } = sync.progress;
      print(opts, sync, (s) => `sync ${s.id} completed: ${machines_done}/${machines_total} machines, ${events_enqueued} events queued for the hub (${s.from} to ${s.to})`);
    }));

  connections
    .command('syncs <id>')
    .description("a connection's replay syncs, newest first, with their progress")
    .requiredOption('--org <slug>', 'the organisation of the connection')
    .option('--status <status>', 'only syncs in this status: queued, running, completed, failed or cancelled')
    .option('--limit <n>', 'syncs to show, 1-200', '50')
    .option('--json', 'machine-readable output')
    .action(run(async (id: string, opts: OutputOptions & { org: string; status?: string; limit: string }) => {
      const [{ listSyncsQuery }, { decimalNumber }] = await Promise.all([import('../modules/telematics/telematics.schemas.js'), import('../platform/operations/query-string.js')]);
      const query = listSyncsQuery.safeParse({ limit: decimalNumber(opts.limit) ?? opts.limit, ...(opts.status === undefined ? {} : { status: opts.status }) });
      if (!query.success) throw invalidInput(opts.status !== undefined && query.error.issues.some((i) => i.path[0] === 'status') ? '--status must be queued, running, completed, failed or cancelled' : '--limit must be a whole number from 1 to 200');
      const listed = await withGateway(async (gw) => {
        const org = await gw.services.orgs.bySlug(opts.org);
        return gw.services.syncs.list(gw.database.db, org.id, id, query.data);
      });
      print(opts, listed, (l) => table(l.syncs.map(syncRow), ['id', 'status', 'from', 'to', 'machines', 'events', 'created_at']));
    }));

  connections
    .command('cancel-sync <id> <sync_id>')
    .description('cancel a queued or running replay sync, the same as POST /v1/telematics/connections/:id/syncs/:sync_id/cancel: it ends cancelled at once and its worker writes nothing more')
    .requiredOption('--org <slug>', 'the organisation of the connection')
    .option('--json', 'machine-readable output: the cancelled sync')
    .action(run(async (id: string, syncId: string, opts: OutputOptions & { org: string }) => {
      const sync = await withGateway(async (gw) => {
        const org = await gw.services.orgs.bySlug(opts.org);
        return gw.database.db.transaction().execute((tx) => gw.services.syncs.cancel(tx, org.id, id, syncId));
      });
      const { machines_done, machines_total, events_enqueued } = sync.progress;
      print(opts, sync, (s) => `sync ${s.id} cancelled: ${machines_done}/${machines_total} machines done, ${events_enqueued} events queued for the hub before it stopped`);
    }));
}
