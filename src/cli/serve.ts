import { type Config, isPostgresUrl } from '../config.js';
import { buildApp } from '../app.js';
import { createGateway } from '../gateway.js';

/** The access log is buffered (see app.ts): write out what is left before the process ends. */
function flushLogs(log: unknown, done: () => void): void {
  const flush = (log as { flush?: (cb: (err?: Error) => void) => void }).flush;
  if (typeof flush === 'function') flush.call(log, () => done());
  else done();
}

/** The database as the listening line shows it: the SQLite path, or a PostgreSQL host, port and database, never credentials. */
export function describeDatabase(url: string): string {
  if (!isPostgresUrl(url)) return url;
  try {
    const { protocol, host, pathname } = new URL(url);
    return `${protocol}//${host}${pathname}`;
  } catch {
    return 'postgres (unparsable URL)';
  }
}

/** Serves HTTP and runs the delivery worker and the modules' workers (the telematics poller) until SIGINT/SIGTERM, then drains in-flight requests and closes the database. */
export async function serve(config: Config): Promise<void> {
  const gateway = await createGateway(config);
  const app = await buildApp(gateway);
  const address = await app.listen({ port: config.PORT, host: config.HOST });
  // Straight to stdout: the logger is buffered and would hold this line back until shutdown.
  process.stdout.write(`${config.SERVICE_NAME} listening on ${address} (database: ${describeDatabase(config.DATABASE_URL)})\n`);
  // Stopped by gateway.close() on shutdown, after HTTP has drained: a batch in flight still records its outcome.
  gateway.delivery.start();
  for (const worker of gateway.workers) worker.start();
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
