/**
 * An NVBench sample sidecar: `size` little-endian float32 values, nothing else (NVBench's
 * json_printer writes them with the JSON's `nv/json/bin:` and `nv/json/freqs-bin:`
 * summaries). The file says nothing about itself, so it is read only as the companion of
 * the JSON that declared it: the declaration's context gives what the values are (name,
 * unit), the state they belong to (scope, dimensions) and how many there must be. Each
 * value becomes one `sample` row with its index; a non-finite value is skipped and counted.
 * Never detected: only the import names this adapter, for a declared sidecar.
 */
import type { ExtractInput, ProducerAdapter } from "../adapter.ts";
import { emptyTables, type NormalizedEvidence } from "../../domain/normalized-evidence.ts";
import { MeasurementWriter } from "../benchmarks/measurement-writer.ts";
import { isPlainObject, parseFailed } from "../json-guard.ts";
import { nvbenchSamplesDescription } from "./description.ts";

const LABEL = "NVBench sample sidecar";

type Dims = Record<string, string | number | boolean | null>;

function contextOf(input: ExtractInput): {
  name: string;
  unit: string;
  scope: string;
  samples: number;
  dimensions: Dims;
} {
  const c = input.context;
  if (
    !c ||
    typeof c.name !== "string" ||
    typeof c.unit !== "string" ||
    typeof c.scope !== "string" ||
    typeof c.samples !== "number"
  ) {
    throw parseFailed(
      LABEL,
      "a sidecar is read only as declared by its NVBench JSON (import the JSON, not the sidecar)",
    );
  }
  return {
    name: c.name,
    unit: c.unit,
    scope: c.scope,
    samples: c.samples,
    dimensions: isPlainObject(c.dimensions) ? (c.dimensions as Dims) : {},
  };
}

export const nvbenchSamplesAdapter: ProducerAdapter = {
  ...nvbenchSamplesDescription,
  extract(input: ExtractInput): NormalizedEvidence {
    const { name, unit, scope, samples, dimensions } = contextOf(input);
    if (input.bytes.length !== samples * 4)
      throw parseFailed(
        LABEL,
        `the JSON declares ${samples} float32 samples (${samples * 4} bytes) but the file ` +
          `holds ${input.bytes.length} bytes`,
      );
    const tables = emptyTables();
    const out = new MeasurementWriter(tables.measurements, LABEL, input.limits.maxEvents);
    const view = new DataView(input.bytes.buffer, input.bytes.byteOffset, input.bytes.byteLength);
    for (let i = 0; i < samples; i++) {
      const value = view.getFloat32(i * 4, true);
      if (!Number.isFinite(value)) {
        out.skip("non_finite_samples", "samples that are NaN or infinite were skipped");
        continue;
      }
      out.add({ name, value, unit, aggregation: "sample", scope, value_index: i, dimensions });
    }
    return {
      adapter: nvbenchSamplesDescription.name,
      adapterVersion: nvbenchSamplesDescription.version,
      producer: "nvbench",
      producerVersion: null,
      tables,
      limitations: out.limitations(),
      summary: { samples, measurements: out.rows, scope },
    };
  },
};
