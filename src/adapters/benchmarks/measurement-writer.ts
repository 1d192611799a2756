/**
 * Appends benchmark measurements to the `measurements` table with the checks every
 * benchmark adapter needs: finite values only, units normalized, a row budget
 * (ARTIFACT_TOO_LARGE past `maxEvents`), dimensions stored as sorted canonical JSON.
 */
import type { Limitation } from "../../domain/evidence-status.ts";
import type { TableBuffer } from "../../domain/table-buffer.ts";
import { parseFailed, tooLarge } from "../json-guard.ts";
import { normalizeUnit, valueColumns } from "./units.ts";

export type Aggregation =
  | "sample"
  | "total"
  | "mean"
  | "median"
  | "stddev"
  | "min"
  | "max"
  | "cv"
  | "p95"
  | "peak"
  | string;

export interface MeasurementInput {
  name: string;
  value: number;
  /** Native unit as the producer wrote it. */
  unit: string;
  aggregation: Aggregation;
  scope: string;
  is_warmup?: boolean;
  worker_id?: string | null;
  worker_run_index?: number | null;
  value_index?: number | null;
  loop_count?: number | null;
  phase?: string | null;
  dimensions?: Record<string, string | number | boolean | null>;
}

export class MeasurementWriter {
  private count = 0;
  private readonly skipped = new Map<string, { message: string; count: number }>();

  constructor(
    private readonly table: TableBuffer,
    private readonly format: string,
    private readonly maxRows: number,
  ) {}

  get rows(): number {
    return this.count;
  }

  add(m: MeasurementInput): void {
    if (typeof m.value !== "number" || !Number.isFinite(m.value)) {
      throw parseFailed(
        this.format,
        `expected ${m.scope} ${m.name} values to be finite numbers but found ${String(m.value)}`,
      );
    }
    if (this.count >= this.maxRows)
      throw tooLarge(this.format, "measurements", this.count + 1, this.maxRows);
    const normalized = normalizeUnit(m.value, m.unit);
    const dims = { ...(m.dimensions ?? {}) };
    if (normalized.unit !== m.unit) dims.native_unit = m.unit;
    const keys = Object.keys(dims)
      .filter((k) => dims[k] !== undefined && dims[k] !== null)
      .sort();
    this.table.append({
      measurement_id: `m${this.count}`,
      name: m.name,
      ...valueColumns(normalized.value),
      unit: normalized.unit,
      aggregation: m.aggregation,
      scope: m.scope,
      trial_id: null,
      worker_id: m.worker_id ?? null,
      worker_run_index: m.worker_run_index ?? null,
      value_index: m.value_index ?? null,
      loop_count: m.loop_count ?? null,
      is_warmup: m.is_warmup ?? false,
      block_id: null,
      variant_id: null,
      order_in_block: null,
      phase: m.phase ?? null,
      dimensions_json:
        keys.length > 0 ? JSON.stringify(Object.fromEntries(keys.map((k) => [k, dims[k]]))) : null,
      // Samples and the producer's own aggregates are both emitted by the producer.
      evidence_level: "observed",
    });
    this.count++;
  }

  /**
   * Notes something the producer wrote that is not a sample (counted, `count` at a time; reported
   * once).
   */
  skip(code: string, message: string, count = 1): void {
    const entry = this.skipped.get(code) ?? { message, count: 0 };
    entry.count += count;
    this.skipped.set(code, entry);
  }

  limitations(): Limitation[] {
    return [...this.skipped.entries()].map(([code, { message, count }]) => ({
      code,
      message,
      count,
    }));
  }
}
