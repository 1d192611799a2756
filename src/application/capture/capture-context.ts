/** What capture use cases share within one process: the workspace, probes and the plan registry. */
import { workloadEnvironment } from "../../broker/child-environment.ts";
import { PlanRegistry, type PlanRegistryOptions } from "../../broker/plan-registry.ts";
import type { Workspace } from "../../storage/workspace.ts";
import { CapabilityProber } from "./capabilities.ts";
import type { CapturePlan } from "./capture-plan.ts";
import { ContainmentProber } from "./containment-probe.ts";

export interface CaptureContext {
  ws: Workspace;
  prober: CapabilityProber;
  containment: ContainmentProber;
  registry: PlanRegistry<CapturePlan>;
}

/** Probes look at the child PATH (the one a workload will get), never flameox's own. */
export function createCaptureContext(
  ws: Workspace,
  options: PlanRegistryOptions = {},
): CaptureContext {
  const childPath = () => workloadEnvironment(ws.config.execution, process.env).PATH;
  const prober = new CapabilityProber(ws.paths.projectRoot, childPath);
  return {
    ws,
    prober,
    containment: new ContainmentProber(ws.paths.projectRoot, childPath),
    registry: new PlanRegistry<CapturePlan>(options),
  };
}
