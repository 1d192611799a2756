/**
 * A frame registry of `n` synthetic frames `f0 … f<n-1>`, for tests that feed the stack
 * machinery random paths of frame numbers.
 */
import { type FrameRecord, FrameRegistry } from "../../src/adapters/common/frame-registry.ts";

export function numberedFrames(
  n: number,
  language: FrameRecord["language"] = "native",
): FrameRegistry {
  const registry = new FrameRegistry();
  for (let f = 0; f < n; f++)
    registry.intern(`f${f}`, {
      language,
      function: `f${f}`,
      module: null,
      file: null,
      line: null,
      column: null,
      symbolization: "complete",
    });
  return registry;
}
