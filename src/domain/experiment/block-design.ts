/**
 * Randomized complete blocks: every block holds every treatment cell once (each variant,
 * at each scaling value), and the order inside a block is a Fisher–Yates shuffle drawn
 * from one PRNG stream seeded with the recorded `random_seed`, block after block. The
 * realized order is part of the protocol, stored before the first trial, so anyone can
 * re-derive it from the seed and check it.
 */
import type { ScalarValue } from "../workload/workload-schema.ts";
import type { ExperimentDefinition } from "./experiment-definition.ts";

export interface PlannedCell {
  cell_index: number;
  block_index: number;
  block_id: string;
  order_in_block: number;
  variant: string;
  scaling_value: number | null;
  parameters: Record<string, ScalarValue>;
}

/** A seeded shuffle; the caller supplies the generator so domain code stays free of it. */
export type Shuffler = <T>(items: readonly T[]) => T[];

export function planBlocks(definition: ExperimentDefinition, shuffle: Shuffler): PlannedCell[] {
  const treatments = definition.variants.flatMap((v) =>
    (definition.scaling_values.length > 0 ? definition.scaling_values : [null]).map((value) => ({
      variant: v.name,
      scaling_value: value,
      parameters:
        value === null
          ? { ...v.parameters }
          : { ...v.parameters, [definition.scaling_parameter!]: value },
    })),
  );
  const cells: PlannedCell[] = [];
  for (let b = 0; b < definition.blocks; b++) {
    shuffle(treatments).forEach((t, order) =>
      cells.push({
        cell_index: cells.length,
        block_index: b,
        block_id: `block-${String(b).padStart(4, "0")}`,
        order_in_block: order,
        ...t,
      }),
    );
  }
  return cells;
}
