/** pino's numeric level of `error`: what a request answered 5xx logs its cause at (error-handler.ts). */
const ERROR_LEVEL = 50;

interface LoggedError {
  type?: string;
  code?: unknown;
  message?: string;
  stack?: string;
  cause?: unknown;
  [field: string]: unknown;
}

interface LogLine {
  level?: number;
  reqId?: string;
  msg?: string;
  err?: LoggedError;
}

function linesOf(logged: string): LogLine[] {
  const lines: LogLine[] = [];
  for (const text of logged.split('\n')) {
    if (!text.startsWith('{')) continue;
    try {
      lines.push(JSON.parse(text) as LogLine);
    } catch {
      // A line cut by the buffer's flush boundary or not JSON: not one this reads.
    }
  }
  return lines;
}

/** One logged error as a block of text: class, code, message, stack, and what it wraps. */
export function describeLoggedError(line: LogLine): string {
  const err = line.err;
  if (err === undefined) return `${line.msg ?? '(no message)'} (no err logged)`;
  const { type, code, message, stack, cause, ...rest } = err;
  const extra = Object.keys(rest).length === 0 ? '' : ` ${JSON.stringify(rest)}`;
  const head = `${line.msg ?? ''}: ${type ?? 'Error'}${code === undefined ? '' : ` [code ${JSON.stringify(code)}]`}: ${message ?? ''}${extra}`;
  const wrapped = cause === undefined ? '' : `\n  cause: ${JSON.stringify(cause)}`;
  return `${head}\n${stack ?? '(no stack)'}${wrapped}`;
}

/**
 * What a serve process logged at level error for the request `requestId` (its envelope's request_id), each as a block
 * of text, and, when it logged nothing for it, every error line not tied to a request (a worker's, the process's).
 */
export function loggedErrorsFor(logged: string, requestId: string | undefined): string[] {
  const errors = linesOf(logged).filter((l) => (l.level ?? 0) >= ERROR_LEVEL);
  const own = errors.filter((l) => requestId !== undefined && l.reqId === requestId);
  const found = own.length > 0 ? own : errors.filter((l) => l.reqId === undefined);
  return found.map(describeLoggedError);
}
