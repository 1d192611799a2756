/**
 * The OTLP recipes over one artifact's spans: operation windows, parent→child transitions
 * and lifecycle gaps, behind `flameox trace operation-window|transitions|gaps` and their MCP tools.
 * They query through the shared evidence engine; the recipes' module loads on first use.
 */
import type {
  GapsResult,
  OperationWindowResult,
  TransitionsResult,
} from "../analysis/otel-lifecycle.ts";
import type { EvidenceEngine } from "../analysis/evidence-engine.ts";
import { resolveSubject } from "../analysis/subject.ts";
import { FlameoxError } from "../domain/errors.ts";
import type { SnapshotHandle } from "../storage/snapshot.ts";
import type { Workspace } from "../storage/workspace.ts";

const otelRecipes = () => import("../analysis/otel-lifecycle.ts");

export class OperationAnalyses {
  constructor(
    private readonly ws: Workspace,
    private readonly pin: () => SnapshotHandle,
    private readonly limit: (limit: number | undefined) => number,
    private readonly engine: () => Promise<EvidenceEngine>,
  ) {}

  /** OTLP: spans of a trace artifact overlapping [start, end] unix ns, optionally of one trace. */
  async window(
    artifactRef: string,
    options: {
      startNs: bigint;
      endNs: bigint;
      traceId?: string | null;
      limit?: number;
      cursor?: string | null;
    },
  ): Promise<OperationWindowResult> {
    const { snapshot, subject } = this.subject(artifactRef);
    return (await otelRecipes()).operationWindow(await this.engine(), snapshot, subject, {
      ...options,
      traceId: options.traceId ?? null,
      limit: this.limit(options.limit),
    });
  }

  /** OTLP: parent→child span name transitions down to maxDepth. */
  async transitions(
    artifactRef: string,
    options: { maxDepth?: number; traceId?: string | null; limit?: number; cursor?: string | null },
  ): Promise<TransitionsResult> {
    const { snapshot, subject } = this.subject(artifactRef);
    const maxDepth = options.maxDepth ?? 8;
    if (!Number.isInteger(maxDepth) || maxDepth < 1 || maxDepth > 64) {
      throw new FlameoxError(
        "INVALID_ARGUMENTS",
        `Expected max_depth to be an integer from 1 to 64 but found ${maxDepth}`,
        { details: { field: "max_depth" } },
      );
    }
    return (await otelRecipes()).operationTransitions(await this.engine(), snapshot, subject, {
      ...options,
      maxDepth,
      traceId: options.traceId ?? null,
      limit: this.limit(options.limit),
    });
  }

  /** OTLP: missing parents, bad timestamps and bad identities. */
  async gaps(artifactRef: string, options: { limit?: number }): Promise<GapsResult> {
    const { snapshot, subject } = this.subject(artifactRef);
    return (await otelRecipes()).lifecycleGaps(await this.engine(), snapshot, subject, {
      limit: this.limit(options.limit),
    });
  }

  private subject(artifactRef: string) {
    const snapshot = this.pin();
    const subject = resolveSubject(this.ws, snapshot, artifactRef);
    if (subject.type !== "artifact")
      throw new FlameoxError("INVALID_ARGUMENTS", "Expected an artifact id of an OTLP trace", {
        details: { field: "artifact_id" },
      });
    return { snapshot, subject };
  }
}
