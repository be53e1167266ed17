import { audienceOf, type Operation, scopeText, takesIdempotencyKey } from './operation.js';

const cell = (text: string) => text.replaceAll('|', '\\|');

/** The scope column: an API key's scope, or the door's own credential. */
const ACCESS = {
  api: (op: Operation) => `\`${scopeText(op)}\``,
  operator: () => 'admin token',
  public: () => 'none (connect token in the body)',
  portal: () => 'portal key (X-Portal-Key)',
} as const;

/**
 * The API table of docs/api.md, generated from the operation list (a test keeps docs/api.md in step): one row per operation,
 * with its REST route, MCP tool name, scope and where to find its example.
 */
export function apiTable(operations: readonly Operation[]): string {
  const rows = operations.map((op) => {
    const route = op.absent?.rest ? `(MCP only: ${op.absent.rest})` : `\`${op.method} ${op.path}\``;
    const tool = op.absent?.mcp ? `(REST only: ${op.absent.mcp})` : `\`${op.name}\``;
    const keyed = takesIdempotencyKey(op) ? ' (Idempotency-Key)' : '';
    return `| ${route} | ${tool} | ${ACCESS[audienceOf(op)](op)} | ${cell(op.summary)}${keyed} |`;
  });
  return ['| REST | MCP tool (= operationId) | scope | what it does |', '|---|---|---|---|', ...rows].join('\n');
}
