import { decodeInterchange, MAX_INTERCHANGES_PER_BODY } from '../interchange-bytes.js';
import { type ExaminedBody, examineBody } from '../../x12/index.js';

// Runs in a worker thread (platform/core/cpu-pool.ts): the CPU-heavy, pure part of an intake, off the request thread.

/** Parses and checks every interchange of a received body (its bytes as stored). */
export function examine(bytes: Uint8Array): ExaminedBody {
  return examineBody(decodeInterchange(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)), MAX_INTERCHANGES_PER_BODY);
}
