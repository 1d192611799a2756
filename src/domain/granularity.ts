/**
 * How frames group into rows and boxes: per function (name and file), per stored frame's
 * line, or per file. Hotspots, flamegraphs and diffs share the choice.
 */
export const GRANULARITIES = ["function", "line", "file"] as const;
export type Granularity = (typeof GRANULARITIES)[number];
