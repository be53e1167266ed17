import type { Command } from 'commander';
import type { Gateway } from '../gateway.js';
import { print, run, table, type OutputOptions } from './output.js';
import { longJob } from './progress.js';

type WithGateway = <T>(body: (gw: Gateway) => Promise<T>) => Promise<T>;

/** `retention purge`: one purge now, as every `serve` process runs on its interval (RETENTION_*). */
export function registerRetentionCommands(program: Command, withGateway: WithGateway): void {
  const retention = program.command('retention');
  retention
    .command('purge')
    .description('delete now what retention allows, at most RETENTION_BATCH_SIZE rows a statement (on SQLite sized to SQLITE_SLICE_TARGET_MS, pausing between); a purge cut short is finished by the next one')
    .option('--json', 'machine-readable output')
    .action(run(async (opts: OutputOptions) => {
      const deleted = new Map<string, number>();
      const report = await longJob('deleting rows', opts, 'what was deleted stays deleted; run `gateway retention purge` again for the rest', (tick) =>
        withGateway((gw) =>
          gw.retention.runOnce((batch) => {
            deleted.set(batch.target, batch.total);
            tick([...deleted.values()].reduce((a, b) => a + b, 0));
          }),
        ),
      );
      print(opts, report, (r) => table(Object.entries(r).map(([target, v]) => ({ target, ...v })), ['target', 'deleted', 'batches']));
    }));
}
