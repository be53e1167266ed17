import { describe, expect, it } from 'vitest';
import { WorkLoop } from '../../src/platform/core/work-loop.js';
import { waitFor } from '../support/wait-for.js';

const LONG = 60_000;

describe('WorkLoop', () => {
  it('runs rounds back to back while they find work, then sleeps until woken', async () => {
    let rounds = 0;
    let work = 3;
    const loop = new WorkLoop(
      () => {
        rounds += 1;
        return Promise.resolve(work-- > 0);
      },
      { idleMs: LONG, onError: () => undefined },
    );
    loop.start();
    await waitFor(() => rounds === 4, { what: 'three working rounds and one idle one' });
    await new Promise((r) => setTimeout(r, 50));
    expect(rounds).toBe(4);
    loop.wake();
    await waitFor(() => rounds === 5, { what: 'the round after wake()' });
    await loop.stop();
  });

  it('stop() cuts the sleep short and waits for the round in flight; a stopping round can see it', async () => {
    let release!: () => void;
    let sawStopping: boolean | undefined;
    let started = 0;
    const loop = new WorkLoop(
      async () => {
        started += 1;
        await new Promise<void>((r) => (release = r));
        sawStopping = loop.stopping;
        return false;
      },
      { idleMs: LONG, onError: () => undefined },
    );
    expect(loop.stopping).toBe(false);
    loop.start();
    await waitFor(() => started === 1, { what: 'the first round' });
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(sawStopping).toBe(true);
    expect(started).toBe(1);
  });

  it('a round that throws is reported and followed by the idle wait, and the loop goes on', async () => {
    const errors: unknown[] = [];
    let rounds = 0;
    const loop = new WorkLoop(
      () => {
        rounds += 1;
        return rounds === 1 ? Promise.reject(new Error('database gone')) : Promise.resolve(false);
      },
      { idleMs: 10, onError: (err) => errors.push(err) },
    );
    loop.start();
    await waitFor(() => rounds >= 2, { what: 'a round after the failed one' });
    await loop.stop();
    expect(errors).toEqual([new Error('database gone')]);
  });
});
