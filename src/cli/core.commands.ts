import { type Command, InvalidArgumentError } from 'commander';
import { CLI_ACTOR } from '../platform/core/actor.js';
import { scopesHelp, settingsHelp } from './help-catalog.js';
import { allPages, print, printList, run, table, type OutputOptions } from './output.js';
import { checkDatabaseFolder } from './database-folder.js';
import { longJob } from './progress.js';
import type { WithGateway } from './with-gateway.js';

type JsonOpt = OutputOptions;

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive whole number');
  return n;
}

/** `serve`, `migrate`, `orgs`, `keys`, `settings`: the gateway itself and what every org needs first. */
export function registerCoreCommands(program: Command, withGateway: WithGateway): void {
  program
    .command('serve')
    .option('--create', 'create a new SQLite database if the folder of DATABASE_URL does not exist yet')
    .option('--json', 'print the listening line as JSON')
    .action(run(async (opts: JsonOpt & { create?: boolean }) => {
      const { loadConfig } = await import('../config.js');
      const config = loadConfig();
      checkDatabaseFolder(config.DATABASE_URL, opts.create ?? false);
      const { serve } = await import('./serve.js');
      await serve(config, { json: opts.json ?? false });
    }));

  program
    .command('migrate')
    .option('--json', 'machine-readable output')
    .action(run(async (opts: JsonOpt) => {
      const { migrateToLatest } = await import('../platform/db/migrate.js');
      const { MODULES } = await import('../modules/index.js');
      const applied = await longJob('migrating', opts, 'the migrations applied so far are kept; run `gateway migrate` again to apply the rest', (tick) =>
        withGateway(async (gw) => migrateToLatest(gw.database.db, MODULES, { onMigrated: tick }), { migrate: false, create: true }),
      );
      print(opts, { applied }, (v) => (v.applied.length ? `applied: ${v.applied.join(', ')}` : 'database is up to date'));
    }));

  const orgs = program.command('orgs');
  orgs
    .command('create <slug>')
    .description('create an organisation (slug: lower-case letters, digits and dashes)')
    .option('--name <name>', 'display name')
    .option('--json', 'machine-readable output')
    .action(run(async (slug: string, opts: JsonOpt & { name?: string }) => {
      const org = await withGateway((gw) => gw.services.orgs.create(slug, opts.name, CLI_ACTOR));
      print(opts, org, (o) => `created org ${o.slug} (${o.id})`);
    }));
  orgs
    .command('list')
    .description('list every organisation')
    .option('--json', 'machine-readable output')
    .action(run(async (opts: JsonOpt) => {
      const list = await withGateway((gw) => gw.services.orgs.list());
      printList(opts, 'orgs', list, (l) => table(l as unknown as Record<string, unknown>[], ['slug', 'name', 'id', 'created_at']));
    }));

  const keys = program.command('keys');
  keys
    .command('create')
    .description('issue an API key for an org; it is shown once, only its hash is stored')
    .addHelpText('after', scopesHelp())
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
    .description("list an org's keys: prefixes and states, never the keys themselves")
    .requiredOption('--org <slug>', 'org whose keys to list')
    .option('--json', 'machine-readable output')
    .action(run(async (opts: JsonOpt & { org: string }) => {
      const list = await withGateway((gw) =>
        allPages(async (cursor) => {
          const page = await gw.services.apiKeys.list({ org: opts.org, limit: 500, cursor });
          return { items: page.keys, next_cursor: page.next_cursor };
        }),
      );
      printList(opts, 'keys', list, (l) =>
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

  const settings = program.command('settings');
  settings
    .command('set <assignments...>')
    .description('set settings of an org: name=value ...')
    .addHelpText('after', settingsHelp())
    .requiredOption('--org <slug>', 'org to configure')
    .option('--json', 'machine-readable output')
    .action(run(async (assignments: string[], opts: JsonOpt & { org: string }) => {
      const result = await withGateway((gw) => gw.services.orgs.setSettings(opts.org, assignments));
      print(opts, result, (r) => Object.entries(r).map(([k, v]) => `${k}=${String(v)}`).join('\n'));
    }));
  settings
    .command('show')
    .description("an org's settings, defaults included")
    .requiredOption('--org <slug>', 'org to show')
    .option('--json', 'machine-readable output')
    .action(run(async (opts: JsonOpt & { org: string }) => {
      const result = await withGateway(async (gw) => gw.services.orgs.settings((await gw.services.orgs.bySlug(opts.org)).id));
      print(opts, result, (r) => Object.entries(r).map(([k, v]) => `${k}=${String(v)}`).join('\n'));
    }));
}
