import { Pool } from 'undici';
import { z } from 'zod';
import { systemClock, type Clock } from '../core/clock.js';
import { withDeadline } from '../core/deadline.js';

/** The gateway's side of the hub contract (DESIGN.md, "The hub contract"). */

export const HUB_MAX_BATCH = 500;
const MAX_RETRY_AFTER_MS = 10 * 60_000;
const REASON_SNIPPET_CHARS = 200;

export interface HubEvent {
  id: string;
  type: string;
  org_id: string;
  occurred_at: string;
  data: unknown;
}

type HubSendResult =
  | { kind: 'ok'; accepted: string[]; duplicates: string[]; rejected: { id: string; reason: string }[] }
  | { kind: 'retry'; reason: string; retryAfterMs?: number }
  | { kind: 'failed'; status: number; reason: string };

interface HubClientOptions {
  url: string;
  token?: string;
  timeoutMs: number;
  /** Used to turn an HTTP-date Retry-After into a delay. */
  clock?: Clock;
}

const responseSchema = z.object({
  accepted: z.array(z.string()),
  duplicates: z.array(z.string()),
  rejected: z.array(z.object({ id: z.string(), reason: z.string() })),
});

export class HubClient {
  private readonly pool: Pool;
  private readonly path: string;
  private readonly clock: Clock;

  constructor(private readonly opts: HubClientOptions) {
    const base = new URL(opts.url);
    // One keep-alive pool per client: the drain sends thousands of batches to the same origin.
    this.pool = new Pool(base.origin, { keepAliveTimeout: 30_000 });
    // HUB_URL may carry a path prefix in front of /v1/events.
    this.path = `${base.pathname.replace(/\/+$/, '')}/v1/events`;
    this.clock = opts.clock ?? systemClock;
  }

  /**
   * Posts one batch of events, each as its JSON text (a hub payload as the outbox stores it, hubDelivery's), spliced
   * into the body as is: no parse and serialize round trip per event. Network trouble comes back as a 'retry'
   * result, never as an exception.
   */
  async send(batchId: string, events: readonly string[], opts: { timeoutMs?: number } = {}): Promise<HubSendResult> {
    if (events.length === 0 || events.length > HUB_MAX_BATCH) {
      throw new RangeError(`a hub batch holds 1 to ${HUB_MAX_BATCH} events, got ${events.length}`);
    }
    const timeoutMs = opts.timeoutMs ?? this.opts.timeoutMs;
    const headers: Record<string, string> = { 'content-type': 'application/json', 'idempotency-key': batchId };
    // An empty HUB_TOKEN means no token, not an empty bearer.
    if (this.opts.token) headers.authorization = `Bearer ${this.opts.token}`;
    return withDeadline(timeoutMs, async (signal) => {
      try {
        const res = await this.pool.request({ method: 'POST', path: this.path, headers, body: `{"events":[${events.join(',')}]}`, signal });
        const text = await res.body.text();
        return this.classify(res.statusCode, res.headers['retry-after'], text);
      } catch (err) {
        if (signal.aborted) return { kind: 'retry', reason: `hub did not answer within ${timeoutMs} ms` };
        return { kind: 'retry', reason: `hub unreachable: ${describeError(err)}` };
      }
    });
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  private classify(status: number, retryAfter: string | string[] | undefined, text: string): HubSendResult {
    if (status >= 200 && status < 300) {
      const parsed = responseSchema.safeParse(parseJson(text));
      // The hub may have stored the batch; resending is safe because it deduplicates by event id.
      if (!parsed.success) return { kind: 'retry', reason: `hub answered ${status} with an unreadable body` };
      return { kind: 'ok', ...parsed.data };
    }
    const snippet = text.trim().slice(0, REASON_SNIPPET_CHARS);
    const reason = snippet === '' ? `hub answered ${status}` : `hub answered ${status}: ${snippet}`;
    if (status === 408 || status === 429 || status >= 500) {
      const retryAfterMs = parseRetryAfterMs(retryAfter, this.clock.now().getTime());
      return retryAfterMs === undefined ? { kind: 'retry', reason } : { kind: 'retry', reason, retryAfterMs };
    }
    return { kind: 'failed', status, reason };
  }
}

/** Retry-After in seconds or as an HTTP-date, as a delay from nowMs capped (10 minutes unless told); undefined when absent or unreadable. */
export function parseRetryAfterMs(value: string | string[] | undefined, nowMs: number, capMs = MAX_RETRY_AFTER_MS): number | undefined {
  const raw = (Array.isArray(value) ? value[0] : value)?.trim();
  if (raw === undefined || raw === '') return undefined;
  let delayMs: number;
  if (/^\d+$/.test(raw)) {
    delayMs = Number(raw) * 1000;
  } else {
    // An HTTP-date names its day or month; without that check Date.parse reads '-3' as a year.
    const at = /[a-z]/i.test(raw) ? Date.parse(raw) : Number.NaN;
    if (Number.isNaN(at)) return undefined;
    delayMs = at - nowMs;
  }
  return Math.min(Math.max(delayMs, 0), capMs);
}

/**
 * Delay before retry number `attempt` (1 for the first retry): exponential with full jitter, so a
 * fleet of workers that failed together does not retry together.
 */
export function backoffDelayMs(
  attempt: number,
  opts: { baseMs?: number; maxMs?: number; random?: () => number } = {},
): number {
  const baseMs = opts.baseMs ?? 1000;
  const maxMs = opts.maxMs ?? 5 * 60_000;
  const random = opts.random ?? Math.random;
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(Math.min(Math.max(random(), 0), 1) * ceiling);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = 'code' in err && typeof err.code === 'string' ? err.code : undefined;
  const cause = err.cause instanceof Error ? ` (${err.cause.message})` : '';
  return `${code === undefined ? '' : `${code} `}${err.message}${cause}`;
}
