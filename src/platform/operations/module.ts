import type { Operation } from './operation.js';
import type { OpenApiTag } from './openapi.js';

/** An operation with the OpenAPI tag of the module that owns it. */
export interface OperationEntry {
  operation: Operation;
  tag: string;
}

/** What the operation layer needs of a module: its tag and its operations on the gateway's services. */
export interface OperationSource<S> {
  tag: OpenApiTag;
  operations(services: S): Operation[];
}

/** Every module's operations in list order; a name defined twice stops start-up. */
export function operationsOf<S>(modules: readonly OperationSource<S>[], services: S): OperationEntry[] {
  const entries = modules.flatMap((m) => m.operations(services).map((operation) => ({ operation, tag: m.tag.name })));
  const names = new Set<string>();
  for (const { operation } of entries) {
    if (names.has(operation.name)) throw new Error(`operation ${operation.name} is defined twice`);
    names.add(operation.name);
  }
  return entries;
}
