import { readFileSync } from 'node:fs';
import { Command, Help, type Option } from 'commander';
import { withGateway, type WithGateway } from './with-gateway.js';

type Register = (program: Command, withGateway: WithGateway) => void;

/**
 * The top-level commands, each with its description and the module that declares it and its subcommands. Only the
 * module of the command being run is imported (a dynamic import), so `--help` and every command start at once.
 */
const GROUPS: { commands: Record<string, string>; load: () => Promise<Register> }[] = [
  {
    commands: {
      serve: 'serve the gateway (HTTP and background workers); migrates first',
      migrate: 'apply database migrations (creates a new SQLite database and its folder if needed)',
      orgs: 'organisations',
      keys: 'API keys of an org',
      settings: 'per-org settings',
    },
    load: async () => (await import('./core.commands.js')).registerCoreCommands,
  },
  { commands: { objects: 'operator-defined dynamic objects' }, load: async () => (await import('./objects.commands.js')).registerObjectsCommands },
  { commands: { partners: 'EDI trading partners of an org' }, load: async () => (await import('./partners.commands.js')).registerPartnersCommands },
  { commands: { 'portal-keys': "dealer sites' browser-safe keys for /api/portal/v1" }, load: async () => (await import('./portal-keys.commands.js')).registerPortalKeysCommands },
  { commands: { audit: 'the trail of operator actions: orgs created, keys and tokens issued, revoked, rotated' }, load: async () => (await import('./audit.commands.js')).registerAuditCommands },
  {
    commands: { 'connect-tokens': 'single-use tokens for POST /connect (15 minutes)', connections: "an organisation's linked telematics accounts" },
    load: async () => (await import('./telematics.commands.js')).registerTelematicsCommands,
  },
  { commands: { deliveries: 'hub deliveries waiting in, or rejected from, the outbox' }, load: async () => (await import('./deliveries.commands.js')).registerDeliveriesCommands },
  { commands: { webhooks: "an org's webhook endpoints and their deliveries" }, load: async () => (await import('./webhooks.commands.js')).registerWebhooksCommands },
  { commands: { secrets: 'the keys that encrypt credentials and tokens at rest' }, load: async () => (await import('./secrets.commands.js')).registerSecretsCommands },
  {
    commands: { retention: 'what is deleted once kept long enough (delivered outbox rows, expired idempotency records)' },
    load: async () => (await import('./retention.commands.js')).registerRetentionCommands,
  },
  {
    commands: { backup: 'an online copy of the SQLite database while serve runs', restore: 'put a SQLite backup back (refused while a serve runs on it)' },
    load: async () => (await import('./backup.commands.js')).registerBackupCommands,
  },
  {
    commands: { 'hub-sim': 'run the hub simulator (checks Authorization: Bearer $HUB_TOKEN when HUB_TOKEN is set)' },
    load: async () => (await import('./hub-sim.command.js')).registerHubSimCommand,
  },
  {
    commands: { 'vendor-sim': 'run the telematics vendor simulator (each provider under /<provider id>/; refuses only wrong-password and wrong-key)' },
    load: async () => (await import('./vendor-sim.command.js')).registerVendorSimCommand,
  },
  {
    commands: { demo: 'run the gateway with the hub and vendor simulators and a seeded demo org; prints a key and curl commands' },
    load: async () => (await import('./demo.register.js')).registerDemoCommand,
  },
];

/** The package's version, read from package.json next to src/ (and next to dist/src/ once built). */
function packageVersion(): string {
  for (const path of ['../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'tire-gateway' && pkg.version) return pkg.version;
    } catch {
      // Not at this depth: the other one.
    }
  }
  return 'unknown';
}

/** Commander marks nothing in help for a `requiredOption`; every command inherits this, so each says it. */
const helpMarkingRequired = {
  optionDescription(this: Help, option: Option): string {
    const text = Help.prototype.optionDescription.call(this, option);
    return option.mandatory ? `${text} (required)` : text;
  },
};

function newProgram(): Command {
  return new Command()
    .configureHelp(helpMarkingRequired)
    .name('gateway')
    .description('Integration gateway of the tire and equipment platform')
    .version(packageVersion(), '-V, --version', 'print the version')
    .showHelpAfterError('(add --help for usage)');
}

/** Registers a group's commands and gives each top-level one its description from the table above. */
async function addGroup(program: Command, group: (typeof GROUPS)[number]): Promise<void> {
  (await group.load())(program, withGateway);
  for (const command of program.commands) {
    const description = group.commands[command.name()];
    if (description !== undefined) command.description(description);
  }
}

/**
 * The program for one run: the group of the command named in `argv` in full, every other top-level command only by
 * name and description (enough for `gateway --help`).
 */
export async function buildProgram(argv: readonly string[]): Promise<Command> {
  const program = newProgram();
  // `gateway keys ...` and `gateway help keys` name the command in the first two words.
  const named = new Set(argv.slice(2).filter((a) => !a.startsWith('-')).slice(0, 2));
  for (const group of GROUPS) {
    if (Object.keys(group.commands).some((c) => named.has(c))) await addGroup(program, group);
    else for (const [name, description] of Object.entries(group.commands)) program.command(name).description(description);
  }
  return program;
}

/** Every command in full (tests that walk the tree or run commands in process). */
export async function registerAllCommands(program: Command = newProgram()): Promise<Command> {
  for (const group of GROUPS) await addGroup(program, group);
  return program;
}
