import type { FastifyInstance } from 'fastify';

/** A page a person's browser lands on (an OAuth redirect back), answered with a small HTML page rather than JSON. */
export interface PageRoute {
  path: string;
  /** The OpenAPI tag it is listed under: its module's (set by the gateway). */
  tag?: string;
  summary: string;
  description: string;
  /** The query parameters it reads, with what each means (for the OpenAPI document). */
  query: Record<string, string>;
  /** Each status it can answer and what the page then says. */
  outcomes: Record<number, string>;
  render(query: Record<string, string | undefined>): Promise<PageAnswer>;
}

interface PageAnswer {
  status: number;
  title: string;
  message: string;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

function htmlPage(answer: PageAnswer): string {
  const title = escapeHtml(answer.title);
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${title}</title>`,
    '<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;line-height:1.5;color:#1b1b1b}</style>',
    `</head><body><main><h1>${title}</h1><p>${escapeHtml(answer.message)}</p></main></body></html>`,
  ].join('\n');
}

/** Headers of every page: no script, no framing, no caching, no referrer (the URL carried an authorization code). */
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

/** GET /: what answers here, and where its description, its docs and its health check are. */
export function registerHomePage(app: FastifyInstance, gateway: { name: string; version: string }): void {
  const name = escapeHtml(gateway.name);
  const page = [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${name} ${escapeHtml(gateway.version)}</title>`,
    '<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;line-height:1.5;color:#1b1b1b}</style>',
    `</head><body><main><h1>${name} <small>${escapeHtml(gateway.version)}</small></h1>`,
    '<p>The integration gateway of a tire and equipment platform: REST under <code>/v1</code>, MCP at <code>/mcp</code>, the dealer portal under <code>/api/portal/v1</code>.</p>',
    '<ul><li><a href="/docs">API reference</a> (/docs)</li><li><a href="/openapi.json">OpenAPI document</a> (/openapi.json)</li>',
    '<li><a href="/healthz">Health check</a> (/healthz)</li></ul></main></body></html>',
  ].join('\n');
  app.get('/', { schema: { hide: true } }, (_request, reply) => reply.headers({ ...PAGE_HEADERS, 'cache-control': 'no-cache' }).send(page));
}

/** Each query value as one string (a repeated parameter is refused by being ignored: only a single value counts). */
function singleValues(query: unknown): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries((query ?? {}) as Record<string, unknown>)) {
    if (typeof value === 'string' && value.length <= 2048) out[name] = value;
  }
  return out;
}

export function registerPages(app: FastifyInstance, pages: readonly PageRoute[]): void {
  for (const route of pages) {
    app.get(route.path, { schema: { hide: true } }, async (request, reply) => {
      const answer = await route.render(singleValues(request.query));
      return reply.status(answer.status).headers(PAGE_HEADERS).send(htmlPage(answer));
    });
  }
}

/** The pages as OpenAPI path items (written here, since they are no operations). */
export function pagePaths(pages: readonly PageRoute[]): Record<string, Record<string, unknown>> {
  return Object.fromEntries(
    pages.map((route) => [
      route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}'),
      {
        get: {
          operationId: route.path.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_|_$/g, ''),
          tags: [route.tag ?? 'other'],
          summary: route.summary,
          description: `${route.description}\n\nNo key: a browser lands here. Answers an HTML page, whatever the outcome.`,
          security: [],
          'x-mcp-absent': 'an HTML page a browser lands on, not an API call',
          parameters: Object.entries(route.query).map(([name, description]) => ({ name, in: 'query', required: false, description, schema: { type: 'string' } })),
          responses: Object.fromEntries(Object.entries(route.outcomes).map(([status, text]) => [status, { description: text, headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } }, content: { 'text/html': { schema: { type: 'string' } } } }])),
        },
      },
    ]),
  );
}
