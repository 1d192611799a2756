/** What the `collapsed-stacks` adapter declares, and its detection, without its parser. */
import type { AdapterDescription } from "../adapter.ts";
import { detectCollapsed } from "./detect.ts";

export const collapsedStacksDescription: AdapterDescription = {
  name: "collapsed-stacks",
  version: "1.0.0",
  tables: ["frames", "frame_measurements", "call_edges", "stacks"],
  artifactKind: "sample_profile",
  mediaType: "text/x-collapsed-stacks",
  detect: detectCollapsed,
};
