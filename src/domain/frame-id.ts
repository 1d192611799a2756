/**
 * Frame ids are derived from what identifies a function in source (language, name,
 * file or module, line, column), so the same function has the same id in every
 * artifact and run, which makes cross-run drill-down and comparison possible.
 */
import { createHash } from "node:crypto";

export interface FrameIdentity {
  language: string;
  function: string;
  file?: string | null;
  module?: string | null;
  line?: number | null;
  column?: number | null;
}

export function frameId(frame: FrameIdentity): string {
  const key = [frame.language, frame.function, frame.file ?? "", frame.module ?? "", frame.line ?? "", frame.column ?? ""].join("\u0000");
  return "fr_" + createHash("sha256").update(key).digest("hex").slice(0, 20);
}

/** Stack ids hash the ordered frame ids (root first) plus the metric. */
export function stackId(metric: string, frameIds: readonly string[]): string {
  return "st_" + createHash("sha256").update(metric + "\u0000" + frameIds.join("\u0001")).digest("hex").slice(0, 20);
}
