/**
 * The hotspots recipe's name and version, as recorded analyses cite them. Apart from the
 * recipe (hotspots.ts), which brings the Parquet readers: listing or validating
 * investigation records needs the name but not the readers.
 */
export const HOTSPOTS_RECIPE = "cpu_hotspots";
/** 2: rows are functions by default (1: one row per stored frame, today's `line`). */
export const HOTSPOTS_VERSION = "2";
