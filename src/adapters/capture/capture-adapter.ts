/**
 * The interface of a capture adapter: how one maintained measurement tool is probed,
 * planned, and how its outputs become artifacts. Capture adapters are pure, like the
 * format adapters beside them: they describe the commands to run and interpret what
 * came back, and the application runs every command through the broker. So process
 * creation stays in one place, and an adapter can be tested without a process.
 */
import type { Type } from "arktype";
import type {
  CapabilityStatus,
  ResolvedExecutable,
  TerminationKind,
} from "../../domain/capture.ts";
import type { Limitation } from "../../domain/evidence-status.ts";

/**
 * One argv item: literal text, or a path inside the capture's output directory (bound at
 * execution).
 */
export type CommandPart = string | { output: string; prefix?: string };

/** What the application learned about the host for one adapter. */
export interface HostFacts {
  /** Host tools the adapter named, resolved on the child PATH, with their `--version` output. */
  tools: Record<
    string,
    { executable: ResolvedExecutable; version: string | null } | { absent: string }
  >;
  /** Readiness probes by id; null when the probe could not run (its tool is absent). */
  probes: Record<string, ProbeOutcome | null>;
  /** Kernel settings the adapter asked for, by /proc/sys path (e.g. kernel/perf_event_paranoid). */
  sysctl: Record<string, string | null>;
  /** Effective user id of flameox (children inherit it), null where unknown. */
  euid: number | null;
}

export interface ProbeOutcome {
  exitCode: number | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

export interface ReadinessProbe {
  id: string;
  tool: string;
  args: CommandPart[];
  timeoutMs: number;
}

export interface Assessment {
  status: CapabilityStatus;
  reason: string;
  features: Record<string, string | number | boolean | null>;
  limitations: Limitation[];
}

export interface AdapterPlanInput {
  /** The workload instance's argv; item 0 is replaced by the bound executable's path. */
  workloadArgv: string[];
  workloadExecutable: ResolvedExecutable;
  /** `--version` output of the workload executable, when the adapter asked for it. */
  workloadVersion: string | null;
  tools: Record<string, ResolvedExecutable>;
  toolVersions: Record<string, string | null>;
  options: Record<string, unknown>;
  timeoutSeconds: number;
}

export interface PostStep {
  id: string;
  tool: string;
  args: CommandPart[];
  /** stdout is written to this file of the output directory. */
  stdoutTo: string;
  timeoutSeconds: number;
}

export interface AdapterPlan {
  command: CommandPart[];
  environment: Record<string, string>;
  postSteps: PostStep[];
  deadlineSeconds: number;
  /** Property-defining options as run semantics (defaults filled in). */
  effectiveOptions: Record<string, string | number | boolean | null>;
  /** Producer and version recorded on the artifacts. */
  producer: { name: string; version: string | null };
  limitations: Limitation[];
}

export interface OutputFile {
  name: string;
  size: number;
}

export interface CollectInput {
  files: OutputFile[];
  /** Reads the first `maxBytes` of an output file (the application owns the I/O). */
  read(name: string, maxBytes: number): Uint8Array;
  termination: TerminationKind;
  /** Outcome of each post step by id (absent when it did not run). */
  postSteps: Record<string, { exitCode: number | null; timedOut: boolean; stderr: string }>;
  producer: { name: string; version: string | null };
  /** Extractors the format registry knows, and evidence tables that exist. */
  extractors: readonly string[];
  tables: readonly string[];
}

export interface CollectedArtifact {
  file: string;
  displayName: string;
  kind: string;
  mediaType: string;
  /** Format adapter that extracts it; null keeps it as a native artifact only. */
  extractor: string | null;
}

export interface Collected {
  artifacts: CollectedArtifact[];
  summary: Record<string, unknown> | null;
  limitations: Limitation[];
}

export interface CaptureAdapter {
  readonly name: string;
  readonly version: string;
  readonly description: string;
  /** Host tools resolved on the child PATH (bound by path and digest) with their version probe. */
  readonly tools: readonly { name: string; versionArgs: string[]; optional?: boolean }[];
  /**
   * Readiness depends on permissions that can change at any time: probe again right before
   * executing.
   */
  readonly permissionSensitive: boolean;
  /** /proc/sys settings that decide readiness. */
  readonly sysctl: readonly string[];
  /** Run `<workload executable> --version` at planning (bounded, non-benchmarking). */
  readonly probesWorkloadExecutable: boolean;
  /**
   * Whether the executable is one this adapter can drive, judged by its bound path alone,
   * so planning never runs (even `--version`) a program the adapter would refuse anyway.
   */
  recognizesExecutable?(executable: ResolvedExecutable): boolean;
  readonly options: Type<Record<string, unknown>>;
  readinessProbes(facts: HostFacts): ReadinessProbe[];
  assess(facts: HostFacts): Assessment;
  /** Throws CAPABILITY_UNAVAILABLE when the workload is incompatible with this adapter. */
  plan(input: AdapterPlanInput): AdapterPlan;
  collect(input: CollectInput): Collected;
}

export function toolOf(
  facts: HostFacts,
  name: string,
): { executable: ResolvedExecutable; version: string | null } | null {
  const tool = facts.tools[name];
  return tool && "executable" in tool ? tool : null;
}

/** The workload argv with item 0 bound to the resolved executable. */
export function boundWorkload(input: AdapterPlanInput): string[] {
  return [input.workloadExecutable.path, ...input.workloadArgv.slice(1)];
}

/** The first line of a tool's version output, trimmed and bounded. */
export function versionLine(text: string): string | null {
  const line =
    text
      .split("\n")
      .find((l) => l.trim().length > 0)
      ?.trim() ?? "";
  return line ? line.slice(0, 200) : null;
}
