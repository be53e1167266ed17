/** Version of the public contract (REST /v1 and the MCP tools that mirror it), shown in OpenAPI and MCP serverInfo. */
export const API_VERSION = '1.0.0';
