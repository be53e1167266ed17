/**
 * What `keys create --help` and `settings set --help` list, written out so help does not load every module (seconds)
 * to print a few lines. test/cli/help-catalog.unit.test.ts fails, naming the difference, when a module's declaration changes.
 */

/** The static scopes a key can hold (`all` grants exactly these), with what each opens. */
export const SCOPES: Readonly<Record<string, string>> = {
  'edi:read': 'read the EDI message log',
  'edi:write': 'send X12 interchanges',
  'inventory:write': 'send stock levels',
  'orders:read': 'read orders',
  'orders:write': 'create orders and move their status',
  'products:read': 'read the catalog',
  'products:write': 'create and update products',
  'telematics:read': 'read telematics connections',
  'telematics:write': 'poll a connection now, replay a window as a background sync and cancel it, disconnect',
  'warranty:read': 'read warranty claims',
  'warranty:write': 'file and move warranty claims',
  'webhooks:read': 'read webhook endpoints, their deliveries and the events API',
  'webhooks:write': 'create, change and delete webhook endpoints, rotate their secrets, retry deliveries',
};

/** Scopes granted by name after a pattern. */
export const SCOPE_PATTERNS: readonly { text: string; description: string }[] = [
  { text: 'objects:<key>:read|write', description: "read or write one custom object's rows" },
];

/** The per-org settings the modules declare. */
export const SETTINGS: readonly { name: string; default: string | number | boolean; description: string }[] = [
  { name: 'stock.low_threshold', default: 8, description: 'stock_qty at or below this (and above the backorder threshold) is low_stock' },
  { name: 'stock.backorder_threshold', default: 0, description: 'stock_qty at or below this is backorder; must be below stock.low_threshold' },
  { name: 'orders.currency', default: 'USD', description: 'ISO 4217 code of orders created without a currency (USD, EUR, JPY, ...)' },
];

export function scopesHelp(): string {
  const width = Math.max(...Object.keys(SCOPES).map((s) => s.length), ...SCOPE_PATTERNS.map((p) => p.text.length));
  return [
    '',
    'Scopes (comma-separated, or "all" for every one listed here):',
    ...Object.entries(SCOPES).map(([scope, what]) => `  ${scope.padEnd(width)}  ${what}`),
    ...SCOPE_PATTERNS.map((p) => `  ${p.text.padEnd(width)}  ${p.description} (not in "all")`),
  ].join('\n');
}

export function settingsHelp(): string {
  return ['', 'Settings:', ...SETTINGS.map((s) => `  ${s.name} (default ${String(s.default)}): ${s.description}`)].join('\n');
}
