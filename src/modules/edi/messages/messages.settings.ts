import { z } from 'zod';
import { type Environment, parseEnv } from '../../../config.js';

/** The EDI messages module's settings from the environment (docs/configuration.md). */
const messagesEnv = z.object({
  /**
   * The most of a received body stored in one transaction: a larger body is stored in pieces of this size, each its own
   * transaction, so SQLite's one writer (and the request thread, better-sqlite3 being synchronous) is never held long.
   */
  EDI_RECEIVE_PIECE_BYTES: z.coerce.number().int().min(64 * 1024).max(16 * 1024 * 1024).default(1024 * 1024),
});

export type MessagesSettings = z.output<typeof messagesEnv>;

export function messagesSettings(env: Environment): MessagesSettings {
  return parseEnv(messagesEnv, env);
}
