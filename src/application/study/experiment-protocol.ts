/**
 * plan_experiment: resolves the declared experiment, instantiates the workload for every
 * treatment (so a bad parameter fails before anything runs), draws the block order from
 * the recorded seed, and binds it all into a single-use plan token (same registry rules as
 * capture plans: TTL 300 s, capacity 64, consumed before the first trial).
 */
import { digestOf } from "../../domain/canonical-digest.ts";
import { planBlocks, type PlannedCell } from "../../domain/experiment/block-design.ts";
import type { ExperimentDefinition } from "../../domain/experiment/experiment-definition.ts";
import { instantiateWorkload, type WorkloadInstance } from "../../domain/workload/workload-instance.ts";
import { SeededRandom } from "../../analysis/statistics/prng.ts";
import { PlanRegistry, type IssuedPlan } from "../../broker/plan-registry.ts";
import { loadExperiment } from "./experiment-config.ts";

export interface ExperimentProtocol {
  schema_version: 1;
  name: string;
  configuration_id: string;
  definition: ExperimentDefinition;
  investigation_id: string | null;
  hypothesis_id: string | null;
  /** Digest of the measurement side: metric, source, scope and the workload instances per treatment. */
  measurement_protocol_id: string;
  validation: { oracle_strength: string | null; oracle_argv: string[] | null };
  randomization: { method: "seeded_fisher_yates_per_block"; prng: "xoshiro128**/splitmix32"; seed: number };
  cells: PlannedCell[];
  instances: Record<string, WorkloadInstance>;
}

export interface ExperimentPlan extends IssuedPlan {
  protocol: ExperimentProtocol;
  request_digest: string;
  trials_planned: number;
}

export const experimentPlans = new PlanRegistry<ExperimentProtocol>({ capacity: 64 });

export const cellKey = (cell: Pick<PlannedCell, "variant" | "scaling_value">): string => `${cell.variant}@${cell.scaling_value ?? "-"}`;

export function buildProtocol(projectRoot: string, request: { name: string; investigation_id?: string | null; hypothesis_id?: string | null }): ExperimentProtocol {
  const { configuration_id, definition, workload } = loadExperiment(projectRoot, request.name);
  const rng = new SeededRandom(definition.random_seed);
  const cells = planBlocks(definition, (items) => rng.shuffle(items));
  const instances: Record<string, WorkloadInstance> = {};
  for (const cell of cells) instances[cellKey(cell)] ??= instantiateWorkload(workload, cell.parameters);
  return {
    schema_version: 1,
    name: definition.name,
    configuration_id,
    definition,
    investigation_id: request.investigation_id ?? null,
    hypothesis_id: request.hypothesis_id ?? null,
    measurement_protocol_id: digestOf({
      metric: definition.primary_metric,
      scope: definition.metric_scope,
      source: definition.metric_source,
      instances: Object.fromEntries(Object.entries(instances).map(([k, v]) => [k, v.workload_instance_id])),
    }),
    validation: { oracle_strength: workload.oracle?.strength ?? null, oracle_argv: workload.oracle?.argv ?? null },
    randomization: { method: "seeded_fisher_yates_per_block", prng: "xoshiro128**/splitmix32", seed: definition.random_seed },
    cells,
    instances,
  };
}

export function planExperiment(projectRoot: string, request: { name: string; investigation_id?: string | null; hypothesis_id?: string | null }): ExperimentPlan {
  const protocol = buildProtocol(projectRoot, request);
  const issued = experimentPlans.issue(protocol);
  return { ...issued, protocol, request_digest: digestOf(request), trials_planned: protocol.cells.length };
}
