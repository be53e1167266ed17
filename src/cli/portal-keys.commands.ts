import { type Command, InvalidArgumentError } from 'commander';
import type { Gateway } from '../gateway.js';
import { CLI_ACTOR } from '../platform/core/actor.js';
import { PORTAL_DEFAULT_IP_RATE_LIMIT, PORTAL_DEFAULT_RATE_LIMIT } from '../platform/auth/portal-key.js';
import { allPages, print, printList, run, table, type OutputOptions } from './output.js';

type WithGateway = <T>(body: (gw: Gateway) => Promise<T>) => Promise<T>;

interface CreateOptions extends OutputOptions {
  org: string;
  dealer: string;
  origins: string;
  rateLimit?: number;
  ipRateLimit?: number;
}

/** A whole number as typed; the service's schema says which range is allowed. */
function wholeNumber(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n)) throw new InvalidArgumentError('expected a whole number');
  return n;
}

const COLUMNS = ['id', 'org', 'dealer', 'prefix', 'state', 'origins', 'rate_limit_per_minute', 'ip_rate_limit_per_minute', 'created_at'];

/** `portal-keys create|list|revoke`: browser-safe keys for dealer sites (the same as /admin/v1/portal-keys). */
export function registerPortalKeysCommands(program: Command, withGateway: WithGateway): void {
  const keys = program.command('portal-keys');
  keys
    .command('create')
    .description('issue a portal key; it is shown once, only its hash is stored')
    .requiredOption('--org <slug>', 'the organisation whose catalog and claims the key reaches')
    .requiredOption('--dealer <name>', 'the dealer the key is for (recorded on the claims it files)')
    .requiredOption('--origins <list>', 'comma-separated exact origins that may use it: https://a.example,https://b.example')
    .option('--rate-limit <perMinute>', `requests per minute for the key (default ${PORTAL_DEFAULT_RATE_LIMIT})`, wholeNumber)
    .option('--ip-rate-limit <perMinute>', `requests per minute per client IP (default ${PORTAL_DEFAULT_IP_RATE_LIMIT})`, wholeNumber)
    .option('--json', 'machine-readable output')
    .action(run(async (opts: CreateOptions) => {
      const created = await withGateway((gw) =>
        gw.services.portalKeys.create({
          org: opts.org,
          dealer: opts.dealer,
          origins: opts.origins.split(',').map((o) => o.trim()).filter(Boolean),
          ...(opts.rateLimit === undefined ? {} : { rate_limit_per_minute: opts.rateLimit }),
          ...(opts.ipRateLimit === undefined ? {} : { ip_rate_limit_per_minute: opts.ipRateLimit }),
        }, CLI_ACTOR),
      );
      print(opts, created, (issued) =>
        [
          `portal key ${issued.id} for ${issued.dealer} (org ${issued.org})`,
          `origins: ${issued.origins.join(' ')}`,
          `limits: ${issued.rate_limit_per_minute} requests per minute, ${issued.ip_rate_limit_per_minute} per client IP`,
          '',
          issued.key,
          '',
          'This is the only time the key is shown: store it now.',
        ].join('\n'),
      );
    }));
  keys
    .command('list')
    .description('list portal keys, oldest first (never the keys themselves)')
    .option('--org <slug>', "only this organisation's keys")
    .option('--json', 'machine-readable output')
    .action(run(async (opts: OutputOptions & { org?: string }) => {
      const listed = await withGateway((gw) =>
        allPages(async (cursor) => {
          const page = await gw.services.portalKeys.list({ limit: 500, ...(opts.org === undefined ? {} : { org: opts.org }), ...(cursor === undefined ? {} : { cursor }) });
          return { items: page.portal_keys, next_cursor: page.next_cursor };
        }),
      );
      printList(opts, 'portal_keys', listed, (l) => table(l.map((k) => ({ ...k, origins: k.origins.join(' ') })), COLUMNS));
    }));
  keys
    .command('revoke <id>')
    .description('revoke a portal key (takes effect on every instance within seconds)')
    .option('--json', 'machine-readable output')
    .action(run(async (id: string, opts: OutputOptions) => {
      const revoked = await withGateway((gw) => gw.services.portalKeys.revoke(id, CLI_ACTOR));
      print(opts, revoked, (k) => `revoked ${k.id} (${k.dealer}) at ${k.revoked_at ?? ''}`);
    }));
}
