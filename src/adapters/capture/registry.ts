/** The capture adapters flameox knows, registered explicitly. */
import type { CaptureAdapter } from "./capture-adapter.ts";
import { commandCaptureAdapter } from "./command/adapter.ts";
import { hyperfineCaptureAdapter } from "./hyperfine/adapter.ts";
import { perfCaptureAdapter } from "./perf/adapter.ts";
import { v8CpuCaptureAdapter } from "./v8-cpu/adapter.ts";
import { v8HeapCaptureAdapter } from "./v8-heap/adapter.ts";

export const CAPTURE_ADAPTERS: readonly CaptureAdapter[] = [
  commandCaptureAdapter,
  v8CpuCaptureAdapter,
  v8HeapCaptureAdapter,
  perfCaptureAdapter,
  hyperfineCaptureAdapter,
];

export const CAPTURE_ADAPTER_NAMES = CAPTURE_ADAPTERS.map((a) => a.name);

export function captureAdapterByName(name: string): CaptureAdapter | null {
  return CAPTURE_ADAPTERS.find((adapter) => adapter.name === name) ?? null;
}
