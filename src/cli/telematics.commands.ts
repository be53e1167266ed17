import type { Command } from 'commander';
import type { Gateway } from '../gateway.js';
import { PROVIDER_IDS } from '../modules/telematics/providers.js';
import { print, run, type OutputOptions } from './output.js';

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
}
