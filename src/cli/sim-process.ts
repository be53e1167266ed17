import { InvalidArgumentError } from 'commander';

/** `--port` of a simulator command. */
export function portOf(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('expected a port number');
  return n;
}

/** A simulator run from the CLI stops cleanly on Ctrl-C or a service manager's TERM. */
export function closeOnSignal(sim: { close(): Promise<void> }): void {
  const stop = (): void => {
    void sim.close().finally(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
