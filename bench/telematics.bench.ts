import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startVendorSim } from '../src/sim/vendor-sim.js';

const run = promisify(execFile);
const child = fileURLToPath(new URL('./telematics-gateway.child.js', import.meta.url));
const DAY_MS = 24 * 3_600_000;

export interface PollReport {
  connections: number;
  connectMs: number;
  elapsedMs: number;
  polls: number;
  failed: number;
  byProvider: Record<string, number>;
  events: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  rssBefore: number;
  rssAfter: number;
  peakRss: number;
  samples: { s: number; rss: number; polled: number }[];
}

export interface ReplayReport {
  events: number;
  outbox: number;
  elapsedMs: number;
  rssBefore: number;
  peakBefore: number;
  peakRss: number;
  rssAfter: number;
  samples: { s: number; rss: number; peakRss: number; events: number }[];
}

export interface ReplayRun extends ReplayReport {
  machines: number;
  days: number;
  requests: number;
  /** `--max-old-space-size` the child ran with; undefined: V8's own limit for this machine. */
  heapMb?: number;
}

/** The heap limit docs/operations.md recommends for a gateway process (V8's own grows garbage to ~4x the live heap first). */
export const RECOMMENDED_HEAP_MB = 256;

export interface TelematicsBench {
  providers: string[];
  fleetSize: number;
  pageSize: number;
  windowSec: number;
  poll: PollReport & { simRequests: number };
  /** The same poll run with the heap limit docs/operations.md recommends (RECOMMENDED_HEAP_MB). */
  pollCapped: PollReport;
  /** All the fleet's machines over a short window (V8's heap limit, then the recommended one), then a few machines over the full 31 days. */
  replays: ReplayRun[];
  replayPageSize: number;
}

async function inChild<T>(args: string[], nodeFlags: string[] = []): Promise<T> {
  const { stdout } = await run(process.execPath, [...nodeFlags, '--expose-gc', child, ...args], { maxBuffer: 64 << 20 });
  return JSON.parse(stdout) as T;
}

/** One replay child against a simulator of `machines` machines (run in this process, so its memory is not the child's). */
async function replayRun(machines: number, days: number, pageSize: number, provider: string, heapMb?: number): Promise<ReplayRun> {
  const sim = await startVendorSim({ fleetSize: machines, pageSize });
  try {
    // The window ends an hour ago on the hour, so `to` is never in the gateway's future.
    const to = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000);
    const from = new Date(to.getTime() - days * DAY_MS);
    const flags = heapMb === undefined ? [] : [`--max-old-space-size=${heapMb}`];
    const r = await inChild<ReplayReport>(['replay', sim.url, from.toISOString(), to.toISOString(), provider], flags);
    return { ...r, machines, days, requests: sim.requests(provider).length, ...(heapMb === undefined ? {} : { heapMb }) };
  } finally {
    await sim.close();
  }
}

/**
 * The poller of one gateway process against the vendor simulator (in this process), then peak RSS of ISO replays:
 * every machine of a 2,000-machine fleet over a short window, and a few machines over the full 31 days.
 */
export async function benchTelematics(
  options: { connections?: number; windowSec?: number; fleetSize?: number; pageSize?: number; replayMachines?: number; replayHours?: number; replayPageSize?: number; fullWindowMachines?: number } = {},
): Promise<TelematicsBench> {
  const {
    connections = 1000,
    windowSec = 60,
    fleetSize = 50,
    pageSize = 25,
    replayMachines = 2000,
    replayHours = 6,
    replayPageSize = 100,
    fullWindowMachines = 20,
  } = options;
  const providers = ['vendor1_livelink', 'vendor2_machineiq', 'vendor6_lida', 'vendor13', 'vendor15'];
  const sim = await startVendorSim({ fleetSize, pageSize });
  let poll: TelematicsBench['poll'];
  let pollCapped: PollReport;
  try {
    const args = ['poll', sim.url, String(connections), String(windowSec), providers.join(',')];
    const r = await inChild<PollReport>(args);
    poll = { ...r, simRequests: sim.requests().length };
    pollCapped = await inChild<PollReport>(args, [`--max-old-space-size=${RECOMMENDED_HEAP_MB}`]);
  } finally {
    await sim.close();
  }
  const replays = [
    await replayRun(replayMachines, replayHours / 24, replayPageSize, 'vendor1_livelink'),
    await replayRun(replayMachines, replayHours / 24, replayPageSize, 'vendor1_livelink', RECOMMENDED_HEAP_MB),
    await replayRun(fullWindowMachines, 31, replayPageSize, 'vendor1_livelink', RECOMMENDED_HEAP_MB),
  ];
  return { providers, fleetSize, pageSize, windowSec, poll, pollCapped, replays, replayPageSize };
}

export interface SyncPollsReport {
  connections: number;
  intervalS: number;
  elapsedMs: number;
  /** Regular polls that had a due time (every poll but each connection's first). */
  polls: number;
  failedPolls: number;
  lateP50Ms: number;
  lateP99Ms: number;
  lateMaxMs: number;
  sync: { status: string; machinesDone: number; machinesTotal: number; slicesDone: number; events: number };
  peakRss: number;
  syncRequests: number;
  pollRequests: number;
}

/**
 * A 31-day replay of 2,000 ISO machines as a background sync while `connections` other connections are polled every
 * `intervalS`, for `windowSec`: how late the regular polls start, and how far the sync gets meanwhile.
 */
export async function benchSyncPolls(options: { machines?: number; connections?: number; intervalS?: number; windowSec?: number } = {}): Promise<SyncPollsReport> {
  const { machines = 2000, connections = 100, intervalS = 60, windowSec = 300 } = options;
  const syncSim = await startVendorSim({ fleetSize: machines, pageSize: 100 });
  const pollSim = await startVendorSim({ fleetSize: 50, pageSize: 25 });
  try {
    const to = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000);
    const from = new Date(to.getTime() - 31 * DAY_MS);
    const args = ['syncpolls', syncSim.url, pollSim.url, from.toISOString(), to.toISOString(), String(connections), String(intervalS), String(windowSec)];
    const r = await inChild<Omit<SyncPollsReport, 'syncRequests' | 'pollRequests'>>(args, [`--max-old-space-size=${RECOMMENDED_HEAP_MB}`]);
    return { ...r, syncRequests: syncSim.requests().length, pollRequests: pollSim.requests().length };
  } finally {
    await syncSim.close();
    await pollSim.close();
  }
}

/** The figure itself: 2,000 machines over the full 31 days (about an hour on this machine, so run on request). */
export function benchFullReplay(heapMb: number = RECOMMENDED_HEAP_MB): Promise<ReplayRun> {
  return replayRun(2000, 31, 100, 'vendor1_livelink', heapMb);
}
