/**
 * The capture use cases behind one object, so a long-lived process (the MCP server)
 * keeps one plan registry and one probe cache: workload configuration and approval, capabilities,
 * planning, execution of a plan, plan-and-run (the CLI), and recovery.
 */
import type { PlanRegistryOptions } from "../../broker/plan-registry.ts";
import type { CapabilityReport } from "../../domain/capture.ts";
import { nowIso } from "../../storage/control-plane.ts";
import type { Workspace } from "../../storage/workspace.ts";
import type { ProbeMode } from "./capabilities.ts";
import { type CaptureContext, createCaptureContext } from "./capture-context.ts";
import type { PlanPreview } from "./capture-plan.ts";
import type { CaptureResult } from "./capture-result.ts";
import {
  type ConfigureWorkloadRequest,
  type ConfigureWorkloadResult,
  configureWorkload,
} from "./configure-workload.ts";
import { type ExecuteOptions, executePlan } from "./execute-capture.ts";
import { buildPlan, type PlanRequest } from "./plan-capture.ts";
import { toPreview } from "./plan-preview.ts";
import { recheckPlan } from "./recheck-plan.ts";
import { type RecoverResult, recoverRuns } from "./recover-runs.ts";
import {
  type ApproveResult,
  approveWorkload,
  type RevokeResult,
  revokeWorkload,
} from "./workload-approval.ts";
import {
  showWorkload,
  type WorkloadConfigurationStatus,
  type WorkloadDetail,
  workloadConfigurationStatus,
} from "./workload-queries.ts";

export interface CapabilitiesResult {
  probe: ProbeMode;
  probed_at: string;
  adapters: CapabilityReport[];
  containment: CapabilityReport;
}

export class CaptureService {
  private readonly ctx: CaptureContext;

  constructor(ws: Workspace, options: PlanRegistryOptions = {}) {
    this.ctx = createCaptureContext(ws, options);
  }

  workloadStatus(): WorkloadConfigurationStatus {
    return workloadConfigurationStatus(this.ctx.ws);
  }

  showWorkload(name: string): WorkloadDetail {
    return showWorkload(this.ctx.ws, name);
  }

  /** A person's approval, from the CLI only: no MCP tool reaches this. */
  approveWorkload(name: string, options: { expected?: string } = {}): ApproveResult {
    return approveWorkload(this.ctx.ws, name, options);
  }

  /** Withdraws a workload's approval, from the CLI only. */
  revokeWorkload(name: string): RevokeResult {
    return revokeWorkload(this.ctx.ws, name);
  }

  configureWorkload(request: ConfigureWorkloadRequest): ConfigureWorkloadResult {
    return configureWorkload(this.ctx.ws, request);
  }

  async capabilities(
    mode: ProbeMode = "active_cached",
    adapter?: string,
  ): Promise<CapabilitiesResult> {
    const all = await this.ctx.prober.all(mode);
    return {
      probe: mode,
      probed_at: nowIso(),
      adapters: all.map((p) => p.report).filter((r) => !adapter || r.name === adapter),
      containment: (await this.ctx.containment.probe(mode)).report,
    };
  }

  /** Binds a plan in this process's memory and returns its preview with the single-use plan_id. */
  async plan(request: PlanRequest): Promise<PlanPreview> {
    const plan = await buildPlan(this.ctx, request);
    return toPreview(plan, this.ctx.registry.issue(plan), this.ctx.ws.paths.projectRoot);
  }

  /** Consumes the token first (so it can never run twice), rechecks every binding, then runs. */
  async execute(planId: string, options: ExecuteOptions = {}): Promise<CaptureResult> {
    const plan = this.ctx.registry.consume(planId);
    options.onProgress?.("planning", 0, 1);
    await recheckPlan(this.ctx, plan);
    return executePlan(this.ctx.ws, plan, options);
  }

  /** Plan and execute in one process: the CLI's `capture run`. */
  async run(request: PlanRequest, options: ExecuteOptions = {}): Promise<CaptureResult> {
    const preview = await this.plan(request);
    return this.execute(preview.plan_id, options);
  }

  recover(): RecoverResult {
    return recoverRuns(this.ctx.ws);
  }
}
