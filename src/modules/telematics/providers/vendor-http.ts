import { Agent, errors, request } from 'undici';
import { withDeadline } from '../../../platform/core/deadline.js';
import type { ProviderEndpoint } from './adapter.js';
import { VendorAskedToWaitError, VendorDocumentInvalidError, VendorRejectedError, VendorUnavailableError } from './adapter.js';

/**
 * The one way adapters call a vendor: a per-call deadline, and every failure mapped to VendorRejectedError (the
 * vendor refused what the fleet gave us), VendorAskedToWaitError (429, 503, a 5xx with Retry-After) or
 * VendorUnavailableError (timeout, refused connection, other 5xx, garbage).
 * Messages name the provider and the status, never credentials, tokens or the vendor's body.
 */

const agent = new Agent({ keepAliveTimeout: 10_000, connect: { timeout: 10_000 } });

interface VendorRequest {
  method?: 'GET' | 'POST';
  /** Appended to endpoint.baseUrl. */
  path: string;
  /** Another base than endpoint.baseUrl for this call (a configured token URL's origin, the series host). */
  baseUrl?: string;
  headers?: Record<string, string>;
  /** Sent as application/x-www-form-urlencoded. */
  form?: Record<string, string>;
  json?: unknown;
  /** What the fleet owner reads when the vendor answers 401/403 or an OAuth grant/client error. */
  rejected: string;
}

interface VendorResponse {
  /** The URL's path, for messages. */
  path: string;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** OAuth errors that mean "these credentials or this grant are refused", not "the vendor is broken". */
const REFUSING_OAUTH_ERRORS = new Set(['invalid_grant', 'invalid_client', 'unauthorized_client', 'access_denied']);

function retryAfterSeconds(value: string | string[] | undefined): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  if (/^\d+$/.test(raw.trim())) return Number(raw.trim());
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

function oauthErrorOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as unknown;
    const error = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>).error : undefined;
    return typeof error === 'string' ? error : undefined;
  } catch {
    return undefined;
  }
}

function encodeBody(req: VendorRequest): { body?: string; contentType?: string } {
  if (req.form !== undefined) return { body: new URLSearchParams(req.form).toString(), contentType: 'application/x-www-form-urlencoded' };
  if (req.json !== undefined) return { body: JSON.stringify(req.json), contentType: 'application/json' };
  return {};
}

function urlOf(endpoint: ProviderEndpoint, req: VendorRequest): string {
  return `${(req.baseUrl ?? endpoint.baseUrl).replace(/\/+$/, '')}${req.path}`;
}

/** The URL's path, for messages: never its query (a token request carries none, but a vendor's URL might). */
const pathOf = (url: string): string => (URL.canParse(url) ? new URL(url).pathname : url);

function unreachable(providerId: string, endpoint: ProviderEndpoint, err: unknown, timedOut: boolean): VendorUnavailableError {
  if (timedOut || err instanceof errors.HeadersTimeoutError || err instanceof errors.BodyTimeoutError) {
    return new VendorUnavailableError(`${providerId} did not answer within ${endpoint.timeoutMs} ms`, 'timeout');
  }
  const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : 'network error';
  return new VendorUnavailableError(`${providerId} could not be reached (${code})`, 'failed');
}

/**
 * The error a non-2xx answer means; Retry-After is kept for 429 and every 5xx that says it. Any other 4xx names its
 * status and path: it is the request that is wrong (a page gone, a path misconfigured), which a retry will not mend.
 */
function failureOf(providerId: string, req: VendorRequest, url: string, response: VendorResponse): Error {
  const { status } = response;
  if (status === 401 || status === 403) return new VendorRejectedError(req.rejected);
  if (status === 400 && REFUSING_OAUTH_ERRORS.has(oauthErrorOf(response.body) ?? '')) return new VendorRejectedError(req.rejected);
  const wait = status === 429 || status >= 500 ? retryAfterSeconds(response.headers['retry-after']) : undefined;
  const at = pathOf(url);
  if (status === 429) return new VendorAskedToWaitError(`${providerId} is rate limiting the gateway (HTTP 429 at ${at})`, wait, status);
  if (status === 503) return new VendorAskedToWaitError(`${providerId} is unavailable (HTTP 503 at ${at})`, wait, status);
  const message = `${providerId} answered HTTP ${status} at ${at}`;
  return wait === undefined ? new VendorUnavailableError(message, 'failed', status) : new VendorAskedToWaitError(message, wait, status);
}

