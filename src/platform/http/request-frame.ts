import { type FastifyBaseLogger, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';
import type { HttpMetrics } from '../core/metrics.js';
import { RequestsInFlight } from '../core/requests-in-flight.js';
import { type AccessLogger, logIncomingRequest, logRequestCompleted } from './access-log.js';
import { setFrameHeaders } from './security-headers.js';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type BaseLogger = FastifyBaseLogger & AccessLogger & { isLevelEnabled(level: string): boolean };

/**
 * `request.log` without a pino child per request: the child (bound to the request id) is made the first time the
 * request logs at an enabled level, which most requests never do.
 */
class RequestLog implements FastifyBaseLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    /** The root logger, or a route's leveled one; the access lines are written on it. */
    readonly base: BaseLogger,
    private readonly bindings: Bindings,
  ) {}

  private logger(): FastifyBaseLogger {
    return (this.made ??= this.base.child(this.bindings));
  }

  private emit(level: Level, args: unknown[]): void {
    if (this.made === undefined && !this.base.isLevelEnabled(level)) return;
    const logger = this.logger();
    logger[level](...(args as [string]));
  }

  get level(): string {
    return (this.made ?? this.base).level;
  }

  set level(level: string) {
    this.logger().level = level;
  }

  fatal(...args: unknown[]): void {
    this.emit('fatal', args);
  }

  error(...args: unknown[]): void {
    this.emit('error', args);
  }

  warn(...args: unknown[]): void {
    this.emit('warn', args);
  }

  info(...args: unknown[]): void {
    this.emit('info', args);
  }

  debug(...args: unknown[]): void {
    this.emit('debug', args);
  }

  trace(...args: unknown[]): void {
    this.emit('trace', args);
  }

  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger().child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`: a RequestLog instead of `logger.child(bindings)` on every request. */
export function requestLogFactory(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  const base = logger as BaseLogger;
  // A route's own log level or serializers (none today) need a leveled logger; the request id still binds lazily.
  return new RequestLog(options.level === undefined && options.serializers === undefined ? base : (base.child({}, options) as BaseLogger), bindings);
}

/**
 * The frame every request pays, in Fastify's log controller, so no hook runs for it: the frame headers (request id,
 * security headers) when the request comes in, before any hook; metrics and the access line when the answer is done.
 * Metrics count whatever the log level or `disableRequestLogging` say.
 */
export class RequestFrame extends LogController {
  constructor(
    private readonly metrics: HttpMetrics,
    options?: ConstructorParameters<typeof LogController>[0],
    /** Counted in here and out when the response closes (answered or dropped): background work yields while any is. */
    private readonly inFlight = new RequestsInFlight(),
  ) {
    super(options);
  }

  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    setFrameHeaders(reply, request.id);
    this.inFlight.enter();
    reply.raw.once('close', this.inFlight.leave);
    if (this.isLogDisabled(request)) return;
    logIncomingRequest(baseOf(request), request);
  }

  /**
   * Set once the app is closing: a keep-alive connection whose request was in flight would hold close() open until its
   * idle timeout, so each answer finished from then on closes its connection (new requests on old connections get
   * Fastify's 503, as closing). Here rather than in an onSend hook, which every request would pay for.
   */
  closing = false;

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    this.metrics.observe(request, reply);
    if (this.closing) request.raw.socket?.end();
    if (this.isLogDisabled(request)) return;
    logRequestCompleted(baseOf(request), error, request, reply);
  }
}

/** The logger the frame's lines go on; a plugin's own child logger factory (none today) gets its logger as is. */
function baseOf(request: FastifyRequest): AccessLogger {
  return request.log instanceof RequestLog ? request.log.base : (request.log as BaseLogger);
}
