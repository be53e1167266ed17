import { performance } from 'node:perf_hooks';
import { Agent } from 'undici';
import { withDeadline } from '../../platform/core/deadline.js';
import { parseRetryAfterMs } from '../../platform/outbox/hub-client.js';
import { type TargetPolicy, UnsafeTarget } from './safe-target.js';
import { signedHeaders } from './signature.js';

/**
 * One attempt's HTTP side: resolve and check the target, sign, POST, read a capped answer, judge it. Pure of the
 * database, so it runs the same on the request thread and in the send thread (send-thread.worker.ts).
 */

/** What is read of a receiver's answer; the rest is dropped. */
const RESPONSE_CAP_BYTES = 64 * 1024;
const SNIPPET_CHARS = 500;

/** One delivery to POST: the endpoint's URL, the event (its id is the webhook-id) and the endpoint's HMAC keys. */
export interface PostJob {
  url: string;
  eventId: string;
  body: string;
  keys: readonly Uint8Array[];
  /** The attempt's time on the gateway's clock: the signature's timestamp and the base of a Retry-After date. */
  nowMs: number;
}

/** How the receiver took one attempt. */
export type Judged =
  | { kind: 'delivered'; statusCode: number; snippet: string }
  | { kind: 'retry' | 'rejected'; reason: string; statusCode: number | null; snippet: string | null; retryAfterMs?: number };

export type PostResult = Judged & { durationMs: number };

export interface PostLimits {
  timeoutMs: number;
  retryAfterMaxMs: number;
}

/** The sending's undici Agent: pooled keep-alive sockets, each socket's address checked as it connects; no redirects (undici's request never follows them). */
export function webhookAgent(policy: TargetPolicy): Agent {
  return new Agent({ keepAliveTimeout: 30_000, connect: { lookup: policy.connectLookup() } });
}

/** Reads up to the cap of a response body, then stops reading. */
async function readCapped(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= RESPONSE_CAP_BYTES) break;
  }
  return Buffer.concat(chunks).subarray(0, RESPONSE_CAP_BYTES).toString('utf8');
}

/** Settles as `work` does, or rejects when `signal` aborts first (a DNS look-up that never answers). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** One attempt: WEBHOOK_TIMEOUT_MS bounds all of it, the target's look-up included. */
export async function postWebhook(agent: Agent, policy: TargetPolicy, job: PostJob, limits: PostLimits): Promise<PostResult> {
  const started = performance.now();
  const result = await attempt(agent, policy, job, limits);
  return { ...result, durationMs: Math.round(performance.now() - started) };
}

function attempt(agent: Agent, policy: TargetPolicy, job: PostJob, limits: PostLimits): Promise<Judged> {
  return withDeadline(limits.timeoutMs, (signal) => attemptWithin(agent, policy, job, limits, signal));
}

async function attemptWithin(agent: Agent, policy: TargetPolicy, job: PostJob, { timeoutMs, retryAfterMaxMs }: PostLimits, signal: AbortSignal): Promise<Judged> {
  const late = { kind: 'retry', reason: `endpoint did not answer within ${timeoutMs} ms`, statusCode: null, snippet: null } as const;
  let target: URL;
  try {
    ({ url: target } = await untilAborted(policy.resolve(job.url), signal));
  } catch (err) {
    if (err instanceof UnsafeTarget) return { kind: 'rejected', reason: `unsafe target: ${err.message}`, statusCode: null, snippet: null };
    if (signal.aborted) return late;
    throw err;
  }
  try {
    const res = await agent.request({
      origin: target.origin,
      path: `${target.pathname}${target.search}`,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'tire-gateway-webhooks', ...signedHeaders(job.keys, job.eventId, new Date(job.nowMs), job.body) },
      body: job.body,
      signal,
    });
    const snippet = (await readCapped(res.body)).trim().slice(0, SNIPPET_CHARS);
    const { statusCode } = res;
    if (statusCode >= 200 && statusCode < 300) return { kind: 'delivered', statusCode, snippet };
    const reason = `endpoint answered ${statusCode}`;
    const transient = statusCode === 408 || statusCode === 429 || statusCode >= 500;
    if (!transient) return { kind: 'rejected', reason, statusCode, snippet };
    const retryAfterMs = parseRetryAfterMs(res.headers['retry-after'], job.nowMs, retryAfterMaxMs);
    return { kind: 'retry', reason, statusCode, snippet, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
  } catch (err) {
    if (signal.aborted) return late;
    const cause = err instanceof Error && err.cause instanceof UnsafeTarget ? err.cause : err;
    if (cause instanceof UnsafeTarget) return { kind: 'rejected', reason: `unsafe target: ${cause.message}`, statusCode: null, snippet: null };
    return { kind: 'retry', reason: `endpoint unreachable: ${err instanceof Error ? err.message : String(err)}`, statusCode: null, snippet: null };
  }
}
