/**
 * The reference implementation of the `dhat` adapter: the whole payload through guarded
 * JSON.parse into one object per program point (dhat-file.ts), then every rule written out
 * over them. Production scans the document with the WASM JSON scanner and keeps program
 * points compactly (src/adapters/dhat/); the equivalence tests run both and require the
 * same tables, summary, limitations and error codes.
 */
import type { ExtractInput } from "../../../src/adapters/adapter.ts";
import { described, type ReferenceAdapter } from "../adapter-harness.ts";
import type { Limitation } from "../../../src/domain/evidence-status.ts";
import type { NormalizedEvidence } from "../../../src/domain/normalized-evidence.ts";
import { SampledStacks } from "../../../src/adapters/common/sampled-stacks.ts";
import { valgrindFrame } from "../../../src/adapters/common/valgrind-frame.ts";
import { parseJsonPayload, tooLarge } from "../../../src/adapters/json-guard.ts";
import { dhatAdapter } from "../../../src/adapters/dhat/adapter.ts";
import { DHAT_FORMAT, readDhatFile } from "./dhat-file.ts";

const SELF = { name: dhatAdapter.name, version: dhatAdapter.version };
const HEAP_MODES = new Set(["heap", "rust-heap"]);
const VALGRIND_ALLOCATOR = /\(in [^)]*\/vgpreload_[^)/]*\.so\)$/;

/** The production adapter's description with the reference `extract`. */
export const dhatReference: ReferenceAdapter = {
  ...described(dhatAdapter),
  extract(input: ExtractInput): NormalizedEvidence {
    const { value } = parseJsonPayload(input.bytes, input.limits.maxNestingDepth, DHAT_FORMAT);
    const file = readDhatFile(value);
    if (file.pps.length > input.limits.maxEvents)
      throw tooLarge(DHAT_FORMAT, "program points", file.pps.length, input.limits.maxEvents);
    const out = new SampledStacks();
    const limitations: Limitation[] = [];
    const heap = HEAP_MODES.has(file.mode);
    let allocatorFrames = 0;
    let withoutStack = 0;
    if (heap) {
      const frameIndex = new Map<number, number>();
      const frameOf = (i: number) => {
        let f = frameIndex.get(i);
        if (f === undefined) {
          const parsed = valgrindFrame(file.frames[i]!);
          f = out.frames.intern(parsed.key, parsed.record);
          frameIndex.set(i, f);
        }
        return f;
      };
      const sums = { alloc: 0, inuse: 0 };
      for (const pp of file.pps) {
        let first = 0;
        while (first < pp.fs.length && VALGRIND_ALLOCATOR.test(file.frames[pp.fs[first]!]!))
          first++;
        allocatorFrames += first;
        // Index 0 is DHAT's "[root]" pseudo-frame, never part of a stack.
        const path = pp.fs
          .slice(first)
          .filter((i) => i !== 0)
          .reverse()
          .map(frameOf);
        if (path.length === 0) {
          withoutStack++;
          continue;
        }
        sums.alloc += pp.tb;
        sums.inuse += pp.gb ?? 0;
        if (sums.alloc > Number.MAX_SAFE_INTEGER)
          throw tooLarge(DHAT_FORMAT, "summed bytes", sums.alloc, Number.MAX_SAFE_INTEGER);
        if (pp.tbk > 0) {
          out.metric("alloc_space", "bytes").add(path, 0, pp.tbk, pp.tb);
          out.metric("alloc_objects", "count").add(path, 0, pp.tbk, pp.tbk);
        }
        if (pp.gbk !== null && pp.gbk > 0) {
          out.metric("inuse_space", "bytes").add(path, 0, pp.gbk, pp.gb!);
          out.metric("inuse_objects", "count").add(path, 0, pp.gbk, pp.gbk);
        }
      }
      if (!file.lifetimes)
        limitations.push({
          code: "no_block_lifetimes",
          message:
            "The profile did not track block lifetimes (bklt false): no in-use (peak) metrics",
        });
      if (withoutStack > 0)
        limitations.push({
          code: "samples_without_stack",
          message: "Program points with no frame besides the allocator were not attributed",
          count: withoutStack,
        });
    } else {
      limitations.push({
        code: "mode_not_imported",
        message:
          `DHAT ${file.mode} mode counts copies or ad-hoc events, not heap allocations; ` +
          `nothing was imported from it`,
      });
    }
    const unsymbolized = out.frames.countUnsymbolized();
    if (unsymbolized > 0)
      limitations.push({
        code: "missing_symbols",
        message: "Frames DHAT could not name (???)",
        count: unsymbolized,
      });
    return {
      adapter: SELF.name,
      adapterVersion: SELF.version,
      producer: file.mode.startsWith("rust") ? "dhat-rs" : "dhat",
      producerVersion: null,
      tables: out.emitAll(),
      limitations,
      summary: {
        mode: file.mode,
        program_points: file.pps.length,
        frames: out.frames.size,
        allocator_frames_dropped: allocatorFrames,
        block_lifetimes: file.lifetimes,
        metrics: out.metrics.join(","),
      },
    };
  },
};
