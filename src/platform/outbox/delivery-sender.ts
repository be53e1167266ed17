import type { YieldToRequests } from '../core/yield-to-requests.js';
import type { Tx } from '../db/schema.js';
import type { ClaimedDelivery } from './outbox.repository.js';

export type { ClaimedDelivery };

/** What one send achieved, per delivery. Ids in none of the lists are retried. */
export interface SendOutcome {
  delivered: string[];
  /** Of `delivered`, those the destination already had (a redelivery after a crash or a timeout). */
  duplicates: number;
  rejected: { id: string; reason: string }[];
  retry: { ids: string[]; reason: string; retryAfterMs?: number } | null;
  /**
   * Targets of this destination that asked to wait (a receiver's Retry-After), each for `ms`: its retried rows and every
   * delivery queued to it wait that long, while the destination's other targets go on (one webhook endpoint, not all).
   */
  waits?: { target: string; ms: number }[];
  /** The sender's own records of the send (a webhook's attempts), written in the transaction that records the outcome. */
  record?: (tx: Tx) => Promise<void>;
}

/** One destination kind (the hub; later a partner endpoint). The worker claims rows per destination and hands them here. */
export interface DeliverySender {
  readonly destination: string;
  readonly maxBatch: number;
  send(batchId: string, batch: ClaimedDelivery[], opts: { timeoutMs: number }): Promise<SendOutcome>;
  /** The wait before the next attempt after `attempts` failed; the worker's exponential backoff when absent (the hub). */
  retryDelayMs?(attempts: number): number;
  /**
   * Background work that yields to requests (webhooks, asynchronous by contract): its drain rounds take at most a share of
   * the time while requests are in flight. Absent for the hub and partners: an order's answer waits on them.
   */
  readonly yields?: YieldToRequests;
  close(): Promise<void>;
}

/**
 * Work a module does at the start of every drain round, before the sends, that has no outbox row of its own (webhooks
 * turn pending events into deliveries). It shares the round's grant with the senders that yield to the same budget,
 * and shows on the outbox's metrics as a destination named `name`.
 */
export interface DrainStep {
  readonly name: string;
  readonly yields?: YieldToRequests;
  /** One batch of the work, all or nothing; answers how many items it did (0: none pending). */
  run(): Promise<number>;
  /** Items waiting, and the oldest one's created_at: the queue gauges. */
  pending(): Promise<{ depth: number; oldest_created_at: string | null }>;
}
