import type { Clock } from '../../platform/core/clock.js';
import type { Tx } from '../../platform/db/schema.js';
import type { PublicDelivery } from '../../platform/outbox/deliveries.service.js';
import { enqueueHubEvent } from '../../platform/outbox/outbox.js';
import type { ProductsService } from '../products/products.service.js';
import type { InventoryUpdateInput, InventoryUpdateResult } from './inventory.schemas.js';

/** Stock levels from partners: applied to the catalog and forwarded to the hub in the caller's transaction. */
export class InventoryService {
  constructor(
    private readonly clock: Clock,
    private readonly products: ProductsService,
  ) {}

  /** The answer shows the hub event queued (HTTP 202); inventoryDelivered shows it once tried after commit. */
  async update(tx: Tx, orgId: string, input: InventoryUpdateInput): Promise<InventoryUpdateResult> {
    const missing = await this.products.setStockLevels(tx, orgId, input.rows);
    const unknownSkus = [...new Set(missing)];
    // Unknown SKUs are forwarded too: the hub may know products this catalog does not yet.
    const deliveryId = await enqueueHubEvent(tx, {
      type: 'inventory.updated',
      orgId,
      at: this.clock.now(),
      data: { rows: input.rows, unknown_skus: unknownSkus },
    });
    return { queued: true, delivery_id: deliveryId, delivery_status: 'queued', applied: input.rows.length - missing.length, unknown_skus: unknownSkus };
  }
}

/** The update's answer once its hub event was tried right after commit. */
export function inventoryDelivered(result: InventoryUpdateResult, delivery: PublicDelivery): InventoryUpdateResult {
  return { ...result, queued: delivery.status === 'queued', delivery_status: delivery.status };
}
