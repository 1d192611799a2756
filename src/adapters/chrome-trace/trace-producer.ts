/**
 * Who wrote a Chrome trace, from the container's own fields (or the file name, for
 * torch.profiler's `.pt.trace.json`); and the format's name in messages.
 */
import { isPlainObject } from "../json-guard.ts";

export const TRACE_FORMAT = "chrome trace";

/** The producer, when the container says so. */
export function traceProducer(
  container: Record<string, unknown>,
  displayName: string,
): { producer: string | null; version: string | null } {
  const metadata = isPlainObject(container.metadata) ? container.metadata : {};
  if (
    "schemaVersion" in container &&
    ("deviceProperties" in container || "traceName" in container || "distributedInfo" in container)
  ) {
    return { producer: "torch.profiler", version: null };
  }
  if (/\.pt\.trace\.json/i.test(displayName)) return { producer: "torch.profiler", version: null };
  if (metadata.source === "DevTools") return { producer: "chrome-devtools", version: null };
  if (typeof metadata["product-version"] === "string")
    return { producer: "chrome", version: metadata["product-version"] };
  if (typeof metadata["clock-domain"] === "string") return { producer: "chromium", version: null };
  return { producer: null, version: null };
}
