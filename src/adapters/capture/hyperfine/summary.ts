/**
 * Reads hyperfine's `--export-json` document: one result per command with every timed
 * run (`times`, seconds) and its exit code. Only the fields flameox reports are read;
 * the JSON itself stays the authoritative native artifact.
 */
import { type } from "arktype";

const Result = type({
  command: "string",
  mean: "number",
  "stddev?": "number | null",
  median: "number",
  min: "number",
  max: "number",
  "user?": "number",
  "system?": "number",
  times: "number[]",
  "exit_codes?": "(number | null)[]",
});
const Export = type({ results: Result.array().atLeastLength(1) });

export interface HyperfineSummary {
  runs: number;
  mean_s: number;
  median_s: number;
  min_s: number;
  max_s: number;
  stddev_s: number | null;
  /** Every timed run, in order (warmups are not timed by hyperfine). */
  times_s: number[];
  times_truncated: boolean;
  exit_codes: (number | null)[];
}

const MAX_TIMES = 1000;

export function summarizeHyperfine(text: string): HyperfineSummary | string {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return `hyperfine JSON does not parse: ${(error as Error).message}`;
  }
  const checked = Export(raw);
  if (checked instanceof type.errors)
    return `hyperfine JSON has an unexpected shape: ${checked.summary}`;
  const r = checked.results[0]!;
  return {
    runs: r.times.length,
    mean_s: r.mean,
    median_s: r.median,
    min_s: r.min,
    max_s: r.max,
    stddev_s: r.stddev ?? null,
    times_s: r.times.slice(0, MAX_TIMES),
    times_truncated: r.times.length > MAX_TIMES,
    exit_codes: (r.exit_codes ?? []).slice(0, MAX_TIMES),
  };
}
