/**
 * Cheap recognition from the first 64 KiB: a cpuprofile is a JSON object whose nodes
 * carry `callFrame`s (modern form), or whose `head` node carries `functionName` and
 * `hitCount` (legacy form). Heap profiles also have `head`/`callFrame` but keep the call
 * frame nested and carry `selfSize`, so they are not mistaken for CPU profiles.
 */
import type { DetectInput } from "../adapter.ts";

export function detectCpuProfile({ head, displayName }: DetectInput): number {
  const text = head.trimStart();
  if (!text.startsWith("{")) return 0;
  if (text.includes('"traceEvents"') || text.includes('"selfSize"') || /"ph"\s*:\s*"/.test(text))
    return 0;
  const named = /\.cpuprofile(\.gz)?$/i.test(displayName);
  if (/"nodes"\s*:\s*\[/.test(text) && text.includes('"callFrame"')) {
    if (text.includes('"timeDeltas"') || text.includes('"samples"') || named) return 0.95;
    return 0.8;
  }
  if (
    /"head"\s*:\s*\{/.test(text) &&
    text.includes('"functionName"') &&
    text.includes('"hitCount"')
  ) {
    return named || text.includes('"timestamps"') ? 0.9 : 0.7;
  }
  // An object that uses the cpuprofile keys, or a file named like one, belongs to this
  // adapter even when malformed, so the failure names the bad field instead of the format.
  if (/"nodes"\s*:/.test(text) && /"(samples|timeDeltas)"\s*:/.test(text)) return 0.5;
  return named ? 0.4 : 0;
}
