import { afterEach, describe, expect, it, vi } from 'vitest';
import { run } from '../../src/cli/output.js';
import { formatProgress, longJob, progressFor, type ProgressStream } from '../../src/cli/progress.js';

/** A stream that records what is written; `isTTY` stands for a terminal. */
function fakeStream(isTTY: boolean): ProgressStream & { text: string } {
  const stream = { isTTY, text: '', write: (chunk: string) => ((stream.text += chunk), true) };
  return stream;
}

describe('the progress line', () => {
  afterEach(() => {
    process.exitCode = 0;
  });

  it('says done/total, the rate and the time left', () => {
    expect(formatProgress('migrating', { done: 1200, total: 5000, elapsedMs: 1500 })).toBe('migrating: 1,200/5,000 (24 %), 800/s, about 5 s left');
    expect(formatProgress('re-encrypting values', { done: 30_000, elapsedMs: 10_000 })).toBe('re-encrypting values: 30,000, 3,000/s');
    expect(formatProgress('rows', { done: 10, total: 1_000_000, elapsedMs: 1000 })).toBe('rows: 10/1,000,000 (0 %), 10/s, about 27 h 46 min left');
    expect(formatProgress('rows', { done: 0, total: 0, elapsedMs: 0 })).toBe('rows: 0/0 (100 %)');
    expect(formatProgress('rows', { done: 4, total: 4, elapsedMs: 2000 })).toBe('rows: 4/4 (100 %), 2/s');
  });

  it('rewrites one line in place on a terminal and clears it at the end', () => {
    const tty = fakeStream(true);
    const line = progressFor('migrating', {}, tty);
    line.update(3, 3);
    line.end();
    const erase = '\u001b[K';
    expect(tty.text.startsWith('\rmigrating: 3/3 (100 %)')).toBe(true);
    expect(tty.text.endsWith(`${erase}\r${erase}`)).toBe(true);
  });

  it('writes nothing when not a terminal, or with --json', () => {
    for (const [stream, opts] of [[fakeStream(false), {}], [fakeStream(true), { json: true }]] as const) {
      const line = progressFor('migrating', opts, stream);
      line.update(1, 2);
      line.update(2, 2);
      line.end();
      expect(stream.text).toBe('');
    }
  });

  it('stops a job at its next step on Ctrl-C and says how to resume (exit code 130)', async () => {
    const stderr = fakeStream(false);
    const errors = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => stderr.write(String(chunk)));
    let steps = 0;
    try {
      await run(async () => {
        await longJob('rows', {}, 'run `gateway objects define` again to finish', (tick) => {
          tick(1, 3);
          steps += 1;
          process.emit('SIGINT', 'SIGINT');
          tick(2, 3);
          steps += 1;
          return Promise.resolve();
        });
      })();
    } finally {
      errors.mockRestore();
    }
    expect(steps).toBe(1);
    expect(stderr.text).toBe('interrupted: run `gateway objects define` again to finish\n');
    expect(process.exitCode).toBe(130);
    expect(process.listenerCount('SIGINT')).toBe(0);
  });

  it('turns any failure into one line and exit code 1, its stack only with LOG_LEVEL=debug', async () => {
    const saved = process.env.LOG_LEVEL;
    const stderr = fakeStream(false);
    const errors = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => stderr.write(String(chunk)));
    try {
      process.env.LOG_LEVEL = 'info';
      await run(async () => Promise.reject(new TypeError('boom')))();
      expect(stderr.text).toBe('error: boom (LOG_LEVEL=debug shows where)\n');
      expect(process.exitCode).toBe(1);
      stderr.text = '';
      process.env.LOG_LEVEL = 'debug';
      await run(async () => Promise.reject(new TypeError('boom')))();
      expect(stderr.text.split('\n')[0]).toBe('error: boom (LOG_LEVEL=debug shows where)');
      expect(stderr.text).toMatch(/TypeError: boom\n\s+at /);
    } finally {
      errors.mockRestore();
      if (saved === undefined) delete process.env.LOG_LEVEL;
      else process.env.LOG_LEVEL = saved;
    }
  });
});
