import { type Command, InvalidArgumentError } from 'commander';
import { loadConfig } from '../config.js';
import { createGateway, type Gateway } from '../gateway.js';
import { MODULES } from '../modules/index.js';
import { CLI_ACTOR } from '../platform/core/actor.js';
import { migrateToLatest } from '../platform/db/migrate.js';
import { registerAuditCommands } from './audit.commands.js';
import { registerBackupCommands } from './backup.commands.js';
import { registerDeliveriesCommands } from './deliveries.commands.js';
import { registerDemoCommand } from './demo.command.js';
import { registerHubSimCommand } from './hub-sim.command.js';
import { registerObjectsCommands } from './objects.commands.js';
import { registerPartnersCommands } from './partners.commands.js';
import { registerPortalKeysCommands } from './portal-keys.commands.js';
import { registerRetentionCommands } from './retention.commands.js';
import { registerSecretsCommands } from './secrets.commands.js';
import { registerTelematicsCommands } from './telematics.commands.js';
import { registerVendorSimCommand } from './vendor-sim.command.js';
import { registerWebhooksCommands } from './webhooks.commands.js';
import { allPages, print, run, table, type OutputOptions } from './output.js';
import { serve } from './serve.js';

type JsonOpt = OutputOptions;

/** Opens the gateway for one command and always closes it. */
async function withGateway<T>(body: (gw: Gateway) => Promise<T>, opts: { migrate?: boolean } = {}): Promise<T> {
  const gw = await createGateway(loadConfig(), opts);
  try {
    return await body(gw);
  } finally {
    await gw.close();
  }
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive whole number');
  return n;
}

