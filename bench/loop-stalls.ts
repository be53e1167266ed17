import { createServer } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';

// Loaded into a `serve` process by the isolation bench (node --import): how long its event loop went without a turn.
// GET on BENCH_LOOP_STALLS_PORT answers the longest stall since the last GET, and starts counting again.

/** The timer the stalls are measured with (ms): a stall is the time between its ticks beyond this. */
const RESOLUTION_MS = 1;

export interface LoopStalls {
  /** The longest time the event loop went without a turn. */
  maxMs: number;
  /** Stalls of 99 % of the ticks were at most this long. */
  p99Ms: number;
}

const port = Number(process.env.BENCH_LOOP_STALLS_PORT);
if (Number.isInteger(port) && port > 0 && process.argv.includes('serve')) {
  const delays = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delays.enable();
  const stallMs = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
  const server = createServer((_request, response) => {
    const stalls: LoopStalls = { maxMs: stallMs(delays.max), p99Ms: stallMs(delays.percentile(99)) };
    delays.reset();
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify(stalls));
  });
  server.listen(port, '127.0.0.1');
  // Never what keeps the process alive: `serve` stops as it would without it.
  server.unref();
}
