/** What the `massif` adapter declares, and its detection, without its parser. */
import type { AdapterDescription, DetectInput } from "../adapter.ts";

function detectMassif({ head }: DetectInput): number {
  // massif writes desc:, cmd:, time_unit: and then its first snapshot block.
  return /^desc: .*\ncmd: .*\ntime_unit: (i|ms|B)\r?\n#-+\r?\nsnapshot=0/.test(head)
    ? 0.95
    : /^desc: [^\n]*\ncmd: [^\n]*\ntime_unit: /.test(head)
      ? 0.8
      : 0;
}

export const massifDescription: AdapterDescription = {
  name: "massif",
  version: "1.0.0",
  tables: ["frames", "frame_measurements", "call_edges", "stacks"],
  artifactKind: "memory_profile",
  mediaType: "text/x-valgrind-massif",
  detect: detectMassif,
};
