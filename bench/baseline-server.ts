import Fastify from 'fastify';

// The baseline: bare Fastify answering {ok:true}, in its own process like the gateway.
const app = Fastify({ logger: false });
app.get('/', () => ({ ok: true }));

/**
 * The same answer after `us` microseconds of busy CPU work: what any work per request costs this machine's bare
 * Fastify, so a ratio goal reads as a budget of microseconds (docs/benchmarks.md, "work budget").
 */
app.get<{ Params: { us: string } }>('/work/:us', (request) => {
  const until = performance.now() + Number(request.params.us) / 1000;
  while (performance.now() < until);
  return { ok: true };
});

const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
process.stdout.write(`${address}\n`);
