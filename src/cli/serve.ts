import { type Config, isPostgresUrl, StartupError } from '../config.js';
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

/** Why the gateway could not listen, naming the setting to change; anything else is passed on as it is. */
export function listenFailure(err: unknown, config: Pick<Config, 'PORT' | 'HOST'>): unknown {
  const code = err instanceof Error && 'code' in err ? err.code : undefined;
  switch (code) {
    case 'EADDRINUSE':
      return new StartupError(`port ${config.PORT} on ${config.HOST} is already in use: stop what holds it, or pick another port with PORT=...`);
    case 'EACCES':
      return new StartupError(`not allowed to listen on port ${config.PORT}: ports below 1024 need privileges; pick another with PORT=...`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return new StartupError(`HOST ${config.HOST} does not resolve to an address: check its spelling, or use 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)`);
    case 'EADDRNOTAVAIL':
      return new StartupError(`HOST ${config.HOST} is not an address of this machine: use 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)`);
    default:
      return err;
  }
}

/**
 * Serves HTTP and runs the delivery worker, the retention purge and the modules' workers (the telematics poller) until
 * SIGINT/SIGTERM. Then it stops accepting connections, lets requests in flight finish while the workers stop, hands back
 * the leases it holds, closes the database and Redis and exits 0; past SHUTDOWN_TIMEOUT_MS it exits 1 instead.
 */
export async function serve(config: Config, opts: { json?: boolean } = {}): Promise<void> {
  const gateway = await createGateway(config);
  const app = await buildApp(gateway);
  // In gateway_instances from the start, not from its first claim: `restore` refuses a database a live process uses.
  await gateway.instances.start();
  let stopping = false;
  let address: string;
  try {
    address = await app.listen({ port: config.PORT, host: config.HOST });
  } catch (err) {
    await app.close().catch(() => undefined);
    await gateway.close().catch(() => undefined);
    throw listenFailure(err, config);
  }
  const database = describeDatabase(config.DATABASE_URL);
  // Straight to stdout: the logger is buffered and would hold this line back until shutdown.
  process.stdout.write(
    opts.json
      ? `${JSON.stringify({ listening: address, service: config.SERVICE_NAME, database })}\n`
      : `${config.SERVICE_NAME} listening on ${address} (database: ${database})\n`,
  );
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
