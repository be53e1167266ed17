import { PORTAL_PATH_PREFIX } from '../auth/portal-key.js';
import { audienceOf, type Operation } from './operation.js';
import { DOOR_SCOPE, type ScopeCatalog } from '../auth/scopes.js';
import type { OpenApiTag, WebhookDoc } from './openapi.js';

/** An operation with the OpenAPI tag of the module that owns it. */
export interface OperationEntry {
  operation: Operation;
  tag: string;
}

/** What the operation layer needs of a module: its operations on the gateway's services and the tag they go under. */
export interface OperationSource<S> {
  /** Required with operations; a module that serves none (its services are for other modules and the CLI) has none. */
  tag?: OpenApiTag;
  operations?(services: S): Operation[];
  /** The events it sends to subscribers' URLs (webhooks), for the OpenAPI document's `webhooks`. */
  webhooks?: readonly WebhookDoc[];
}

/** Every module's webhook events, in list order. */
export function webhooksOf<S>(modules: readonly OperationSource<S>[]): WebhookDoc[] {
  return modules.flatMap((m) => [...(m.webhooks ?? [])]);
}

/** The tags of the modules that serve operations, in list order (the OpenAPI document lists these). */
export function tagsOf<S>(modules: readonly OperationSource<S>[]): OpenApiTag[] {
  return modules.flatMap((m) => (m.operations === undefined || m.tag === undefined ? [] : [m.tag]));
}

/**
 * Every module's operations in list order; a name defined twice, operations without a tag, or an API operation needing
 * a scope no module declares stop start-up.
 */
export function operationsOf<S>(modules: readonly OperationSource<S>[], services: S, scopes: ScopeCatalog): OperationEntry[] {
  const entries = modules.flatMap((m) => {
    const operations = m.operations?.(services) ?? [];
    if (operations.length > 0 && m.tag === undefined) throw new Error(`a module serving ${operations[0]?.name ?? ''} has no OpenAPI tag`);
    return operations.map((operation) => ({ operation, tag: m.tag?.name ?? '' }));
  });
  const names = new Set<string>();
  for (const { operation } of entries) {
    if (names.has(operation.name)) throw new Error(`operation ${operation.name} is defined twice`);
    names.add(operation.name);
    checkDoor(operation);
    if (audienceOf(operation) === 'api' && typeof operation.scope === 'string' && !scopes.isKnown(operation.scope)) {
      throw new Error(`operation ${operation.name} needs scope ${operation.scope}, which no module declares`);
    }
  }
  return entries;
}

/**
 * A non-API operation names its door's pseudo-scope and why it is no MCP tool; a public one its per-IP limit; a portal
 * one lives under the portal's path prefix (its door's hooks and CORS answer cover that prefix only).
 */
function checkDoor(op: Operation): void {
  const audience = audienceOf(op);
  if (audience === 'api') return;
  if (op.scope !== DOOR_SCOPE[audience]) throw new Error(`operation ${op.name} (${audience}) must have scope '${DOOR_SCOPE[audience]}'`);
  if (!op.absent?.mcp) throw new Error(`operation ${op.name} (${audience}) must say in absent.mcp why it is no MCP tool`);
  if (audience === 'public' && op.perIpPerMinute === undefined) throw new Error(`public operation ${op.name} needs perIpPerMinute`);
  if (audience === 'portal' && !op.path.startsWith(`${PORTAL_PATH_PREFIX}/`)) throw new Error(`portal operation ${op.name} must be under ${PORTAL_PATH_PREFIX}/`);
}
