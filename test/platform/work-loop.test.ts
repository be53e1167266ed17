import { describe, expect, it, vi } from 'vitest';
import { SlotLoop, WorkLoop } from '../../src/platform/core/work-loop.js';
import { waitFor } from '../support/wait-for.js';

const LONG = 60_000;

describe('WorkLoop', () => {
  it('runs rounds back to back while they find work, then sleeps idleMs unless woken', async () => {
    // The loop sleeps on setTimeout: the test's fake timers are its clock, so no real time passes.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
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
      await vi.advanceTimersByTimeAsync(LONG - 1);
      expect(rounds, 'three working rounds and one idle one, then nothing until the idle wait is over').toBe(4);
      loop.wake();
      await vi.advanceTimersByTimeAsync(0);
      expect(rounds, 'the round after wake()').toBe(5);
      await vi.advanceTimersByTimeAsync(LONG);
      expect(rounds, 'the round after a whole idle wait').toBe(6);
      await loop.stop();
    } finally {
      vi.useRealTimers();
    }
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
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const stopping = loop.stop().then(() => (stopped = true));
    try {
      // Every timer and callback that could end stop() has run: only the end of the round in flight can.
      await vi.runAllTimersAsync();
      expect(stopped).toBe(false);
    } finally {
      vi.useRealTimers();
    }
    release();
    await stopping;
    expect(sawStopping).toBe(true);
    expect(started).toBe(1);
  });

  it('a wake() that comes while a round runs is not lost: the next round starts without the idle wait', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      let rounds = 0;
      const loop: WorkLoop = new WorkLoop(
        () => {
          rounds += 1;
          // The first round finds nothing, and meanwhile (after it looked) work arrives and wakes the loop.
          if (rounds === 1) loop.wake();
          return Promise.resolve(false);
        },
        { idleMs: LONG, onError: () => undefined },
      );
      loop.start();
      await vi.advanceTimersByTimeAsync(LONG - 1);
      expect(rounds, 'the woken round, then the idle wait').toBe(2);
      await loop.stop();
    } finally {
      vi.useRealTimers();
    }
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

describe('SlotLoop', () => {
  it('claims only into free slots, claims again as soon as an item settles, and stop() waits for the items in flight', async () => {
    const finish = new Map<string, () => void>();
    const claimedWith: number[] = [];
    let next = 0;
    let queued = 5;
    const slots: SlotLoop = new SlotLoop(
      2,
      () => {
        const free = slots.free;
        claimedWith.push(free);
        let started = 0;
        for (; started < free && queued > 0; started++, queued--) {
          const id = `item-${next++}`;
          slots.hold(id, new Promise<void>((resolve) => finish.set(id, resolve)));
        }
        return Promise.resolve(started);
      },
      { idleMs: LONG, onError: () => undefined },
    );
    slots.start();
    await waitFor(() => finish.size === 2, { what: 'the first two items' });
    expect(slots.free, 'both slots held').toBe(0);
    // The idle wait is a minute long: only a settled item's wake-up can start the next claim this soon.
    finish.get('item-0')?.();
    await waitFor(() => finish.size === 3, { what: 'a third item claimed into the freed slot' });
    // Two claimed; a round with no slot free (then the idle wait); item-0's end woke a round that saw one free.
    expect(claimedWith.slice(0, 3)).toEqual([2, 0, 1]);
    expect(slots.free).toBe(0);

    let stopped = false;
    const stopping = slots.stop().then(() => (stopped = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(stopped, 'stop() waits for item-1 and item-2').toBe(false);
    finish.get('item-1')?.();
    finish.get('item-2')?.();
    await stopping;
    expect(slots.free).toBe(2);
    expect(finish.size, 'no claim after stop()').toBe(3);
  });
});
