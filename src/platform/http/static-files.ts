import type { FastifyInstance } from 'fastify';

/** A file the gateway serves as is to a browser (the portal widget's script, its demo page), read once at start-up. */
export interface StaticFile {
  path: string;
  body: string;
  /** Content type, caching, CSP: each file says its own; an `etag` makes a matching If-None-Match a 304. */
  headers: Record<string, string>;
}

/** GET (and HEAD) routes for modules' files, kept out of the OpenAPI document: they are files, not API calls. */
export function registerStaticFiles(app: FastifyInstance, files: readonly StaticFile[]): void {
  for (const file of files) {
    app.get(file.path, { schema: { hide: true } }, (request, reply) => {
      void reply.headers(file.headers);
      if (file.headers.etag !== undefined && request.headers['if-none-match'] === file.headers.etag) return reply.status(304).send();
      return reply.send(file.body);
    });
  }
}