export function registerCommands(program: Command): void {
  program
    .command('serve')
    .description('serve the gateway (HTTP and background workers); migrates first')
    .option('--json', 'log start-up as JSON only')
    .action(run(async () => serve(loadConfig())));

  program
    .command('migrate')
    .description('apply database migrations')
    .option('--json', 'machine-readable output')
    .action(run(async (opts: JsonOpt) => {
      const applied = await withGateway(async (gw) => migrateToLatest(gw.database.db, MODULES), { migrate: false });
      print(opts, { applied }, (v) => (v.applied.length ? `applied: ${v.applied.join(', ')}` : 'database is up to date'));
    }));

  const orgs = program.command('orgs').description('organisations');
  orgs
    .command('create <slug>')
    .option('--name <name>', 'display name')
    .option('--json', 'machine-readable output')
    .action(run(async (slug: string, opts: JsonOpt & { name?: string }) => {
      const org = await withGateway((gw) => gw.services.orgs.create(slug, opts.name, CLI_ACTOR));
      print(opts, org, (o) => `created org ${o.slug} (${o.id})`);
    }));
  orgs
    .command('list')
    .option('--json', 'machine-readable output')
    .action(run(async (opts: JsonOpt) => {
      const list = await withGateway((gw) => gw.services.orgs.list());
      print(opts, list, (l) => table(l as unknown as Record<string, unknown>[], ['slug', 'name', 'id', 'created_at']));
    }));

  const keys = program.command('keys').description('API keys');
  keys
    .command('create')
    .requiredOption('--org <slug>', 'org the key belongs to')
    .requiredOption('--scopes <list>', 'comma-separated scopes, or "all"')
    .option('--name <name>', 'what the key is for')
    .option('--expires-in <duration>', 'lifetime such as 30d, 12h')
    .option('--rate-limit <perMinute>', 'requests per minute for this key', positiveInt)
    .option('--json', 'machine-readable output')
    .action(run(async (opts: JsonOpt & { org: string; scopes: string; name?: string; expiresIn?: string; rateLimit?: number }) => {
      const created = await withGateway((gw) =>
        gw.services.apiKeys.create({
          orgSlug: opts.org,
          scopes: opts.scopes,
          ...(opts.name ? { name: opts.name } : {}),
          ...(opts.expiresIn ? { expiresIn: opts.expiresIn } : {}),
          ...(opts.rateLimit ? { rateLimit: opts.rateLimit } : {}),
        }, CLI_ACTOR),
      );
      print(opts, created, (c) =>
        [`key ${c.id} for org ${c.org}`, `scopes: ${c.scopes.join(' ')}`, `expires: ${c.expires_at ?? 'never'}`, '', c.key, '', 'This is the only time the key is shown: store it now.'].join('\n'),
      );
    }));
  keys
    .command('list')
    .requiredOption('--org <slug>', 'org whose keys to list')
    .option('--json', 'machine-readable output')
    .action(run(async (opts: JsonOpt & { org: string }) => {
      const list = await withGateway((gw) =>
        allPages(async (cursor) => {
          const page = await gw.services.apiKeys.list({ org: opts.org, limit: 500, cursor });
          return { items: page.keys, next_cursor: page.next_cursor };
        }),
      );
      print(opts, list, (l) =>
        table(l.map((k) => ({ ...k, scopes: k.scopes.join(' ') })), ['id', 'prefix', 'name', 'state', 'scopes', 'expires_at']),
      );
    }));
  keys
    .command('revoke <id>')
    .description('deactivate a key (takes effect on every instance within seconds)')
    .option('--json', 'machine-readable output')
    .action(run(async (id: string, opts: JsonOpt) => {
      const result = await withGateway((gw) => gw.services.apiKeys.revoke(id, CLI_ACTOR));
      print(opts, result, (r) => `revoked ${r.id} at ${r.revoked_at}`);
    }));
  keys
    .command('rotate <id>')
    .description('issue a replacement key; the old one keeps working for the grace period')
    .option('--grace <duration>', 'how long the old key keeps working', '24h')
    .option('--json', 'machine-readable output')
    .action(run(async (id: string, opts: JsonOpt & { grace: string }) => {
      const created = await withGateway((gw) => gw.services.apiKeys.rotate(id, opts.grace, CLI_ACTOR));
      print(opts, created, (c) =>
        [`new key ${c.id} replaces ${id}; the old key works until ${c.old_key_expires_at}`, '', c.key, '', 'This is the only time the key is shown: store it now.'].join('\n'),
      );
    }));

  const settings = program.command('settings').description('per-org settings');
  const declared = MODULES.flatMap((m) => m.settings?.settings ?? []);
  settings
    .command('set <assignments...>')
    .description('set settings of an org: name=value ...')
    .addHelpText('after', ['', 'Settings:', ...declared.map((s) => `  ${s.name} (default ${String(s.default)}): ${s.description}`)].join('\n'))
    .requiredOption('--org <slug>', 'org to configure')
    .option('--json', 'machine-readable output')
    .action(run(async (assignments: string[], opts: JsonOpt & { org: string }) => {
      const result = await withGateway((gw) => gw.services.orgs.setSettings(opts.org, assignments));
      print(opts, result, (r) => Object.entries(r).map(([k, v]) => `${k}=${String(v)}`).join('\n'));
    }));
  settings
    .command('show')
    .requiredOption('--org <slug>', 'org to show')
    .option('--json', 'machine-readable output')
    .action(run(async (opts: JsonOpt & { org: string }) => {
      const result = await withGateway(async (gw) => gw.services.orgs.settings((await gw.services.orgs.bySlug(opts.org)).id));
      print(opts, result, (r) => Object.entries(r).map(([k, v]) => `${k}=${String(v)}`).join('\n'));
    }));

  registerObjectsCommands(program, withGateway);
  registerPartnersCommands(program, withGateway);
  registerPortalKeysCommands(program, withGateway);
  registerAuditCommands(program, withGateway);
  registerTelematicsCommands(program, withGateway);
  registerDeliveriesCommands(program, withGateway);
  registerWebhooksCommands(program, withGateway);
  registerSecretsCommands(program, withGateway);
  registerRetentionCommands(program, withGateway);
  registerBackupCommands(program);
  registerHubSimCommand(program);
  registerVendorSimCommand(program);
  registerDemoCommand(program);
}
