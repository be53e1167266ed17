import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { print, run, type OutputOptions } from './output.js';

/** What to keep beside a backup: without the secret its vendor credentials and tokens cannot be decrypted. */
function secretNote(secretFile: string | null): string {
  return secretFile === null
    ? 'vendor credentials in it decrypt only with the GATEWAY_SECRET in use when it was taken'
    : `keep it with ${secretFile}: without that secret file its vendor credentials cannot be decrypted`;
}

/** `backup <file>` and `restore <file>`: the embedded SQLite database, online (docs/operations.md, "Backup and restore"). */
export function registerBackupCommands(program: Command): void {
  program
    .command('backup <file>')
    .description('copy the SQLite database to a new file (0600) while serve runs, through the SQLite online backup API')
    .option('--json', 'machine-readable output')
    .action(run(async (file: string, opts: OutputOptions) => {
      const config = loadConfig();
      const { backupDatabase } = await import('./sqlite-backup.js');
      const done = await backupDatabase(config.DATABASE_URL, config.GATEWAY_SECRET, file);
      print(opts, { file: done.file, database: done.database, pages: done.pages, secret_file: done.secretFile }, (v) =>
        `backed up ${v.database} to ${v.file} (${v.pages} pages); ${secretNote(v.secret_file)}`,
      );
    }));
  program
    .command('restore <file>')
    .description('put a backup in place of the SQLite database; refused while a serve process runs on it')
    .option('--json', 'machine-readable output')
    .action(run(async (file: string, opts: OutputOptions) => {
      const config = loadConfig();
      const { restoreDatabase } = await import('./sqlite-backup.js');
      const done = await restoreDatabase(config.DATABASE_URL, config.GATEWAY_SECRET, file, config.INSTANCE_TTL_MS);
      print(opts, { file: done.file, database: done.database, pages: done.pages, secret_file: done.secretFile }, (v) =>
        `restored ${v.file} to ${v.database} (${v.pages} pages); ${v.secret_file === null ? 'start serve with the GATEWAY_SECRET in use when the backup was taken' : `${v.secret_file} must be the secret file from when the backup was taken`}`,
      );
    }));
}
