import type { Operation } from './operation.js';
import type { OpenApiTag } from './openapi.js';

/**
 * A resource module as the app sees it: the operations it serves (REST routes, MCP tools and OpenAPI are generated
 * from them) under its OpenAPI tag. `S` is the gateway's services, which the operations call.
 */
export interface GatewayModule<S> {
  name: string;
  tag: OpenApiTag;
  operations(services: S): Operation[];
}

/** An operation with the tag of the module that owns it. */
export interface OperationEntry {
  operation: Operation;
  tag: string;
}

export function operationsOf<S>(modules: readonly GatewayModule<S>[], services: S): OperationEntry[] {
  const entries = modules.flatMap((m) => m.operations(services).map((operation) => ({ operation, tag: m.tag.name })));
  const names = new Set<string>();
  for (const { operation } of entries) {
    if (names.has(operation.name)) throw new Error(`operation ${operation.name} is defined twice`);
    names.add(operation.name);
  }
  return entries;
}
