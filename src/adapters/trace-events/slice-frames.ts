/**
 * Frames of trace slices: one per distinct (name, category), language `trace`. Looked
 * up through nested maps so the per-event path builds no key strings.
 */
import type { FrameRegistry } from "../common/frame-registry.ts";
import { IntPairMap } from "../common/int-pair-map.ts";
import { UNNAMED } from "./event-kinds.ts";

export class SliceFrames {
  private readonly frames: FrameRegistry;
  private readonly byName = new Map<string, Map<string | null, number>>();
  private readonly byIds = new IntPairMap();

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

  /**
   * `frameOf` by string ids of the one string table a pipeline uses (-1: the field is
   * absent; an absent name is UNNAMED), cached by the id pair so an event costs one lookup.
   */
  frameOfIds(name: number, category: number, text: (id: number) => string): number {
    let frame = this.byIds.get(name + 1, category + 1);
    if (frame < 0) {
      frame = this.frameOf(name >= 0 ? text(name) : UNNAMED, category >= 0 ? text(category) : null);
      this.byIds.set(name + 1, category + 1, frame);
    }
    return frame;
  }
}
