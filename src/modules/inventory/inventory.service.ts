import type { AuthContext } from '../../platform/auth/scopes.js';
import { requireScope } from '../../platform/auth/scopes.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/schema.js';
import { toPublicDelivery } from '../../platform/outbox/deliveries.service.js';
import type { DeliverAfterCommit } from '../../platform/outbox/delivery-worker.js';
import { recordOutcome } from '../../platform/operations/idempotency.js';
import { enqueueHubEvent, HUB_DESTINATION } from '../../platform/outbox/outbox.js';
import type { ProductsService } from '../products/products.service.js';
import type { InventoryUpdateInput, InventoryUpdateResult } from './inventory.schemas.js';

/** Stock levels from partners: applied to the catalog and forwarded to the hub in one transaction. */
export class InventoryService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly products: ProductsService,
    private readonly deliveries: DeliverAfterCommit,
  ) {}

  async update(auth: AuthContext, input: InventoryUpdateInput): Promise<InventoryUpdateResult> {
    requireScope(auth, 'inventory:write');
    const { orgId } = auth;
    const { deliveryId, unknown } = await this.db.transaction().execute(async (tx) => {
      const missing = await this.products.setStockLevels(tx, orgId, input.rows);
      const unknownSkus = [...new Set(missing)];
      // Unknown SKUs are forwarded too: the hub may know products this catalog does not yet.
      const id = await enqueueHubEvent(tx, {
        type: 'inventory.updated',
        orgId,
        at: this.clock.now(),
        data: { rows: input.rows, unknown_skus: unknownSkus },
      }, this.deliveries.leaseForNow(HUB_DESTINATION));
      const unknown = { skus: unknownSkus, rows: missing.length };
      // The answer as it stands at commit (queued, HTTP 202): what a retry after a crash replays.
      await recordOutcome(tx, resultOf(input, id, 'queued', unknown));
      return { deliveryId: id, unknown };
    });
    const { status } = toPublicDelivery((await this.deliveries.deliverNow([deliveryId])).get(deliveryId));
    return resultOf(input, deliveryId, status, unknown);
  }
}

function resultOf(
  input: InventoryUpdateInput,
  deliveryId: string,
  status: InventoryUpdateResult['delivery_status'],
  unknown: { skus: string[]; rows: number },
): InventoryUpdateResult {
  return {
    queued: status === 'queued',
    delivery_id: deliveryId,
    delivery_status: status,
    applied: input.rows.length - unknown.rows,
    unknown_skus: unknown.skus,
  };
}
