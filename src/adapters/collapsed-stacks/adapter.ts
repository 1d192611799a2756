/**
 * The `collapsed-stacks` adapter: folded stacks (`a;b;c 12`) from stackcollapse-*.pl,
 * FlameGraph, inferno, py-spy `--format raw` and others, with stackcollapse's `_[k]`,
 * `_[j]`, `_[i]`, `_[w]` annotations and `--pid`/`--tid` prefixes; CRLF and UTF-16 with a
 * byte order mark are read as such. Counts become `samples`. Read line by line
 * (common/line-sampled-adapter.ts), so file size does not grow memory.
 */
import { lineSampledAdapter } from "../common/line-sampled-adapter.ts";
import { COLLAPSED_FORMAT, CollapsedReader } from "./collapsed-reader.ts";
import { collapsedStacksDescription } from "./description.ts";

export const collapsedStacksAdapter = lineSampledAdapter(collapsedStacksDescription, {
  format: COLLAPSED_FORMAT,
  reader: (out, maxEvents) => new CollapsedReader(out, maxEvents),
  evidence(reader, out, encoding) {
    const limitations = reader.limitations();
    const unsymbolized = out.frames.countUnsymbolized();
    if (unsymbolized > 0)
      limitations.push({
        code: "missing_symbols",
        message: "[unknown] frames",
        count: unsymbolized,
      });
    return {
      producer: null,
      producerVersion: null,
      limitations,
      summary: { ...reader.summary(), frames: out.frames.size, threads: out.trackCount, encoding },
    };
  },
});
