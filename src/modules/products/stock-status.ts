import { z } from 'zod';
import { defineOrgSettings, setting } from '../../platform/orgs/org-settings.js';
import type { STOCK_STATUSES } from './products.schemas.js';

export type StockStatus = (typeof STOCK_STATUSES)[number];

export interface StockThresholds {
  backorder: number;
  low: number;
}

/** The per-org thresholds stock_status is derived from (`./bin/gateway settings set --org <slug> stock.low_threshold=12`). */
export const stockSettings = defineOrgSettings(
  {
    'stock.low_threshold': setting(z.coerce.number().int(), 8, 'stock_qty at or below this (and above the backorder threshold) is low_stock'),
    'stock.backorder_threshold': setting(z.coerce.number().int(), 0, 'stock_qty at or below this is backorder; must be below stock.low_threshold'),
  },
  (s) => (s['stock.backorder_threshold'] >= s['stock.low_threshold'] ? 'stock.backorder_threshold must be below stock.low_threshold' : undefined),
);

export type StockSettings = ReturnType<typeof stockSettings.read>;

export function thresholdsOf(settings: StockSettings): StockThresholds {
  return { backorder: settings['stock.backorder_threshold'], low: settings['stock.low_threshold'] };
}

/** Spec section 2: <= backorder threshold -> backorder, <= low threshold -> low_stock, else in_stock. */
export function deriveStockStatus(qty: number, t: StockThresholds): StockStatus {
  if (qty <= t.backorder) return 'backorder';
  if (qty <= t.low) return 'low_stock';
  return 'in_stock';
}
