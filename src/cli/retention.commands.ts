import type { Command } from 'commander';
import type { Gateway } from '../gateway.js';
import { print, progressLine, run, table, type OutputOptions } from './output.js';

type WithGateway = <T>(body: (gw: Gateway) => Promise<T>) => Promise<T>;

/** `retention purge`: one purge now, as every `serve` process runs on its interval (RETENTION_*). */
export function registerRetentionCommands(program: Command, withGateway: WithGateway): void {
  const retention = program.command('retention');
  retention
    .command('purge')
    .description('delete now what retention allows, RETENTION_BATCH_SIZE rows a statement; a purge cut short is finished by the next one')
    .option('--json', 'machine-readable output')
    .action(run(async (opts: OutputOptions) => {
      const progress = new Map<string, (n: number) => void>();
      const report = await withGateway((gw) =>
        gw.retention.runOnce((batch) => {
          const line = progress.get(batch.target) ?? progressLine(100_000, (n) => `${batch.target}: deleted ${n} rows so far`);
          progress.set(batch.target, line);
          line(batch.total);
        }),
      );
      print(opts, report, (r) => table(Object.entries(r).map(([target, v]) => ({ target, ...v })), ['target', 'deleted', 'batches']));
    }));
}
