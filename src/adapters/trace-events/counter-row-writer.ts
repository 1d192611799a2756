/**
 * Builds `trace_counters` rows in column batches as counter readings arrive, while the trace is
 * still being read: a reading needs no nesting, so it skips the event spool, its sort and merge,
 * and its Parquet parts are encoded while the scan goes on, on the core that would otherwise wait
 * for the rows phase. A reading names its track by index (resolved through `tracks` when read),
 * since a track's id is only known once every descriptor has been read.
 */
import type { ColumnBatch } from "../../domain/column-batch.ts";
import {
  DictUtf8Builder,
  Float64Builder,
  Int32Builder,
  Int64Builder,
  type KeyBytes,
} from "../common/column-builders.ts";
import { UNNAMED } from "./event-kinds.ts";
import { ROWS_PER_BATCH } from "./trace-row-writer.ts";

const UNNAMED_BYTES = new TextEncoder().encode(UNNAMED);

export class CounterRowWriter {
  rows = 0;
  private length = 0;
  private readonly eventIndex = new Int64Builder(ROWS_PER_BATCH);
  private readonly track = new Int32Builder(ROWS_PER_BATCH);
  private readonly name: DictUtf8Builder;
  private readonly ts = new Int64Builder(ROWS_PER_BATCH);
  private readonly value = new Float64Builder(ROWS_PER_BATCH);
  private readonly done: ColumnBatch[] = [];

  /** `strings`: the UTF-8 bytes of the name ids readings are added with. */
  constructor(strings: KeyBytes) {
    // Key 0 is an unnamed reading; key id + 1 the string id's value (as in trace_events rows).
    this.name = new DictUtf8Builder(ROWS_PER_BATCH, {
      bytes: (key) => (key === 0 ? UNNAMED_BYTES : strings.bytes(key - 1)),
    });
  }

  /**
   * Reading `eventIndex` of track `track`: `value` at `ns` (an integral double, as trace_events
   * start times are), named by string id `name` (-1: unnamed).
   */
  add(eventIndex: number, track: number, name: number, ns: number, value: number): void {
    const row = this.length;
    this.eventIndex.set(row, eventIndex);
    this.track.set(row, track);
    this.name.set(row, name >= 0 ? name + 1 : 0);
    this.ts.setSum(row, 0, 0, ns);
    this.value.set(row, value);
    this.length++;
    this.rows++;
    if (this.length === ROWS_PER_BATCH) this.close();
  }

  /** Whether full batches are waiting to be taken. */
  get ready(): boolean {
    return this.done.length > 0;
  }

  /** Full batches built so far (taken: the writer forgets them). */
  take(): ColumnBatch[] {
    return this.done.splice(0);
  }

  /** The last batches (none when no reading was added). */
  finish(): ColumnBatch[] {
    if (this.length > 0) this.close();
    return this.take();
  }

  private close(): void {
    const n = this.length;
    this.done.push({
      table: "trace_counters",
      length: n,
      columns: {
        event_index: this.eventIndex.build(n),
        track_index: this.track.build(n),
        name: this.name.build(n),
        ts_ns: this.ts.build(n),
        value: this.value.build(n),
      },
    });
    for (const builder of [this.eventIndex, this.track, this.name, this.ts, this.value])
      builder.reset();
    this.length = 0;
  }
}