/** A 2xx answer with its whole body, or the error the caller should surface. */
export async function callVendor(providerId: string, endpoint: ProviderEndpoint, req: VendorRequest): Promise<VendorResponse> {
  const url = urlOf(endpoint, req);
  await endpoint.beforeCall?.({ method: req.method ?? 'GET', url });
  const { body, contentType } = encodeBody(req);
  // One deadline for connect, headers and body together: a vendor trickling bytes must not hold a fleet owner waiting.
  const response = await withDeadline(endpoint.timeoutMs, async (signal): Promise<VendorResponse> => {
    try {
      const res = await request(url, {
        method: req.method ?? 'GET',
        dispatcher: agent,
        headers: { ...(contentType ? { 'content-type': contentType } : {}), ...req.headers },
        body,
        signal,
      });
      return { path: pathOf(url), status: res.statusCode, headers: res.headers, body: await res.body.text() };
    } catch (err) {
      throw unreachable(providerId, endpoint, err, signal.aborted);
    }
  });
  if (response.status >= 200 && response.status < 300) return response;
  throw failureOf(providerId, req, url, response);
}

/** A 2xx answer whose body is read chunk by chunk. */
interface VendorStream {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Each wait for the next chunk has the endpoint's timeout (the caller's own work between chunks does not count); leaving the loop early closes the answer. */
  body: AsyncIterable<Uint8Array>;
}

/**
 * Like callVendor for answers too large to hold (an ISO fleet page of thousands of machines): the same errors, but the
 * deadline covers connect + headers, then each chunk, so a consumer that pauses to hand on batches is not timed out.
 */
export async function streamVendor(providerId: string, endpoint: ProviderEndpoint, req: VendorRequest): Promise<VendorStream> {
  const url = urlOf(endpoint, req);
  await endpoint.beforeCall?.({ method: req.method ?? 'GET', url });
  const { body, contentType } = encodeBody(req);
  const controller = new AbortController();
  let timer = setTimeout(() => controller.abort(), endpoint.timeoutMs);
  let res: Awaited<ReturnType<typeof request>>;
  try {
    res = await request(url, {
      method: req.method ?? 'GET',
      dispatcher: agent,
      headers: { ...(contentType ? { 'content-type': contentType } : {}), ...req.headers },
      body,
      signal: controller.signal,
    });
    if (res.statusCode < 200 || res.statusCode >= 300) {
      // Error answers are small: read whole, still under the first deadline, for the OAuth error and Retry-After.
      throw failureOf(providerId, req, url, { path: pathOf(url), status: res.statusCode, headers: res.headers, body: await res.body.text() });
    }
  } catch (err) {
    clearTimeout(timer);
    if (err instanceof VendorRejectedError || err instanceof VendorUnavailableError) throw err;
    throw unreachable(providerId, endpoint, err, controller.signal.aborted);
  }
  clearTimeout(timer);
  const answer = res;
  async function* chunks(): AsyncGenerator<Uint8Array> {
    const iterator = answer.body[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>;
    let done = false;
    try {
      while (!done) {
        timer = setTimeout(() => controller.abort(), endpoint.timeoutMs);
        let step: IteratorResult<Uint8Array>;
        try {
          step = await iterator.next();
        } catch (err) {
          throw unreachable(providerId, endpoint, err, controller.signal.aborted);
        } finally {
          clearTimeout(timer);
        }
        done = step.done === true;
        if (!done) yield step.value;
      }
    } finally {
      if (!done) answer.body.destroy();
    }
  }
  return { status: answer.statusCode, headers: answer.headers, body: chunks() };
}

/** The body as JSON; an unreadable answer is the vendor failing, not the fleet's fault. */
export function parseJson(providerId: string, res: VendorResponse): unknown {
  try {
    return JSON.parse(res.body) as unknown;
  } catch (err) {
    throw new VendorDocumentInvalidError(providerId, res.path, `not JSON (${err instanceof Error ? err.message : 'parse error'})`);
  }
}

/** A non-empty string property of a parsed JSON object. */
export function stringAt(value: unknown, key: string): string | undefined {
  const v = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return typeof v === 'string' && v !== '' ? v : undefined;
}
