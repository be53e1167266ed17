import type { Command } from 'commander';
import { run, type OutputOptions } from './output.js';
import { closeOnSignal, portOf } from './sim-process.js';

/** `hub-sim`: the hub simulator as a process, for demos and for the gateway's HUB_URL in development. */
export function registerHubSimCommand(program: Command): void {
  program
    .command('hub-sim')
    .option('--port <port>', 'port to listen on', portOf, 8090)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--json', 'accepted for uniformity; the simulator prints one line when it listens')
    .action(run(async (opts: OutputOptions & { port: number; host: string }) => {
      const { runHubSimCli } = await import('../sim/hub-sim.js');
      const token = process.env.HUB_TOKEN;
      const sim = await runHubSimCli({ port: opts.port, host: opts.host, ...(token ? { token } : {}) });
      closeOnSignal(sim);
    }));
}
