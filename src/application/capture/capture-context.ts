/** What capture use cases share within one process: the workspace, probes and the plan registry. */
import type { PlanRegistry } from "../../broker/plan-registry.ts";
import type { Workspace } from "../../storage/workspace.ts";
import type { CapabilityProber } from "./capabilities.ts";
import type { CapturePlan } from "./capture-plan.ts";
import type { ContainmentProber } from "./containment-probe.ts";

export interface CaptureContext {
  ws: Workspace;
  prober: CapabilityProber;
  containment: ContainmentProber;
  registry: PlanRegistry<CapturePlan>;
}
