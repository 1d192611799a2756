/**
 * `command`: the workload runs as declared, with no profiler. The evidence is the run
 * itself: exit status, wall time, output and sampled resources. Always available.
 */
import { type } from "arktype";
import { type AdapterPlan, type CaptureAdapter, boundWorkload } from "../capture-adapter.ts";

export const commandCaptureAdapter: CaptureAdapter = {
  name: "command",
  version: "1",
  description:
    "Runs the workload as declared: exit status, wall time, stdout/stderr and process-tree " +
    "resources; no profiler",
  tools: [],
  permissionSensitive: false,
  sysctl: [],
  probesWorkloadExecutable: false,
  options: type({ "+": "reject" }),
  readinessProbes: () => [],
  assess: () => ({
    status: "available",
    reason: "needs nothing beyond the workload itself",
    features: {},
    limitations: [],
  }),
  plan(input): AdapterPlan {
    return {
      command: boundWorkload(input),
      environment: {},
      postSteps: [],
      deadlineSeconds: input.timeoutSeconds,
      effectiveOptions: {},
      producer: { name: "flameox.command", version: "1" },
      limitations: [],
    };
  },
  collect: () => ({ artifacts: [], summary: null, limitations: [] }),
};
