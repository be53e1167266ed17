import type { Command } from 'commander';
import type { Gateway } from '../gateway.js';
import { print, run, table, type OutputOptions } from './output.js';
import { longJob } from './progress.js';

/**
 * On SQLite a serving process shares the one write lock with this command, and its busy wait retries at growing
 * intervals (1, 2, 5, 10 ms...): back-to-back statements would keep it out (seconds, measured, every request stalled
 * behind its blocked write), while a pause this long after each statement lets it in at once.
 */
const PAUSE_FOR_OTHER_WRITERS_MS = 10;

type WithGateway = <T>(body: (gw: Gateway) => Promise<T>) => Promise<T>;

/** `retention purge`: one purge now, as every `serve` process runs on its interval (RETENTION_*). */
export function registerRetentionCommands(program: Command, withGateway: WithGateway): void {
  const retention = program.command('retention');
  retention
    .command('purge')
    .description('delete now what retention allows, RETENTION_BATCH_SIZE rows a statement; a purge cut short is finished by the next one')
    .option('--json', 'machine-readable output')
    .action(run(async (opts: OutputOptions) => {
      const deleted = new Map<string, number>();
      const report = await longJob('deleting rows', opts, 'what was deleted stays deleted; run `gateway retention purge` again for the rest', (tick) =>
        withGateway((gw) =>
          gw.retention.runOnce((batch) => {
            deleted.set(batch.target, batch.total);
            tick([...deleted.values()].reduce((a, b) => a + b, 0));
          }, gw.database.dialect === 'sqlite' ? PAUSE_FOR_OTHER_WRITERS_MS : 0),
        ),
      );
      print(opts, report, (r) => table(Object.entries(r).map(([target, v]) => ({ target, ...v })), ['target', 'deleted', 'batches']));
    }));
}
