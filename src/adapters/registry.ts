/**
 * The producer adapters flameox knows, each with its parser loaded, and format detection
 * over them. Detection only looks at the head of the payload; the adapter with the highest
 * confidence wins. Loading this module loads every adapter's parsing code: the parse
 * worker, which needs only one parser, detects over adapter-entries.ts instead.
 */
import type { DetectInput, ProducerAdapter } from "./adapter.ts";
import { ADAPTER_ENTRIES, mostConfident } from "./adapter-entries.ts";

export const ADAPTERS: readonly ProducerAdapter[] = await Promise.all(
  ADAPTER_ENTRIES.map((entry) => entry.load()),
);

export function detectAdapter(input: DetectInput): ProducerAdapter | null {
  return mostConfident(ADAPTERS, input);
}

export function adapterByName(name: string): ProducerAdapter | null {
  return ADAPTERS.find((adapter) => adapter.name === name) ?? null;
}
