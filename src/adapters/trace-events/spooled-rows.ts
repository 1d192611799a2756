/**
 * The final pass of a spooled trace: merges the spool's runs into (track, start, seq)
 * order, runs each track through TrackSlicing (B/E pairing, nesting, wall_time) and yields
 * `trace_events` batches as they fill, so rows reach the Parquet writer while the merge
 * goes on. The spool's runs and the slicing's overflow are deleted when the pass ends, however it
 * ends.
 */
import type { ColumnBatch } from "../../domain/column-batch.ts";
import type { EventSpool } from "./event-spool.ts";
import type { TraceRowWriter } from "./trace-row-writer.ts";
import type { TrackSlicing } from "./track-slicing.ts";

/** The full batches of the last slicing call, resuming it while it paused on them. */
function* written(slicing: TrackSlicing, rows: TraceRowWriter): Generator<ColumnBatch> {
  for (;;) {
    if (rows.ready) yield* rows.take();
    if (!slicing.paused) return;
    slicing.resume();
  }
}

export function* spooledRows(
  spool: EventSpool,
  trackEndNs: readonly number[],
  slicing: TrackSlicing,
  rows: TraceRowWriter,
): Generator<ColumnBatch> {
  try {
    const merge = spool.drain();
    let track = -1;
    while (merge.next()) {
      const c = merge.current!;
      const t = c.v.track[c.i]!;
      if (t !== track) {
        if (track >= 0) {
          slicing.endTrack();
          yield* written(slicing, rows);
        }
        track = t;
        slicing.beginTrack(t, trackEndNs[t]!);
      }
      slicing.event(c);
      // Most events fill no batch: only then is a generator made to hand batches over.
      if (rows.ready || slicing.paused) yield* written(slicing, rows);
    }
    if (track >= 0) {
      slicing.endTrack();
      yield* written(slicing, rows);
    }
    yield* rows.finish();
  } finally {
    slicing.dispose();
    spool.dispose();
  }
}
