/**
 * What one process keeps decoded between analyses: evidence parts and the SQL engine's
 * generation tables, kept across calls and commits (both are immutable per generation);
 * each gets half the analysis cache budget.
 */
import type { EngineStats, EvidenceEngine } from "../analysis/evidence-engine.ts";
import type { PartCache, PartCacheStats } from "../analysis/evidence-parts.ts";

// Made on first use: both bring apache-arrow and parquet-wasm, which commands such as
// `import` and `status` never need.
const partsModule = () => import("../analysis/evidence-parts.ts");
const engineModule = () => import("../analysis/evidence-engine.ts");

export interface AnalysisCacheStatus {
  budget_bytes: number;
  parts: PartCacheStats;
  engine: EngineStats;
}

export class AnalysisCache {
  private parts: PartCache | null = null;
  private engine: EvidenceEngine | null = null;

  /** `budgetBytes` is read at each use, so the workspace's configuration stays the one source. */
  constructor(private readonly budgetBytes: () => number) {}

  async partCache(): Promise<PartCache> {
    if (!this.parts) {
      const { PartCache } = await partsModule();
      this.parts ??= new PartCache(Math.floor(this.budgetBytes() / 2));
    }
    return this.parts;
  }

  async evidenceEngine(): Promise<EvidenceEngine> {
    if (!this.engine) {
      const { EvidenceEngine } = await engineModule();
      this.engine ??= new EvidenceEngine({ budgetBytes: Math.floor(this.budgetBytes() / 2) });
    }
    return this.engine;
  }

  /** The budget, decoded parts and engine tables; zeros for what was never made. */
  status(): AnalysisCacheStatus {
    const budget = this.budgetBytes();
    return {
      budget_bytes: budget,
      parts: this.parts?.stats() ?? {
        budget_bytes: Math.floor(budget / 2),
        bytes: 0,
        parts: 0,
        loads: 0,
        hits: 0,
        evictions: 0,
      },
      engine: this.engine?.stats() ?? {
        open: false,
        budget_bytes: Math.floor(budget / 2),
        bytes: 0,
        tables: 0,
        loads: 0,
        evictions: 0,
        starts: 0,
      },
    };
  }

  /**
   * Which generations' tables the readers have decoded, oldest first (each load once while cached).
   */
  partLoads(): readonly { generation_id: string; table: string }[] {
    return this.parts?.loads() ?? [];
  }

  close(): void {
    this.engine?.close();
  }
}
