import { errorCodes, type FastifyRequest } from 'fastify';

/** What a body of unknown length (chunked) starts with; doubled as it grows, up to the route's limit. */
const FIRST_SIZE = 64 * 1024;

function shared(size: number): Buffer {
  return Buffer.from(new SharedArrayBuffer(size));
}

/**
 * A raw body read into memory the worker threads share (cpu-pool.ts), copied a network chunk at a time as it arrives.
 * Fastify's buffer parser joins the chunks in one step at the end (~10-15 ms for a 6 MB EDI body on the request
 * thread), and posting that Buffer to a worker copied it again in one step. The same limit and content-length checks
 * as Fastify's own parser, with its errors (worded once, in error-handler.ts: 413, 400).
 */
export function readSharedBody(request: FastifyRequest, payload: NodeJS.ReadableStream, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(request.headers['content-length']);
    const known = Number.isSafeInteger(declared) && declared >= 0;
    if (known && declared > limit) {
      reject(tooLarge());
      return;
    }
    let body = shared(known ? declared : Math.min(FIRST_SIZE, limit));
    let received = 0;
    const stop = (): void => {
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onEnd);
    };
    const onData = (data: Buffer | string): void => {
      const chunk = typeof data === 'string' ? Buffer.from(data) : data;
      const needed = received + chunk.length;
      if (needed > limit || (known && needed > declared)) {
        stop();
        reject(needed > limit ? tooLarge() : lengthMismatch());
        return;
      }
      if (needed > body.length) {
        const grown = shared(Math.min(limit, Math.max(needed, body.length * 2)));
        body.copy(grown, 0, 0, received);
        body = grown;
      }
      chunk.copy(body, received);
      received = needed;
    };
    const onEnd = (err?: Error & { statusCode?: number }): void => {
      stop();
      if (err !== undefined) {
        // As Fastify's parser: a stream that failed (the client went away) is the client's error.
        if (!(typeof err.statusCode === 'number' && err.statusCode >= 400)) err.statusCode = 400;
        reject(err);
      } else if (known && received !== declared) reject(lengthMismatch());
      else resolve(body.subarray(0, received));
    };
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onEnd);
    payload.resume();
  });
}

const tooLarge = (): Error => new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE();
const lengthMismatch = (): Error => new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH();
