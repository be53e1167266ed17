/**
 * Runs `work` with a signal that aborts (a TimeoutError, as AbortSignal.timeout's) once `ms` have passed, and stops the
 * clock when `work` settles. AbortSignal.timeout cannot be stopped: after every call, finished or not, its timer fires
 * and builds a DOMException with its stack (or a finalization registry clears it): ~17 µs a call measured, on every send.
 */
export async function withDeadline<T>(ms: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException(`The operation was aborted due to timeout after ${ms} ms`, 'TimeoutError')), ms);
  try {
    return await work(controller.signal);
  } finally {
    clearTimeout(timer);
  }
}
