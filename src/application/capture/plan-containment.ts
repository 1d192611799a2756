/**
 * The containment a plan gets. trusted_local is reported as uncontained, truthfully.
 * managed needs bubblewrap proven able to build its sandbox here; otherwise the plan is
 * refused, never quietly downgraded. A request may ask for more containment than the
 * workspace policy, never less.
 */
import type {
  ContainmentMode,
  ContainmentReport,
  ResolvedExecutable,
} from "../../domain/capture.ts";
import { FlameoxError } from "../../domain/errors.ts";
import type { CaptureContext } from "./capture-context.ts";

export async function resolveContainment(
  ctx: CaptureContext,
  requested: ContainmentMode | undefined,
  writablePaths: string[],
): Promise<{ report: ContainmentReport; bwrap: ResolvedExecutable | null }> {
  const policy = ctx.ws.config.execution.containment;
  if (policy === "managed" && requested === "trusted_local") {
    throw new FlameoxError(
      "EXECUTION_REFUSED",
      "Cannot plan a trusted_local capture: the workspace policy requires managed " +
        "containment (execution.containment)",
      {
        remediation: ["Plan without containment, or with containment managed"],
      },
    );
  }
  const mode = requested ?? policy;
  if (mode === "trusted_local") {
    return {
      bwrap: null,
      report: {
        mode,
        state: "uncontained",
        network: "allowed",
        backend: null,
        filesystem: "host",
        writable_roots: [],
        limitations: [
          {
            code: "uncontained",
            message:
              "trusted_local runs the workload directly: it can read and write what flameox " +
              "can, and reach the network",
          },
        ],
      },
    };
  }
  const probed = await ctx.containment.probe("active_cached");
  if (probed.report.status !== "available" || !probed.bwrap) {
    throw new FlameoxError(
      "CONTAINMENT_UNAVAILABLE",
      `Cannot plan a managed capture: ${probed.report.reason}`,
      {
        details: { capability: probed.report.name, status: probed.report.status },
        remediation: [
          "Install bubblewrap and allow unprivileged user namespaces, or plan with " +
            "containment trusted_local (reported as uncontained)",
        ],
      },
    );
  }
  return {
    bwrap: probed.bwrap,
    report: {
      mode,
      state: "contained",
      network: "denied",
      backend: "bubblewrap",
      filesystem: "read_only_root",
      writable_roots: [...writablePaths],
      limitations: probed.report.limitations,
    },
  };
}
