import type { OrgSettings } from '../../platform/orgs/org-settings.js';
import type { STOCK_STATUSES } from './products.schemas.js';

export type StockStatus = (typeof STOCK_STATUSES)[number];

export interface StockThresholds {
  backorder: number;
  low: number;
}

export function thresholdsOf(settings: OrgSettings): StockThresholds {
  return { backorder: settings['stock.backorder_threshold'], low: settings['stock.low_threshold'] };
}

/** Spec section 2: <= backorder threshold -> backorder, <= low threshold -> low_stock, else in_stock. */
export function deriveStockStatus(qty: number, t: StockThresholds): StockStatus {
  if (qty <= t.backorder) return 'backorder';
  if (qty <= t.low) return 'low_stock';
  return 'in_stock';
}
