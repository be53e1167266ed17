/**
 * Version of the public contract (REST /v1, the portal, the operator API and the MCP tools), shown in OpenAPI and MCP
 * serverInfo; semver: a change a client must adapt to is a new major. Each version is in docs/changelog.md.
 */
export const API_VERSION = '2.0.0';
