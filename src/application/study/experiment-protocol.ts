/**
 * plan_experiment: resolves the declared experiment, instantiates the workload for every
 * treatment (so a bad parameter fails before anything runs), draws the block order from
 * the recorded seed, and binds one capture plan per distinct workload instance, exactly
 * as `plan_capture` would (executable by path and digest, adapter capability, policy,
 * child environment, source and environment identity). It all sits behind a single-use
 * plan token (same registry rules as capture plans: TTL 300 s, capacity 64, consumed
 * before the first trial); the capture plans never leave this process's memory.
 */
import { digestOf } from "../../domain/canonical-digest.ts";
import { planBlocks, type PlannedCell } from "../../domain/experiment/block-design.ts";
import type { ExperimentDefinition } from "../../domain/experiment/experiment-definition.ts";
import { FlameoxError } from "../../domain/errors.ts";
import {
  instantiateWorkload,
  type WorkloadInstance,
} from "../../domain/workload/workload-instance.ts";
import { SeededRandom } from "../../analysis/statistics/prng.ts";
import { PlanRegistry, type IssuedPlan } from "../../broker/plan-registry.ts";
import type { CaptureContext } from "../capture/capture-context.ts";
import type { CapturePlan } from "../capture/capture-plan.ts";
import { buildPlan } from "../capture/plan-capture.ts";
import { loadExperiment } from "./experiment-config.ts";

/** Without a declared profile, trials run under the `command` adapter: the workload as declared. */
export const DEFAULT_TRIAL_ADAPTER = "command";

/** What every trial's run records about how it was captured (the same for every cell). */
export interface TrialCapture {
  adapter: string;
  adapter_version: string;
  producer: { name: string; version: string | null };
  containment: string;
  source_state_id: string;
  source_quality: string;
  environment_id: string;
  environment_quality: string;
}

export interface ExperimentProtocol {
  schema_version: 1;
  name: string;
  configuration_id: string;
  definition: ExperimentDefinition;
  investigation_id: string | null;
  hypothesis_id: string | null;
  /**
   * Digest of the measurement side: metric, source, scope, capture adapter and the workload
   * instances per treatment.
   */
  measurement_protocol_id: string;
  validation: { oracle_strength: string | null; oracle_argv: string[] | null };
  randomization: {
    method: "seeded_fisher_yates_per_block";
    prng: "xoshiro128**/splitmix32";
    seed: number;
  };
  capture: TrialCapture | null;
  cells: PlannedCell[];
  instances: Record<string, WorkloadInstance>;
}

/**
 * What a plan token binds: the protocol, and the capture plan of each workload instance (by
 * workload_instance_id).
 */
export interface ExperimentBinding {
  protocol: ExperimentProtocol;
  captures: Record<string, CapturePlan>;
}

export interface ExperimentPlan extends IssuedPlan {
  protocol: ExperimentProtocol;
  request_digest: string;
  trials_planned: number;
}

export interface PlanExperimentRequest {
  name: string;
  investigation_id?: string | null;
  hypothesis_id?: string | null;
}

export const experimentPlans = new PlanRegistry<ExperimentBinding>({ capacity: 64 });

export const cellKey = (cell: Pick<PlannedCell, "variant" | "scaling_value">): string =>
  `${cell.variant}@${cell.scaling_value ?? "-"}`;

export const trialAdapterOf = (definition: ExperimentDefinition): string =>
  definition.profile ?? DEFAULT_TRIAL_ADAPTER;

export function buildProtocol(
  projectRoot: string,
  request: PlanExperimentRequest,
): ExperimentProtocol {
  const { configuration_id, definition, workload } = loadExperiment(projectRoot, request.name);
  const rng = new SeededRandom(definition.random_seed);
  const cells = planBlocks(definition, (items) => rng.shuffle(items));
  const instances: Record<string, WorkloadInstance> = {};
  for (const cell of cells)
    instances[cellKey(cell)] ??= instantiateWorkload(workload, cell.parameters);
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
      adapter: trialAdapterOf(definition),
      instances: Object.fromEntries(
        Object.entries(instances).map(([k, v]) => [k, v.workload_instance_id]),
      ),
    }),
    validation: {
      oracle_strength: workload.oracle?.strength ?? null,
      oracle_argv: workload.oracle?.argv ?? null,
    },
    randomization: {
      method: "seeded_fisher_yates_per_block",
      prng: "xoshiro128**/splitmix32",
      seed: definition.random_seed,
    },
    capture: null,
    cells,
    instances,
  };
}

/**
 * Binds a capture plan per distinct workload instance; planning runs only bounded probes, never the
 * workload.
 */
export async function bindCaptures(
  ctx: CaptureContext,
  protocol: ExperimentProtocol,
): Promise<ExperimentBinding> {
  const adapter = trialAdapterOf(protocol.definition);
  const captures: Record<string, CapturePlan> = {};
  for (const instance of Object.values(protocol.instances)) {
    if (captures[instance.workload_instance_id]) continue;
    const plan = await buildPlan(ctx, {
      adapter,
      workload: protocol.definition.workload,
      parameters: instance.parameters,
    });
    if (plan.workload.workload_instance_id !== instance.workload_instance_id) {
      throw new FlameoxError(
        "WORKLOAD_CHANGED",
        `Cannot plan experiment ${protocol.name}: workload ${protocol.definition.workload} ` +
          `changed while it was being planned`,
        {
          remediation: ["Plan the experiment again"],
        },
      );
    }
    captures[instance.workload_instance_id] = plan;
  }
  const first = Object.values(captures)[0]!;
  const capture: TrialCapture = {
    adapter: first.adapter.name,
    adapter_version: first.adapter.version,
    producer: first.producer,
    containment: first.containment.mode,
    source_state_id: first.source.source_state_id,
    source_quality: first.source.identity_quality,
    environment_id: first.environment.environment_id,
    environment_quality: first.environment.identity_quality,
  };
  return { protocol: { ...protocol, capture }, captures };
}

export async function planExperiment(
  ctx: CaptureContext,
  request: PlanExperimentRequest,
): Promise<ExperimentPlan> {
  const binding = await bindCaptures(ctx, buildProtocol(ctx.ws.paths.projectRoot, request));
  const issued = experimentPlans.issue(binding);
  return {
    ...issued,
    protocol: binding.protocol,
    request_digest: digestOf(request),
    trials_planned: binding.protocol.cells.length,
  };
}
