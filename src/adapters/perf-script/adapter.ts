/**
 * The `perf-script` adapter: Linux `perf script` text (what `perf script` prints from a
 * perf.data, with or without `-F`, `--header`, several events, any number of processes
 * and threads; also Android simpleperf's `report_sample.py` text, which copies it), as
 * frames, measurements per event metric, call edges and stacks, one track per thread,
 * read line by line (common/line-sampled-adapter.ts).
 */
import { lineSampledAdapter } from "../common/line-sampled-adapter.ts";
import { perfScriptDescription } from "./description.ts";
import { PERF_SCRIPT_FORMAT, PerfScriptReader } from "./perf-script-reader.ts";

export const perfScriptAdapter = lineSampledAdapter(perfScriptDescription, {
  format: PERF_SCRIPT_FORMAT,
  reader: (out, maxEvents) => new PerfScriptReader(out, maxEvents),
  evidence(reader, out) {
    const unsymbolized = out.frames.countUnsymbolized();
    const limitations = reader.limitations();
    if (unsymbolized > 0)
      limitations.push({
        code: "missing_symbols",
        message: "Frames perf could not name ([unknown])",
        count: unsymbolized,
      });
    return {
      producer: reader.producer,
      producerVersion: reader.perfVersion,
      limitations,
      summary: {
        ...reader.summary(),
        frames: out.frames.size,
        threads: out.trackCount,
        metrics: out.metrics.join(","),
      },
    };
  },
});
