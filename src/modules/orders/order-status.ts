export const ORDER_STATUSES = ['submitted', 'confirmed', 'processing', 'shipped', 'delivered', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** Statuses a client may ask for; `submitted` is only ever the starting point. */
export const TARGET_STATUSES = ['confirmed', 'processing', 'shipped', 'delivered', 'cancelled'] as const;
export type TargetStatus = (typeof TARGET_STATUSES)[number];

const NEXT: Record<OrderStatus, readonly OrderStatus[]> = {
  submitted: ['confirmed', 'cancelled'],
  confirmed: ['processing', 'cancelled'],
  processing: ['shipped', 'cancelled'],
  shipped: ['delivered'],
  delivered: [],
  cancelled: [],
};

export function nextStatuses(from: OrderStatus): readonly OrderStatus[] {
  return NEXT[from];
}

export function canMove(from: OrderStatus, to: OrderStatus): boolean {
  return NEXT[from].includes(to);
}
