import { type Config, isPostgresUrl } from '../config.js';
import { buildApp } from '../app.js';
import { createGateway } from '../gateway.js';
import { parsePostgresTargets } from '../platform/db/postgres-hosts.js';

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
    // Several hosts (failover) are not a URL to Node: the host list is read as libpq does (postgres-hosts.ts).
  }
  try {
    const { hosts, url: first } = parsePostgresTargets(url);
    const { protocol, pathname } = new URL(first);
    return `${protocol}//${hosts.map((h) => `${h.host}:${h.port}`).join(',')}${pathname}`;
  } catch {
    return 'postgres (unparsable URL)';
  }
}

/**
 * Serves HTTP and runs the delivery worker, the retention purge and the modules' workers (the telematics poller) until
 * SIGINT/SIGTERM. Then it stops accepting connections, lets requests in flight finish while the workers stop, hands back
 * the leases it holds, closes the database and Redis and exits 0; past SHUTDOWN_TIMEOUT_MS it exits 1 instead.
 */
export async function serve(config: Config): Promise<void> {
  const gateway = await createGateway(config);
  const app = await buildApp(gateway);
  let stopping = false;
  const address = await app.listen({ port: config.PORT, host: config.HOST });
  // Straight to stdout: the logger is buffered and would hold this line back until shutdown.
  process.stdout.write(`${config.SERVICE_NAME} listening on ${address} (database: ${describeDatabase(config.DATABASE_URL)})\n`);
  // Stopped by gateway.close() on shutdown, after HTTP has drained: a batch in flight still records its outcome.
  gateway.delivery.start();
  gateway.retention.start();
  for (const worker of gateway.workers) worker.start();
  const exit = (code: number) => flushLogs(app.log, () => process.exit(code));
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down');
    // Not unref'd: it must fire even when a hung request is all that keeps the process alive.
    const deadline = setTimeout(() => {
      process.stderr.write(`${config.SERVICE_NAME} did not shut down within SHUTDOWN_TIMEOUT_MS (${config.SHUTDOWN_TIMEOUT_MS} ms); exiting\n`);
      exit(1);
    }, config.SHUTDOWN_TIMEOUT_MS);
    // app.close() stops listening at once and resolves when requests in flight have answered; the workers stop alongside.
    void Promise.all([app.close(), gateway.retention.stop(), ...gateway.workers.map((w) => w.stop())])
      .then(() => gateway.close())
      .then(
        () => 0,
        (err: unknown) => {
          app.log.error({ err }, 'shutdown failed');
          return 1;
        },
      )
      .then((code) => {
        clearTimeout(deadline);
        exit(code);
      });
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}
