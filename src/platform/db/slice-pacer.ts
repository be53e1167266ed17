import { setImmediate as yieldToOthers, setTimeout as sleep } from 'node:timers/promises';

/**
 * How a job that writes in slices (retention, `secrets rotate`, an object's rewrite) sizes them and waits between them.
 * On SQLite every slice holds the file's one write lock, which a serving process's requests wait for: each slice's size
 * follows its measured write time toward `targetMs`, so a slice holds the lock about that long whatever its rows cost
 * (indexes, row size, the machine's load), and the job then pauses as long as the slice took, so a writer in another
 * process (polling for the lock, see sqlite-group-commit.ts) gets in between any two slices. Without a target
 * (PostgreSQL, which locks rows, not the database) the size stays as given and the job only yields between slices.
 */
export interface SlicePacing {
  /** The write time one slice aims at, in ms; undefined: fixed size, no pause. */
  targetMs: number | undefined;
}

/** A slice's size changes at most this factor from one slice to the next: one odd measurement (a checkpoint, a stall) moves it little. */
const MAX_STEP = 2;

export class SlicePacer {
  private rows: number;

  constructor(
    private readonly pacing: SlicePacing,
    /** The first slice's size, and the largest. */
    private readonly maxRows: number,
    private readonly minRows = 1,
  ) {
    this.rows = maxRows;
  }

  /** Rows (or values) the next slice takes. */
  get size(): number {
    return this.rows;
  }

  /** After a slice whose write (its transaction) took `writeMs`: sizes the next one and waits before it. */
  async next(writeMs: number): Promise<void> {
    const target = this.pacing.targetMs;
    if (target === undefined) {
      await yieldToOthers();
      return;
    }
    const step = Math.min(MAX_STEP, Math.max(1 / MAX_STEP, target / Math.max(writeMs, 0.1)));
    this.rows = Math.min(this.maxRows, Math.max(this.minRows, Math.round(this.rows * step)));
    // As long as the slice held the lock: the job takes at most about half of the write lock's time.
    await sleep(Math.max(1, Math.round(writeMs)));
  }
}

/** The pacing for a database: a slice target on SQLite, none on PostgreSQL. */
export function slicePacing(dialect: 'sqlite' | 'postgres', targetMs: number): SlicePacing {
  return { targetMs: dialect === 'sqlite' ? targetMs : undefined };
}
