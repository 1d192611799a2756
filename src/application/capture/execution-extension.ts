/**
 * What a caller that runs a capture plan as one step of a larger protocol (an experiment
 * trial) adds to that one execution, without a second execution path: variables flameox
 * itself defines (never values taken from the caller's environment), and outputs the
 * workload writes under a flameox contract rather than the collector's (benchmark
 * samples). Those outputs are registered and extracted exactly like the collector's.
 */
import type { Limitation } from "../../domain/evidence-status.ts";
import type { CaptureDirs, ProcessOutcome } from "./run-capture.ts";

export interface ExtensionOutput {
  /** A file name directly in the output directory. */
  file: string;
  displayName: string;
  kind: string;
  mediaType: string;
  /** Format adapter that extracts it. */
  extractor: string;
  producer: { name: string; version: string | null };
}

export interface ExecutionExtension {
  /** Added to the plan's bound child environment for the workload and its oracle. */
  environment(dirs: CaptureDirs): Record<string, string>;
  /** Called after the processes end, before registration; may write into the output directory. */
  collect(
    dirs: CaptureDirs,
    outcome: ProcessOutcome,
  ): Promise<{ outputs: ExtensionOutput[]; limitations: Limitation[] }>;
}
