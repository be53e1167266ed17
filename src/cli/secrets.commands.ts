import type { Command } from 'commander';
import type { Gateway } from '../gateway.js';
import { print, run, table, type OutputOptions } from './output.js';
import { longJob } from './progress.js';

type WithGateway = <T>(body: (gw: Gateway) => Promise<T>) => Promise<T>;

/** `secrets rotate|status`: the vault's data keys (see platform/secrets/vault.ts for changing GATEWAY_SECRET itself). */
export function registerSecretsCommands(program: Command, withGateway: WithGateway): void {
  const secrets = program.command('secrets');
  secrets
    .command('rotate')
    .description('make a new data key current and re-encrypt every stored secret under it, in slices; running processes keep serving; a rotation cut short is resumed')
    .option('--json', 'machine-readable output')
    .action(run(async (opts: OutputOptions) => {
      const result = await longJob('re-encrypting values', opts, 'the new data key is current; run `gateway secrets rotate` again to re-encrypt the rest', (tick) =>
        withGateway((gw) => gw.vault.rotate(gw.encryptedColumns, (slice) => tick(slice.reencrypted))),
      );
      print(opts, { key_id: result.keyId, reencrypted: result.reencrypted, resumed: result.resumed }, (r) =>
        `data key ${r.key_id} is current${r.resumed ? ' (an unfinished rotation resumed)' : ''}; re-encrypted ${r.reencrypted} values under it`,
      );
    }));
  secrets
    .command('status')
    .description('the data keys, which is current, and how many values each encrypts')
    .option('--json', 'machine-readable output')
    .action(run(async (opts: OutputOptions) => {
      const { secretsStatus } = await import('../platform/secrets/status.js');
      const status = await withGateway((gw) => secretsStatus(gw.database.db, gw.encryptedColumns));
      print(opts, status, (s) =>
        table(s.keys.map((k) => ({ ...k, current: k.current ? 'yes' : '' })), ['id', 'current', 'values', 'kek_id', 'created_at', 'retired_at']),
      );
    }));
}
