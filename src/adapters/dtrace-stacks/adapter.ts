/**
 * The `dtrace-stacks` adapter: DTrace aggregations of `stack()` or `ustack()` printed as
 * text (illumos, macOS, FreeBSD; FlameGraph's stackcollapse.pl input). Counts become
 * `samples`, on stacks outermost caller first. Read line by line; stacks spill and
 * stream like the other sampled formats (common/line-sampled-adapter.ts), so file size
 * does not grow memory.
 */
import { lineSampledAdapter } from "../common/line-sampled-adapter.ts";
import { dtraceStacksDescription } from "./description.ts";
import { DTRACE_FORMAT, DtraceReader } from "./dtrace-reader.ts";

export const dtraceStacksAdapter = lineSampledAdapter(dtraceStacksDescription, {
  format: DTRACE_FORMAT,
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
