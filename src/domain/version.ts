/** The flameox release; recorded in workspaces, manifests and the MCP server identity. */
export const FLAMEOX_VERSION = "0.1.0";
