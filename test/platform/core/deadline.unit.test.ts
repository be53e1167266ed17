import { afterEach, describe, expect, it, vi } from 'vitest';
import { withDeadline } from '../../../src/platform/core/deadline.js';

describe('withDeadline', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('aborts the signal with a TimeoutError once the time has passed', async () => {
    vi.useFakeTimers();
    const seen = withDeadline(1_000, (signal) => new Promise<unknown>((resolve) => signal.addEventListener('abort', () => resolve(signal.reason))));
    await vi.advanceTimersByTimeAsync(999);
    await vi.advanceTimersByTimeAsync(1);
    const reason = await seen;
    expect(reason).toBeInstanceOf(DOMException);
    expect((reason as DOMException).name).toBe('TimeoutError');
  });

  it('stops the clock when the work settles: nothing aborts later and no timer is left', async () => {
    vi.useFakeTimers();
    let signal: AbortSignal | undefined;
    await expect(withDeadline(1_000, (s) => ((signal = s), Promise.resolve('answer')))).resolves.toBe('answer');
    await expect(withDeadline(1_000, () => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(signal?.aborted).toBe(false);
  });
});
