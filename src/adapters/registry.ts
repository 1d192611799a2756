/**
 * The producer adapters flameox knows, and format detection over them. Detection only
 * looks at the head of the payload; the adapter with the highest confidence wins.
 */
import type { DetectInput, ProducerAdapter } from "./adapter.ts";
import { chromeTraceAdapter } from "./chrome-trace/adapter.ts";
import { v8CpuProfileAdapter } from "./v8-cpuprofile/adapter.ts";

export const ADAPTERS: ProducerAdapter[] = [v8CpuProfileAdapter, chromeTraceAdapter];

export function detectAdapter(input: DetectInput): ProducerAdapter | null {
  let best: ProducerAdapter | null = null;
  let bestConfidence = 0;
  for (const adapter of ADAPTERS) {
    const confidence = adapter.detect(input);
    if (confidence > bestConfidence) {
      best = adapter;
      bestConfidence = confidence;
    }
  }
  return best;
}

export function adapterByName(name: string): ProducerAdapter | null {
  return ADAPTERS.find((adapter) => adapter.name === name) ?? null;
}
