/** Object definitions the objects tests share; each test copies before changing one. */

export const fitments = {
  key: 'fitments',
  label: 'Vehicle fitments',
  read_scope: 'objects:fitments:read',
  write_scope: 'objects:fitments:write',
  key_field: 'fitment_id',
  fields: [
    { name: 'fitment_id', type: 'string', required: true, max_length: 32 },
    { name: 'make', type: 'string', required: true, filterable: true, max_length: 40 },
    { name: 'year', type: 'integer', min: 1950, max: 2100, filterable: true },
    { name: 'load_index', type: 'number', min: 0, filterable: true },
    { name: 'oe', type: 'boolean', filterable: true },
    { name: 'released_on', type: 'date', filterable: true },
    { name: 'verified_at', type: 'datetime', filterable: true },
    { name: 'season', type: 'enum', enum_values: ['summer', 'winter', 'all_season'], filterable: true },
    { name: 'notes', type: 'string', max_length: 200 },
  ],
};

/** Read-only (no write_scope) and without a key field. */
export const priceList = {
  key: 'price-list',
  label: 'Dealer price list',
  read_scope: 'objects:prices:read',
  fields: [
    { name: 'sku', type: 'string', required: true, filterable: true },
    { name: 'price', type: 'number', required: true },
  ],
};

/** Writable, no key field: every write appends. */
export const visits = {
  key: 'visits',
  label: 'Service visits',
  read_scope: 'objects:visits:read',
  write_scope: 'objects:visits:write',
  fields: [
    { name: 'plate', type: 'string', required: true, filterable: true },
    { name: 'odometer', type: 'integer', min: 0 },
  ],
};

export type Definition = typeof fitments;

/** A deep copy of a definition with `change` applied, for invalid and redefinition cases. */
export function variant<T extends object>(base: T, change: (d: T) => void): T {
  const copy = structuredClone(base);
  change(copy);
  return copy;
}
