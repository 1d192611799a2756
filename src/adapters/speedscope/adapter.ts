/**
 * The `speedscope` adapter: speedscope's own JSON format (any version: `version` 0.x
 * files and `exporter`-stamped ones), which is also py-spy's `--format speedscope`
 * output: shared frames, evented and sampled profiles, every unit, several profiles (one
 * track each). Read by the WASM JSON scanner in both paths: the shared frames and one
 * header per profile are kept as objects; samples, weights and events as compact records
 * that spill to scratch space (a file may name its frames and units after its samples),
 * checked (speedscope-checks.ts) and then measured (speedscope-evidence.ts) from there.
 * Stacks spill, and stacks and slices stream, so the worker's memory does not grow with
 * the file.
 */
import type {
  EvidenceSink,
  ProducerAdapter,
  SpillSpace,
  StreamedEvidence,
  StreamExtractInput,
} from "../adapter.ts";
import { emptyTables, type NormalizedEvidence } from "../../domain/normalized-evidence.ts";
import { RecordSpool } from "../common/record-spool.ts";
import { SampledStacks } from "../common/sampled-stacks.ts";
import { tableBufferToBatch } from "../common/table-buffer-batch.ts";
import { speedscopeDescription } from "./description.ts";
import { scanSpeedscope, type SpeedscopeScan, type SpeedscopeSpools } from "./scan-speedscope.ts";
import { checkSpeedscope } from "./speedscope-checks.ts";
import { type SliceRows, speedscopeEvidence } from "./speedscope-evidence.ts";
import { cursorsOf } from "./speedscope-records.ts";

const SELF = { name: speedscopeDescription.name, version: speedscopeDescription.version };
/** Slices per batch written through the sink. */
const SLICES_PER_BATCH = 16384;

function spoolsOf(space: SpillSpace | undefined, memoryBytes?: number): SpeedscopeSpools {
  return {
    samples: new RecordSpool(space, memoryBytes),
    weights: new RecordSpool(space, memoryBytes),
    events: new RecordSpool(space, memoryBytes),
  };
}

function disposeSpools(spools: SpeedscopeSpools): void {
  spools.samples.dispose();
  spools.weights.dispose();
  spools.events.dispose();
}

/** Checks and measures a scan; yields whenever `rows` holds a full buffer of slices. */
function* measured(
  scan: SpeedscopeScan,
  maxEvents: number,
  out: SampledStacks,
  rows: SliceRows,
): Generator<void, Omit<NormalizedEvidence, "tables">> {
  const file = checkSpeedscope(scan, maxEvents);
  return yield* speedscopeEvidence(file, cursorsOf(scan.spools), out, rows, SELF);
}

async function writeSlices(sink: EvidenceSink, rows: SliceRows): Promise<void> {
  if (rows.events.rowCount === 0) return;
  await sink.writeBatch(tableBufferToBatch(rows.events));
  rows.events = emptyTables().trace_events;
}

export const speedscopeAdapter: ProducerAdapter = {
  ...speedscopeDescription,
  async extractStream(input: StreamExtractInput): Promise<StreamedEvidence> {
    const spools = spoolsOf(input.spill, input.recordBytesInMemory);
    const out = new SampledStacks({
      spill: input.spill,
      maxStacksInMemory: input.maxStacksInMemory,
    });
    const { trace_events, tracks } = emptyTables();
    // Slices are events held in memory until written: tests lower the batch as they lower runs.
    const flushAt = input.spoolRunEvents ?? SLICES_PER_BATCH;
    const rows: SliceRows = { events: trace_events, tracks, flushAt };
    let described: Omit<NormalizedEvidence, "tables">;
    try {
      const scan = await scanSpeedscope(input.chunks, input.limits, spools);
      const run = measured(scan, input.limits.maxEvents, out, rows);
      let step = run.next();
      while (!step.done) {
        await writeSlices(input.sink, rows);
        step = run.next();
      }
      described = step.value;
      await writeSlices(input.sink, rows);
    } finally {
      disposeSpools(spools);
    }
    return {
      ...described,
      tables: { ...(await out.emitStreamed(input.sink)), tracks: rows.tracks },
      streamed: ["stacks", "trace_events"],
    };
  },
};
