import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import type { ThreadReply, ThreadRequest } from '../core/request-thread.js';

// Runs in the checkpoint thread (sqlite-wal-checkpoint.ts): copies the WAL back into the database file on a connection
// of its own, so the copy (several ms under load) never holds the request thread.

export interface CheckpointThreadData {
  /** The database file, already in WAL mode (the serving process's write connection made it so). */
  file: string;
}

const port = parentPort;
if (port === null) throw new Error('sqlite-checkpoint.worker.ts runs only as a worker thread');
const { file } = workerData as CheckpointThreadData;
const db = new SQLite(file, { fileMustExist: true });
// Another process checkpointing answers SQLITE_BUSY at once: the next checkpoint is due soon.
db.pragma('busy_timeout = 0');

port.on('message', (request: ThreadRequest<object> | { close: true }) => {
  if ('close' in request) {
    db.close();
    port.close();
    return;
  }
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
    port.postMessage({ seq: request.seq, result: null } satisfies ThreadReply<null>);
  } catch (err) {
    port.postMessage({ seq: request.seq, error: err instanceof Error ? err.message : String(err) } satisfies ThreadReply<null>);
  }
});
