import type { FastifyReply } from 'fastify';

/**
 * The headers every answer carries (errors, 404s, 405s, replays included), set by the request frame before any hook:
 * the request id, `nosniff` so a browser never runs a JSON answer as script or HTML, and `no-store` so no cache keeps
 * what a key was shown. A route that means to be cached (the widget's script) sets its own Cache-Control, which
 * replaces this one.
 */
export function setFrameHeaders(reply: FastifyReply, requestId: string): void {
  void reply.header('x-request-id', requestId).header('x-content-type-options', 'nosniff').header('cache-control', 'no-store');
}
