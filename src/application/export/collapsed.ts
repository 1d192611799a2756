/**
 * Brendan Gregg's collapsed ("folded") stacks: one line per stack, frames root first
 * joined by `;`, then a space and the value. flamegraph.pl, inferno, speedscope and
 * most flamegraph tools read it. `;` and line breaks inside names would split a frame, so
 * they are replaced.
 */
import type { ProfileStacks } from "../../analysis/profile-stacks.ts";
import { exportName } from "./export-names.ts";

export function toCollapsed(view: ProfileStacks): string {
  const lines: string[] = [];
  for (const stack of view.stacks) {
    if (stack.value <= 0) continue;
    const names = stack.frameIds.map((id) =>
      exportName(view.frames.get(id), id).replace(/[;\r\n]/g, "_"),
    );
    lines.push(`${names.join(";")} ${Math.round(stack.value)}`);
  }
  lines.sort();
  return lines.length > 0 ? `${lines.join("\n")}\n` : "";
}
