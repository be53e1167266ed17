import Fastify from 'fastify';

// The baseline: bare Fastify answering {ok:true}, in its own process like the gateway.
const app = Fastify({ logger: false });
app.get('/', () => ({ ok: true }));
const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
process.stdout.write(`${address}\n`);
