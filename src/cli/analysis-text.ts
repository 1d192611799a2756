/** What the read-only analysis commands share: page flags and how evidence and pages read. */
import { safeText } from "./output.ts";

export const pageArgs = {
  limit: { type: "string", description: "Maximum rows to return" },
  cursor: { type: "string", description: "Opaque cursor from a previous page" },
  metric: {
    type: "string",
    description:
      "cpu_time | wall_time | samples | alloc_space | inuse_space | … (default: cpu_time " +
      "when present, else the first available)",
  },
} as const;

export const evidenceLine = (e: { status: string; reason: string }) =>
  `evidence: ${e.status} (${safeText(e.reason)})`;
export const more = (cursor: string | null) => (cursor ? `more: --cursor ${cursor}` : "");
