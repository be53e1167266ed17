import { pino } from 'pino';

/** What pino needs of a destination, and what serve's shutdown calls to write out what is left (cli/serve.ts). */
export interface LogSink {
  write(line: string): boolean;
  flush(cb: (err?: Error) => void): void;
  flushSync(): void;
}

/**
 * A buffered log destination for the access log: pino's sonic-boom (flushed on exit, EPIPE ends logging) in its buffer
 * mode, fed each line as a Buffer. In its default utf8 mode sonic-boom measures the bytes of its whole pending string on
 * every line, and joining to it makes V8 copy that string each time: ~2.2 µs a line measured, against ~0.9 µs here.
 */
export function bufferedLogSink(fd: number, opts: { minLength: number; periodicFlushMs: number }): LogSink {
  const boom = pino.destination({ dest: fd, sync: false, minLength: opts.minLength, periodicFlush: opts.periodicFlushMs, contentMode: 'buffer' });
  return {
    // Looked up on each call: on EPIPE pino replaces boom's methods with no-ops. sonic-boom's types know only its utf8 mode.
    write: (line) => boom.write(Buffer.from(line) as unknown as string),
    flush: (cb) => boom.flush(cb),
    flushSync: () => boom.flushSync(),
  };
}
