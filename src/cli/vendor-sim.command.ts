import { type Command, InvalidArgumentError } from 'commander';
import { run, type OutputOptions } from './output.js';
import { closeOnSignal, portOf } from './sim-process.js';

function fleetSizeOf(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 10_000) throw new InvalidArgumentError('expected a whole number from 1 to 10000');
  return n;
}

/** `vendor-sim`: every telematics provider's API as one process, for demos and VENDOR_SIM_URL in development. */
export function registerVendorSimCommand(program: Command): void {
  program
    .command('vendor-sim')
    .option('--port <port>', 'port to listen on', portOf, 8091)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--fleet-size <n>', 'machines per provider', fleetSizeOf, 25)
    .option('--json', 'accepted for uniformity; the simulator prints one line when it listens')
    .action(run(async (opts: OutputOptions & { port: number; host: string; fleetSize: number }) => {
      const { runVendorSimCli } = await import('../sim/vendor-sim.js');
      const sim = await runVendorSimCli({ port: opts.port, host: opts.host, fleetSize: opts.fleetSize });
      closeOnSignal(sim);
    }));
}
