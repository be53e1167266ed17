import type { OutputOptions } from './output.js';

/** Where a progress line goes: stderr, or a fake in tests (marked isTTY to stand for a terminal). */
export interface ProgressStream {
  isTTY?: boolean;
  write(chunk: string): boolean;
}

export interface ProgressState {
  done: number;
  /** Unknown for jobs that learn their size as they go. */
  total?: number;
  elapsedMs: number;
}

const count = (n: number): string => Math.round(n).toLocaleString('en-US');

function duration(ms: number): string {
  const s = Math.max(1, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** `label: 1,200/5,000 (24 %), 800/s, about 5 s left`: done/total, rate, and time left once there is a rate to go by. */
export function formatProgress(label: string, state: ProgressState): string {
  const { done, total, elapsedMs } = state;
  const parts = [total === undefined ? count(done) : `${count(done)}/${count(total)} (${total > 0 ? Math.floor((100 * done) / total) : 100} %)`];
  const perSecond = elapsedMs > 0 ? (done * 1000) / elapsedMs : 0;
  if (perSecond > 0) parts.push(`${count(perSecond)}/s`);
  if (perSecond > 0 && total !== undefined && total > done) parts.push(`about ${duration(((total - done) / perSecond) * 1000)} left`);
  return `${label}: ${parts.join(', ')}`;
}

/** Redrawn at most this often: a fast job would otherwise spend its time writing to the terminal. */
const REDRAW_MS = 100;

/** One line on a terminal, rewritten in place (`\r`); silent when disabled (not a terminal, or --json). */
export class ProgressLine {
  private readonly started = Date.now();
  private lastDraw = 0;
  private drawn = false;

  constructor(
    private readonly label: string,
    private readonly stream: ProgressStream,
    readonly enabled: boolean,
  ) {}

  update(done: number, total?: number): void {
    if (!this.enabled) return;
    const now = Date.now();
    if (now - this.lastDraw < REDRAW_MS && done !== total) return;
    this.lastDraw = now;
    this.stream.write(`\r${formatProgress(this.label, { done, elapsedMs: now - this.started, ...(total === undefined ? {} : { total }) })}\x1b[K`);
    this.drawn = true;
  }

  /** Clears the line, so the result (or an error) is printed on a clean one. */
  end(): void {
    if (this.drawn) this.stream.write('\r\x1b[K');
    this.drawn = false;
  }
}

/** Progress of a command's long job: on a terminal only, never with --json (stdout and stderr stay for the result). */
export function progressFor(label: string, opts: OutputOptions, stream: ProgressStream = process.stderr): ProgressLine {
  return new ProgressLine(label, stream, stream.isTTY === true && opts.json !== true);
}

/** A long job stopped by Ctrl-C at a step boundary; the message says how to pick it up again. */
export class Interrupted extends Error {}

/**
 * Runs a long job with a progress line; `tick(done, total)` draws it and is where a first Ctrl-C stops the job (the
 * job's work so far is kept: each step commits). A second Ctrl-C, for a step that takes too long, exits at once.
 */
export async function longJob<T>(
  label: string,
  opts: OutputOptions,
  resume: string,
  body: (tick: (done: number, total?: number) => void) => Promise<T>,
  stream: ProgressStream = process.stderr,
): Promise<T> {
  const line = progressFor(label, opts, stream);
  let asked = false;
  const onSigint = (): void => {
    if (asked) {
      line.end();
      stream.write(`interrupted: ${resume}\n`);
      process.exit(130);
    }
    asked = true;
  };
  process.on('SIGINT', onSigint);
  try {
    return await body((done, total) => {
      if (asked) throw new Interrupted(`interrupted: ${resume}`);
      line.update(done, total);
    });
  } finally {
    line.end();
    process.off('SIGINT', onSigint);
  }
}
