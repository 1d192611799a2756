/** The name a frame gets in exported formats that have only a name per frame. */
import type { FrameInfo } from "../../analysis/hotspots.ts";

export function exportName(frame: FrameInfo | undefined, frameId: string): string {
  if (!frame) return `(unknown ${frameId})`;
  return frame.function || "(anonymous)";
}

/** speedscope and pprof units for a flameox metric unit. */
export function unitName(unit: string): "nanoseconds" | "bytes" | "none" {
  return unit === "ns" ? "nanoseconds" : unit === "bytes" ? "bytes" : "none";
}
