/**
 * The `dtrace-stacks` adapter: DTrace aggregations of `stack()` or `ustack()` printed as
 * text (illumos, macOS, FreeBSD; FlameGraph's stackcollapse.pl input). Counts become
 * `samples`, on stacks outermost caller first. Read line by line; stacks spill and
 * stream like the other sampled formats (common/line-sampled-adapter.ts), so file size
 * does not grow memory.
 */
import type { DetectInput } from "../adapter.ts";
import { lineSampledAdapter } from "../common/line-sampled-adapter.ts";
import { DTRACE_FORMAT, DtraceReader } from "./dtrace-reader.ts";

export function detectDtraceStacks({ head }: DetectInput): number {
  if (/^\s*CPU\s+ID\s+FUNCTION:NAME\s*\r?\n/.test(head) && /\n\s+\S+`\S+/.test(head)) return 0.9;
  // Without the header: indented module`function frames ended by an indented count.
  return /^(?:\s*\r?\n)*(?:[ \t]+\S+`\S+[ \t]*\r?\n)+[ \t]+\d+[ \t]*\r?\n/.test(head) ? 0.8 : 0;
}

export const dtraceStacksAdapter = lineSampledAdapter({
  name: "dtrace-stacks",
  version: "1.0.0",
  mediaType: "text/x-dtrace-stacks",
  format: DTRACE_FORMAT,
  detect: detectDtraceStacks,
  reader: (out, maxEvents) => new DtraceReader(out, maxEvents),
  evidence(reader, out) {
    const limitations = reader.limitations();
    const unsymbolized = out.frames.countUnsymbolized();
    if (unsymbolized > 0)
      limitations.push({
        code: "missing_symbols",
        message: "Frames DTrace printed as addresses",
        count: unsymbolized,
      });
    return {
      producer: "dtrace",
      producerVersion: null,
      limitations,
      summary: { stacks: reader.stacks, header_lines: reader.headerLines, frames: out.frames.size },
    };
  },
});
