/**
 * Summary reports (`cuda_gpu_kern_sum`, `cuda_api_sum`, `cuda_gpu_mem_time_sum`, `osrt_sum`,
 * `nvtx_sum`) as measurements: one row per named thing (kernel, API function, memory
 * operation, NVTX range) and statistic the report wrote. `name` is the thing's name as the
 * report writes it, `scope` the report, `aggregation` the statistic (total, count, mean,
 * median, min, max, stddev, and `share` for Time (%)). Times are durations (nanoseconds);
 * an NVTX range's style (PushPop, StartEnd) is a dimension.
 *
 * What a summary cannot give back: the individual calls. There are no per-call events, no
 * times of day and no threads or streams, only the report's own aggregates over the
 * whole capture; a limitation says so on every import.
 */
import type { MeasurementWriter } from "../benchmarks/measurement-writer.ts";
import { parseFailed } from "../json-guard.ts";
import { number } from "./gpu-trace.ts";
import type { SummaryHeader } from "./report-header.ts";

export class SummaryReader {
  rows = 0;
  private readonly scope: string;

  constructor(
    private readonly header: SummaryHeader,
    private readonly label: string,
    private readonly out: MeasurementWriter,
  ) {
    this.scope = header.report ?? header.candidates.join("|");
  }

  accept(cells: string[], line: number): void {
    let name: string | null = null;
    let style: string | null = null;
    for (const [at, { field }] of this.header.fields) {
      if (field === "name") name = cells[at] ?? null;
      if (field === "style") style = cells[at] ?? null;
    }
    if (name === null || name === "")
      throw parseFailed(this.label, `line ${line}: a row without a name`);
    const dimensions = { report: this.header.report, ...(style === null ? {} : { style }) };
    for (const [at, { field, unit, header }] of this.header.fields) {
      if (field === "name" || field === "style") continue;
      const value = number(cells[at]);
      if (value === null) {
        // A single call has no spread: some versions leave StdDev empty rather than writing 0.
        if ((cells[at] ?? "").trim() === "" && field === "stddev") continue;
        throw parseFailed(
          this.label,
          `line ${line}: expected a number in ${header} but found ${JSON.stringify(cells[at])}`,
        );
      }
      const measurement =
        field === "share"
          ? { value, unit: "percent", aggregation: "share" }
          : field === "count"
            ? { value, unit: "count", aggregation: "count" }
            : { value, unit: unit!, aggregation: field };
      this.out.add({ name, scope: this.scope, dimensions, ...measurement });
    }
    this.rows++;
  }
}
