/** Polls until `check` returns a value other than undefined/false, or fails after a bounded wait (an outcome, never a timing). */
export async function waitFor<T>(check: () => Promise<T | undefined | false> | T | undefined | false, opts: { timeoutMs?: number; intervalMs?: number; what?: string } = {}): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 20_000);
  let last: Error | undefined;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      last = err instanceof Error ? err : new Error(JSON.stringify(err));
    }
    if (Date.now() > deadline) {
      throw new Error(`gave up waiting for ${opts.what ?? 'a condition'}${last ? `: ${last.message}` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, opts.intervalMs ?? 25));
  }
}
