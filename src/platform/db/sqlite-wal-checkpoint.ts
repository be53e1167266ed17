import { RequestThread } from '../core/request-thread.js';
import type { CheckpointThreadData } from './sqlite-checkpoint.worker.js';

/**
 * Runs `wal_checkpoint(PASSIVE)` in one long-lived worker thread with its own connection to the file: under a steady write
 * load a checkpoint copies a few thousand pages (8-19 ms measured, every 250 ms), which would otherwise hold the event
 * loop (docs/decisions.md, [16/20]).
 */
export class WalCheckpointThread {
  private readonly thread: RequestThread<object, null>;

  constructor(file: string) {
    this.thread = new RequestThread(new URL('./sqlite-checkpoint.worker.js', import.meta.url), { file } satisfies CheckpointThreadData, 'WAL checkpoint thread');
  }

  /** Resolves once the checkpoint has run; rejects when it could not (another process checkpointing, the thread lost). */
  async run(): Promise<void> {
    await this.thread.request({});
  }

  /** Closes the thread's connection and ends it. */
  close(): Promise<void> {
    return this.thread.close({ close: true });
  }
}
