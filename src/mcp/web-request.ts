import type { FastifyReply, FastifyRequest } from 'fastify';

// Hop-by-hop and length headers describe the Node connection, not the re-wrapped body.
const SKIPPED = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'upgrade']);

/** The Fastify request as a web-standard Request for the SDK; aborted if the client goes away before the answer. */
export function toWebRequest(request: FastifyRequest, reply: FastifyReply, body: string | undefined): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || SKIPPED.has(name)) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const abort = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) abort.abort();
  });
  return new Request(new URL(request.url, `http://${request.host || 'localhost'}`), {
    method: request.method,
    headers,
    signal: abort.signal,
    ...(body === undefined ? {} : { body }),
  });
}

/** The body parsed as JSON, or undefined when it is absent or not JSON. */
export function parseJsonBody(body: string | undefined): unknown {
  if (body === undefined || body.length === 0) return undefined;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}
