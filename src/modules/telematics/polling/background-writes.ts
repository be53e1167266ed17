import type { YieldToRequests } from '../../../platform/core/yield-to-requests.js';
import type { Db, Tx } from '../../../platform/db/schema.js';

/** Rows one transaction takes: `idle` with no request in flight lately, `busy` (fewer, a shorter hold of the write lock) under load. */
export interface ChunkSizes {
  idle: number;
  busy: number;
}

/** How a poll or a sync writes: its chunk sizes follow the load, and each transaction is a round of its budget when it yields. */
export class BackgroundWrites {
  constructor(
    private readonly db: Db,
    private readonly yields: YieldToRequests,
    /** False for work a request waits on (a manual poll): its transactions run at once, still in small chunks. */
    private readonly paced = true,
  ) {}

  /** Rows the next transaction takes. */
  size(sizes: ChunkSizes): number {
    return this.yields.underLoad ? sizes.busy : sizes.idle;
  }

  /** One transaction: a round of the budget when paced, else at once. */
  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    const run = () => this.db.transaction().execute(work);
    return this.paced ? this.yields.run(run) : run();
  }
}
