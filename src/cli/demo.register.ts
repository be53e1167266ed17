import type { Command } from 'commander';
import type { DemoOptions } from './demo.command.js';
import { run } from './output.js';
import { portOf } from './sim-process.js';

/** `demo`: the gateway, the hub simulator and the vendor simulator in one process, with a demo org to try. */
export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .option('--port <port>', 'gateway port (0: any free one)', portOf, 8080)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--data-dir <dir>', 'data folder, wiped at start (only if an earlier demo made it)', './data/demo')
    .option('--json', 'print the keys and URLs as one JSON object instead of the banner')
    // Loaded on use: the demo pulls in the whole gateway and both simulators.
    .action(run(async (opts: DemoOptions) => (await import('./demo.command.js')).startDemo(opts)));
}
