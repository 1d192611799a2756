/**
 * Compatibility checks of a comparison (REFERENCE (e) compare_run_sets). Every mismatch is
 * named; invalidating ones make the comparison `invalid`, the others leave it at best
 * `exploratory`. Inputs are what the control plane and the pinned commit say about each
 * member run, so a missing identity is reported as missing, never assumed equal.
 */
import type { RunIdentity } from "../../storage/run-identities.ts";

export interface Mismatch {
  code: string;
  invalidating: boolean;
  message: string;
  run_ids?: string[];
}

export interface MemberFacts {
  run_id: string;
  side: "baseline" | "candidate";
  identity: RunIdentity | null;
  in_commit: boolean;
  collectors: string[];
  units: string[];
}

const FAILED_VALIDATION = new Set(["failed", "error"]);

export function compatibilityMismatches(members: MemberFacts[]): Mismatch[] {
  const out: Mismatch[] = [];
  const add = (code: string, invalidating: boolean, message: string, runIds?: string[]) =>
    out.push({
      code,
      invalidating,
      message,
      ...(runIds && runIds.length > 0 ? { run_ids: runIds.slice(0, 20) } : {}),
    });
  const missing = members.filter((m) => !m.in_commit || !m.identity).map((m) => m.run_id);
  if (missing.length > 0)
    add(
      "missing_members",
      true,
      `${missing.length} member run(s) have no measurements in the pinned commit or no run record`,
      missing,
    );

  const known = members.filter((m) => m.identity);
  const distinct = (values: (string | null)[]) =>
    new Set(values.filter((v): v is string => v !== null));
  const envs = distinct(known.map((m) => m.identity!.environment_id));
  if (envs.size > 1)
    add("environment_differs", true, `members ran in ${envs.size} different environments`);
  const noEnv = known.filter((m) => m.identity!.environment_id === null).map((m) => m.run_id);
  if (noEnv.length > 0)
    add(
      "environment_identity_missing",
      false,
      `${noEnv.length} member run(s) have no recorded environment identity (imports record none)`,
      noEnv,
    );
  const partialEnv = known
    .filter((m) => m.identity!.environment_quality === "partial")
    .map((m) => m.run_id);
  if (partialEnv.length > 0)
    add(
      "environment_identity_partial",
      false,
      "some environment identities are partial",
      partialEnv,
    );

  const workloads = distinct(known.map((m) => m.identity!.workload_definition_id));
  if (workloads.size > 1)
    add(
      "workload_definition_differs",
      true,
      `members ran ${workloads.size} different workload definitions`,
    );

  for (const side of ["baseline", "candidate"] as const) {
    const sources = distinct(
      known.filter((m) => m.side === side).map((m) => m.identity!.source_state_id),
    );
    if (sources.size > 1)
      add(
        "source_state_differs_within_treatment",
        true,
        `the ${side} members ran from ${sources.size} different source states`,
      );
  }
  const noSource = known.filter((m) => m.identity!.source_state_id === null).map((m) => m.run_id);
  if (noSource.length > 0)
    add(
      "source_state_missing",
      false,
      `${noSource.length} member run(s) have no recorded source state`,
      noSource,
    );
  const partialSource = known
    .filter((m) => m.identity!.source_quality === "partial")
    .map((m) => m.run_id);
  if (partialSource.length > 0)
    add(
      "source_state_partial",
      false,
      "some source identities are partial; confirmatory claims need exact ones",
      partialSource,
    );

  const collectors = new Set(members.flatMap((m) => m.collectors));
  if (collectors.size > 1)
    add(
      "collector_differs",
      true,
      `measurements come from different collectors: ${[...collectors].sort().join(", ")}`,
    );
  const units = new Set(members.flatMap((m) => m.units));
  if (units.size > 1)
    add(
      "unit_differs",
      true,
      `the metric is measured in different units: ${[...units].sort().join(", ")}`,
    );

  const failed = known
    .filter((m) => FAILED_VALIDATION.has(m.identity!.validation_status))
    .map((m) => m.run_id);
  if (failed.length > 0)
    add("validation_failed", true, `${failed.length} member run(s) failed validation`, failed);
  const unvalidated = known
    .filter(
      (m) =>
        m.identity!.validation_status !== "passed" &&
        !FAILED_VALIDATION.has(m.identity!.validation_status),
    )
    .map((m) => m.run_id);
  if (unvalidated.length > 0)
    add(
      "validation_missing",
      false,
      `${unvalidated.length} member run(s) have no passing validation`,
      unvalidated,
    );
  return out;
}
