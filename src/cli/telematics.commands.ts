import type { Command } from 'commander';
import type { Gateway } from '../gateway.js';
import { PROVIDER_IDS } from '../modules/telematics/providers.js';
import { listConnectionsQuery } from '../modules/telematics/telematics.schemas.js';
import { invalidInput } from '../platform/http/errors.js';
import { print, run, table, type OutputOptions } from './output.js';

type WithGateway = <T>(body: (gw: Gateway) => Promise<T>) => Promise<T>;

interface CreateOptions extends OutputOptions {
  org: string;
  provider?: string;
  label?: string;
}

/** `connect-tokens create`: what the hub runs (or calls) to let a fleet owner link a telematics account. */
export function registerTelematicsCommands(program: Command, withGateway: WithGateway): void {
  const tokens = program.command('connect-tokens').description('single-use tokens for POST /connect (15 minutes)');
  tokens
    .command('create')
    .description('issue a connect token; it is shown once, only its hash is stored')
    .requiredOption('--org <slug>', 'the organisation the connection will belong to')
    .option('--provider <id>', `fix the provider the token may connect (${PROVIDER_IDS.length} known; see README)`)
    .option('--label <text>', 'a label for the connection, up to 100 characters')
    .option('--json', 'machine-readable output')
    .action(run(async (opts: CreateOptions) => {
      const issued = await withGateway((gw) =>
        gw.services.connectTokens.issue({
          org: opts.org,
          ...(opts.provider === undefined ? {} : { provider: opts.provider }),
          ...(opts.label === undefined ? {} : { label: opts.label }),
        }),
      );
      print(opts, issued, (t) => `${t.connect_token}\n(single use, expires ${t.expires_at}; shown once)`);
    }));

  const connections = program.command('connections').description("an organisation's linked telematics accounts");
  connections
    .command('list')
    .description('list connections, newest first (credentials are shown only as a masked hint)')
    .requiredOption('--org <slug>', 'the organisation')
    .option('--limit <n>', 'connections to show, 1-200', '50')
    .option('--json', 'machine-readable output')
    .action(run(async (opts: OutputOptions & { org: string; limit: string }) => {
      const listed = await withGateway(async (gw) => {
        const org = await gw.services.orgs.bySlug(opts.org);
        const query = listConnectionsQuery.safeParse({ limit: opts.limit });
        if (!query.success) throw invalidInput('--limit must be a whole number from 1 to 200');
        return gw.services.connections.listOf(org.id, query.data);
      });
      print(opts, listed, (l) => table(l.connections, ['id', 'provider', 'status', 'label', 'credentials_hint', 'created_at']));
    }));
}
