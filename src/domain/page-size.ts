/**
 * The most rows one page may hold in any workspace: `analysis.max_row_limit` may be set
 * up to this, and a workspace's own setting caps each page below it. Requests are
 * bounded by it; the MCP server bounds pages lower still, to keep each result within its
 * byte budget.
 */
export const MAX_PAGE_ROWS = 10000;
