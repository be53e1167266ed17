import type { Command } from 'commander';
import type { Gateway } from '../gateway.js';
import { PROVIDER_IDS } from '../modules/telematics/providers/catalog.js';
import { CLI_ACTOR } from '../platform/core/actor.js';
import { invalidInput } from '../platform/core/errors.js';
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

/** What `connections set` prints of the connection after the change. */
const SET_COLUMNS = ['id', 'provider', 'status', 'poll_interval_s', 'next_poll_at', 'label'];

/** `connect-tokens create`: what the hub runs (or calls) to let a fleet owner link a telematics account. */
export function registerTelematicsCommands(program: Command, withGateway: WithGateway): void {
  const tokens = program.command('connect-tokens');
  tokens
    .command('create')
    .description('issue a connect token; it is shown once, only its hash is stored')
    .requiredOption('--org <slug>', 'the organisation the connection will belong to')
    .option('--provider <id>', `fix the provider the token may connect (${PROVIDER_IDS.length} known; see README)`)
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
}
