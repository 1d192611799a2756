/**
 * speedscope's own file format (https://www.speedscope.app/file-format-schema.json): one
 * "sampled" profile whose samples are the stacks (root first, frame indices into the
 * shared frame list) weighted by the metric's value.
 */
import type { ProfileStacks } from "../../analysis/profile-stacks.ts";
import { exportName, unitName } from "./export-names.ts";

interface SpeedscopeFrame {
  name: string;
  file?: string;
  line?: number;
  col?: number;
}

export function toSpeedscope(view: ProfileStacks, name: string): string {
  const frames: SpeedscopeFrame[] = [];
  const index = new Map<string, number>();
  const frameIndex = (id: string) => {
    let i = index.get(id);
    if (i === undefined) {
      const f = view.frames.get(id);
      const frame: SpeedscopeFrame = { name: exportName(f, id) };
      if (f?.file ?? f?.module) frame.file = (f.file ?? f.module)!;
      if (f?.line !== null && f?.line !== undefined) frame.line = f.line;
      if (f?.column !== null && f?.column !== undefined) frame.col = f.column;
      index.set(id, (i = frames.length));
      frames.push(frame);
    }
    return i;
  };
  const samples: number[][] = [];
  const weights: number[] = [];
  for (const stack of view.stacks) {
    if (stack.value <= 0) continue;
    samples.push(stack.frameIds.map(frameIndex));
    weights.push(stack.value);
  }
  const total = weights.reduce((a, b) => a + b, 0);
  return JSON.stringify({
    $schema: "https://www.speedscope.app/file-format-schema.json",
    exporter: "flameox",
    name,
    activeProfileIndex: 0,
    shared: { frames },
    profiles: [
      {
        type: "sampled",
        name: `${name} (${view.metric})`,
        unit: unitName(view.unit),
        startValue: 0,
        endValue: total,
        samples,
        weights,
      },
    ],
  });
}
