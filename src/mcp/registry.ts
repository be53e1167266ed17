import type { Services } from '../gateway.js';
import { productsTools } from '../modules/products/products.tools.js';
import type { ToolDefinition } from './tool.js';

/** Every module's MCP tools. A new module adds its tools here (the parity test checks nothing is missed). */
export function allTools(services: Services): ToolDefinition[] {
  return [...productsTools(services.products)];
}
