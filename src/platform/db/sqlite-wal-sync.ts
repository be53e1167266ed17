import { closeSync, fdatasync, openSync } from 'node:fs';

/**
 * Makes what the write connection has committed durable off the event loop: an fdatasync of the -wal file on libuv's
 * thread pool. Linux flushes a file's dirty pages whichever descriptor wrote them, so a sync that starts after a COMMIT
 * returned (at `synchronous = NORMAL`, which writes the frames and leaves them unsynced) puts that commit on disk as
 * FULL's own sync inside COMMIT would, without holding the request thread for the disk (docs/decisions.md, [16/20]).
 */
export class WalSync {
  private fd: number | undefined;

  constructor(
    /** The database file's -wal file: SQLite keeps it (one inode) while any connection of ours is open. */
    private readonly walFile: string,
    /** The system call, replaceable by tests that need a sync to fail or take its time. */
    private readonly syncFile: (fd: number, done: (err: NodeJS.ErrnoException | null) => void) => void = fdatasync,
  ) {}

  /** Resolves once every frame written to the WAL before the call is on disk. */
  sync(): Promise<void> {
    // Opened at the first sync, after a COMMIT: the -wal file exists by then.
    this.fd ??= openSync(this.walFile, 'r');
    const fd = this.fd;
    return new Promise((resolve, reject) => this.syncFile(fd, (err) => (err ? reject(err) : resolve())));
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
