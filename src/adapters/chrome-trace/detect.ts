/**
 * Cheap recognition from the first 64 KiB: an array whose first element is an object
 * with a `ph` field, or an object with `traceEvents`.
 */
import type { DetectInput } from "../adapter.ts";

export function detectChromeTrace({ head, displayName }: DetectInput): number {
  const text = head.trimStart();
  if (text.startsWith("[")) {
    if (/^\[\s*\{/.test(text) && /"ph"\s*:\s*"/.test(text)) return 0.9;
    if (/^\[\s*\]?\s*$/.test(text) && /trace/i.test(displayName)) return 0.3;
    return 0;
  }
  if (!text.startsWith("{")) return 0;
  if (/"traceEvents"\s*:\s*\[/.test(text)) return 0.95;
  // Large metadata can push traceEvents past the head; events themselves still show.
  if (/"ph"\s*:\s*"/.test(text) && /"ts"\s*:/.test(text) && /"pid"\s*:/.test(text)) return 0.6;
  return 0;
}
