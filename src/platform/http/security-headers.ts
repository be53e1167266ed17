import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

/**
 * onRequest hook, registered once at the root so every answer carries it (errors, 404s, 405s, replays included):
 * `nosniff` so a browser never runs a JSON answer as script or HTML, and `no-store` so no cache keeps what a key
 * was shown. A route that means to be cached (the widget's script) sets its own Cache-Control, which replaces this one.
 */
export function securityHeaders(_request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  void reply.header('x-content-type-options', 'nosniff').header('cache-control', 'no-store');
  done();
}
