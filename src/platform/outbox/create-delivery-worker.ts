import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Clock } from '../core/clock.js';
import type { Config } from '../../config.js';
import type { DatabaseHandle } from '../db/database.js';
import { DeliveryWorker } from './delivery-worker.js';
import { HubClient } from './hub-client.js';
import { HubSender } from './hub-sender.js';
import { PartnerSender } from './partner-sender.js';
import { registerOutboxMetrics } from './outbox.metrics.js';

/** The process's delivery worker, not yet started (`serve` starts it). Without HUB_URL hub deliveries wait; partner endpoints need no setting. */
export function createDeliveryWorker(config: Config, database: DatabaseHandle, clock: Clock, registry: Registry, log: Logger): DeliveryWorker {
  const hub = config.HUB_URL
    ? [new HubSender(new HubClient({ url: config.HUB_URL, timeoutMs: config.HUB_TIMEOUT_MS, clock, ...(config.HUB_TOKEN ? { token: config.HUB_TOKEN } : {}) }))]
    : [];
  const senders = [...hub, new PartnerSender(clock)];
  return new DeliveryWorker({
    db: database.db,
    dialect: database.dialect,
    clock,
    senders,
    metrics: registerOutboxMetrics(registry, database.db, clock),
    leaseMs: config.OUTBOX_LEASE_MS,
    pollMs: config.OUTBOX_POLL_MS,
    concurrency: config.OUTBOX_CONCURRENCY,
    immediateTimeoutMs: config.HUB_TIMEOUT_MS,
    batchTimeoutMs: config.HUB_BATCH_TIMEOUT_MS,
    log,
  });
}
