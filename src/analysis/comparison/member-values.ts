/**
 * Turns run-set members into comparable values. A member's value is the median of its
 * non-warm-up samples of the metric (the per-trial median of REFERENCE (e)); members pair
 * across run sets by block id when every member has one; a one-run-per-side comparison
 * pairs the samples themselves by their hierarchy key (worker run, value index); otherwise
 * members pair by position, which is named as a mismatch.
 */
import type { RunSetMember } from "../../domain/run-set.ts";
import { median } from "../statistics/descriptive.ts";
import type { PairInput } from "../statistics/paired-log-ratio.ts";
import type { MeasurementRow } from "../measurements/read-measurements.ts";

export interface MetricSelector {
  metric: string;
  scope?: string | null;
}

export interface MemberSamples {
  member: RunSetMember;
  samples: MeasurementRow[];
  value: number | null;
}

export type Pairing = "block" | "sample_hierarchy" | "position";

export function selectSamples(
  rows: MeasurementRow[],
  runId: string,
  selector: MetricSelector,
): MeasurementRow[] {
  return rows.filter(
    (r) =>
      r.run_id === runId &&
      r.name === selector.metric &&
      r.aggregation === "sample" &&
      !r.is_warmup &&
      (!selector.scope || r.scope === selector.scope),
  );
}

export function memberSamples(
  members: RunSetMember[],
  rows: MeasurementRow[],
  selector: MetricSelector,
): MemberSamples[] {
  return members
    .filter((m) => m.included)
    .map((member) => {
      const samples = selectSamples(rows, member.run_id, selector);
      return {
        member,
        samples,
        value: samples.length > 0 ? median(samples.map((s) => s.value)) : null,
      };
    });
}

/** ignoreScope: the sides are different benchmarks (scopes), so samples pair without it. */
export function pairMembers(
  baseline: MemberSamples[],
  candidate: MemberSamples[],
  options: { ignoreScope?: boolean } = {},
): { pairing: Pairing; pairs: PairInput[] } {
  const usable = (xs: MemberSamples[]) => xs.filter((x) => x.value !== null);
  if (baseline.length > 0 && [...baseline, ...candidate].every((m) => m.member.block_id !== null)) {
    const byBlock = new Map(candidate.map((c) => [c.member.block_id!, c]));
    const pairs = baseline
      .filter((b) => byBlock.has(b.member.block_id!))
      .map((b) => ({
        block_id: b.member.block_id!,
        baseline: b.value ?? NaN,
        candidate: byBlock.get(b.member.block_id!)!.value ?? NaN,
      }));
    return { pairing: "block", pairs };
  }
  const [b, c] = [usable(baseline), usable(candidate)];
  if (b.length === 1 && c.length === 1) {
    const key = (s: MeasurementRow) =>
      `${options.ignoreScope ? "" : s.scope}|${s.worker_run_index ?? ""}|${s.value_index ?? ""}`;
    const cand = new Map(c[0]!.samples.map((s) => [key(s), s.value]));
    const pairs = b[0]!.samples
      .filter((s) => cand.has(key(s)))
      .map((s) => ({ block_id: key(s), baseline: s.value, candidate: cand.get(key(s))! }));
    return { pairing: "sample_hierarchy", pairs };
  }
  const n = Math.min(baseline.length, candidate.length);
  const pairs = Array.from({ length: n }, (_, i) => ({
    block_id: `position-${i}`,
    baseline: baseline[i]!.value ?? NaN,
    candidate: candidate[i]!.value ?? NaN,
  }));
  return { pairing: "position", pairs };
}
