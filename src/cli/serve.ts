import type { Config } from '../config.js';
import { buildApp } from '../app.js';
import { createGateway } from '../gateway.js';

/** The access log is buffered (see app.ts): write out what is left before the process ends. */
function flushLogs(log: unknown, done: () => void): void {
  const flush = (log as { flush?: (cb: (err?: Error) => void) => void }).flush;
  if (typeof flush === 'function') flush.call(log, () => done());
  else done();
}

/** Serves HTTP and runs the delivery worker until SIGINT/SIGTERM, then drains in-flight requests and closes the database. */
export async function serve(config: Config): Promise<void> {
  const gateway = await createGateway(config);
  const app = await buildApp(gateway);
  await app.listen({ port: config.PORT, host: config.HOST });
  // Stopped by gateway.close() on shutdown, after HTTP has drained: a batch in flight still records its outcome.
  gateway.delivery.start();
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down');
    void app
      .close()
      .then(() => gateway.close())
      .finally(() => flushLogs(app.log, () => process.exit(0)));
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}
