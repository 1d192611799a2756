/**
 * The formats a profile can be written in for another tool: speedscope, pprof, Chrome trace,
 * collapsed stacks.
 */
export const EXPORT_FORMATS = ["speedscope", "pprof", "chrome-trace", "collapsed"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
