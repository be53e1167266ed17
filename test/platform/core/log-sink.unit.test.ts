import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bufferedLogSink } from '../../../src/platform/core/log-sink.js';

describe('the buffered log sink', () => {
  let dir: string;
  let file: string;
  let fd: number;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gw-log-sink-'));
    file = join(dir, 'log');
    fd = openSync(file, 'a');
  });
  afterEach(() => {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  });

  // Lines of one, two, three and four bytes a character, past several 4 KB writes, in the order written.
  const lines = Array.from({ length: 2_000 }, (_, i) => `{"n":${i},"msg":"${['plain', 'café', 'ok ✓', 'tyre 🛞'][i % 4]}"}\n`);

  it('writes every line, multi-byte characters whole, once flushed', async () => {
    const sink = bufferedLogSink(fd, { minLength: 4096, periodicFlushMs: 60_000 });
    for (const line of lines) sink.write(line);
    await new Promise<void>((resolve, reject) => sink.flush((err) => (err ? reject(err) : resolve())));
    expect(readFileSync(file, 'utf8')).toBe(lines.join(''));
  });

  it('keeps lines under its write size in memory until a flush, and flushSync writes them out (as on exit)', () => {
    const sink = bufferedLogSink(fd, { minLength: 4096, periodicFlushMs: 60_000 });
    sink.write(lines[1] ?? '');
    sink.write(lines[3] ?? '');
    expect(readFileSync(file, 'utf8')).toBe('');
    sink.flushSync();
    expect(readFileSync(file, 'utf8')).toBe(`${lines[1]}${lines[3]}`);
  });
});
