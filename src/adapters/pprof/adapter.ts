/**
 * The `pprof` adapter: profile.proto profiles (Go runtime/pprof, gperftools, @datadog/pprof,
 * gzip handled by the worker): every sample type with a flameox metric, locations,
 * inlined functions and lines as frames, per-type measurements, edges and stacks.
 * Read by the WASM wire scanner on both entry points.
 */
import type { ProducerAdapter, StreamedEvidence, StreamExtractInput } from "../adapter.ts";
import { pprofDescription } from "./description.ts";
import { pprofEvidence } from "./normalize-pprof.ts";
import { scanPprof } from "./scan-pprof.ts";

const SELF = { name: pprofDescription.name, version: pprofDescription.version };

export const pprofAdapter: ProducerAdapter = {
  ...pprofDescription,
  async extractStream(input: StreamExtractInput): Promise<StreamedEvidence> {
    const parsed = await scanPprof(
      input.chunks,
      input.limits.maxNestingDepth,
      input.limits.maxEvents,
    );
    return { ...pprofEvidence(parsed, input.limits.maxEvents, SELF), streamed: [] };
  },
};
