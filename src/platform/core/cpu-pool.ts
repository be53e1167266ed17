import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Piscina } from 'piscina';
import { AppError } from './errors.js';
import { pace } from './pacer.js';

/** How long an idle worker thread stays: starting one costs its module loading, paid again after this. */
const IDLE_MS = 60_000;

export interface CpuPoolOptions {
  /** Worker threads at most (WORKER_THREADS). */
  threads: number;
  /** Tasks waiting for a thread at most (WORKER_QUEUE); one more is answered 503 with Retry-After. */
  queue: number;
}

/**
 * Worker threads for CPU-heavy pure work (X12 parse and validation), so one partner's large body never holds the
 * request thread. Threads start on first use: CLI commands that never run a task never start one.
 */
export class CpuPool {
  private readonly pool: Piscina;

  constructor(private readonly options: CpuPoolOptions) {
    this.pool = new Piscina({ minThreads: 0, maxThreads: options.threads, maxQueue: options.queue, idleTimeout: IDLE_MS });
  }

  /** Throws 503 with Retry-After when a task run now would find the queue full: check before work worth undoing. */
  admit(): void {
    if (this.pool.queueSize < this.options.queue || this.pool.threads.length < this.options.threads) return;
    const retryAfter = this.secondsToDrain();
    throw new AppError('unavailable', `the gateway is busy with other large requests; retry in ${retryAfter} s`, undefined, { 'retry-after': String(retryAfter) });
  }

  /** Runs the function `name` exported by the module `file` in a worker thread (503 when the queue is full). */
  run<T>(file: URL, name: string, task: unknown): Promise<T> {
    this.admit();
    return this.pool.run(task, { filename: compiled(file).href, name }) as Promise<T>;
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  /** Seconds until the queue ahead has likely run, from the tasks' mean run time (at least 1). */
  private secondsToDrain(): number {
    const meanMs = this.pool.histogram.runTime.mean;
    const ahead = (this.pool.queueSize + this.options.threads) / this.options.threads;
    return Math.max(1, Math.ceil((Number.isFinite(meanMs) ? meanMs : 1000) * ahead / 1000));
  }
}

/** Bytes copied into shared memory per step of sharedBytes. */
const SHARE_STEP = 256 * 1024;

/**
 * A copy of `bytes` in memory the worker threads share, made a slice at a time between yields. A task posted with it
 * is not copied again: posting a plain 6 MB Buffer copied it in one step of ~30 ms on the request thread.
 */
export async function sharedBytes(bytes: Uint8Array): Promise<Uint8Array> {
  if (bytes.buffer instanceof SharedArrayBuffer) return bytes; // a raw body is read into shared memory (shared-body.ts)
  const shared = new Uint8Array(new SharedArrayBuffer(bytes.byteLength));
  for (let at = 0; at < bytes.byteLength; at += SHARE_STEP) {
    shared.set(bytes.subarray(at, at + SHARE_STEP), at);
    await pace();
  }
  return shared;
}

/**
 * A worker thread runs JavaScript: from the sources (tests run them through a transform) the module's compiled twin
 * under dist/ is used, which `npm run build` (and the test scripts) keep current.
 */
export function compiled(file: URL): URL {
  const path = fileURLToPath(file);
  if (existsSync(path)) return file;
  const twin = path.replace(/\/src\//, '/dist/src/');
  if (twin !== path && existsSync(twin)) return pathToFileURL(twin);
  throw new Error(`worker module ${path} is not built; run npm run build`);
}
