/**
 * Frames of trace slices: one per distinct (name, category), language `trace`. Looked
 * up through nested maps so the per-event path builds no key strings.
 */
import type { FrameRegistry } from "../common/frame-registry.ts";

export class SliceFrames {
  private readonly frames: FrameRegistry;
  private readonly byName = new Map<string, Map<string | null, number>>();

  constructor(frames: FrameRegistry) {
    this.frames = frames;
  }

  frameOf(name: string, category: string | null): number {
    let byCategory = this.byName.get(name);
    if (byCategory === undefined) {
      byCategory = new Map();
      this.byName.set(name, byCategory);
    }
    let frame = byCategory.get(category);
    if (frame === undefined) {
      frame = this.frames.intern(JSON.stringify(["trace", name, category]), {
        language: "trace",
        function: name,
        module: category,
        file: null,
        line: null,
        column: null,
        symbolization: "complete",
      });
      byCategory.set(category, frame);
    }
    return frame;
  }
}
