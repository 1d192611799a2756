/**
 * What an experiment trial adds to its capture: where the workload writes its samples
 * (flameox.benchmark-samples.v1 JSON at $FLAMEOX_SAMPLES_PATH, inside the capture's output
 * directory so a managed sandbox lets it write there) and which trial it is. With
 * metric_source `process_wall_time`, the broker's wall time of a cleanly exited workload
 * is written as the trial's one sample instead. The samples file is registered and
 * extracted by the benchmark-samples format adapter, like any collector output.
 */
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ExecutionExtension } from "../capture/execution-extension.ts";
import type { TrialRequest } from "./trial-executor.ts";

export const SAMPLES_FILE = "flameox-samples.json";
export const SAMPLES_KIND = "benchmark_samples";
export const SAMPLES_DISPLAY_NAME = "samples.json";

export function trialExtension(request: TrialRequest): ExecutionExtension {
  return {
    environment: (dirs) => ({
      FLAMEOX_SAMPLES_PATH: join(dirs.outDir, SAMPLES_FILE),
      FLAMEOX_TRIAL_ID: request.trial_id,
      FLAMEOX_BLOCK_ID: request.block_id,
      FLAMEOX_VARIANT: request.variant,
    }),
    async collect(dirs, outcome) {
      const path = join(dirs.outDir, SAMPLES_FILE);
      const exited = outcome.termination.kind === "exited" && outcome.termination.exit_code === 0;
      let producer = { name: "workload", version: null as string | null };
      if (request.metric_source === "process_wall_time" && exited) {
        const doc = {
          schema_version: "flameox.benchmark-samples.v1",
          producer: "flameox-broker",
          producer_version: "1",
          benchmarks: [
            {
              name: request.instance.name,
              unit: "ms",
              measurement_clock: "host",
              samples: [outcome.termination.wall_ms],
            },
          ],
        };
        await writeFile(path, JSON.stringify(doc));
        producer = { name: "flameox.broker", version: "1" };
      }
      if (!existsSync(path)) return { outputs: [], limitations: [] };
      return {
        outputs: [
          {
            file: SAMPLES_FILE,
            displayName: SAMPLES_DISPLAY_NAME,
            kind: SAMPLES_KIND,
            mediaType: "application/json",
            extractor: "benchmark-samples",
            producer,
          },
        ],
        limitations: [],
      };
    },
  };
}
