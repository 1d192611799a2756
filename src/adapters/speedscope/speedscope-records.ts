/**
 * Cursors over a scanned speedscope file's spools (scan-speedscope.ts gives the record
 * layouts): each reads its spool's records in order, one at a time, into reused fields,
 * and can pass over records that belong to no profile being read (arrays a profile's type
 * does not use, or repeated keys).
 */
import type { RecordSpool, SpoolReader } from "../common/record-spool.ts";
import {
  EVENT_BYTES,
  SAMPLE_HEAD_BYTES,
  type SpeedscopeSpools,
  WEIGHT_BYTES,
} from "./scan-speedscope.ts";

abstract class Cursor {
  protected readonly reader: SpoolReader;
  /** Records read so far (the index of the next one). */
  record = 0;

  constructor(spool: RecordSpool) {
    this.reader = spool.reader();
  }

  /** Passes over records until `record` is the next one. */
  seek(record: number): void {
    while (this.record < record) this.pass();
  }

  protected abstract pass(): void;
}

export class SampleCursor extends Cursor {
  kind = 0;
  length = 0;
  /** Entries of the sample read last: frame indexes, or minus the JSON kind of a bad one. */
  frames = new Int32Array(64);

  next(): void {
    const r = this.reader;
    r.need(SAMPLE_HEAD_BYTES);
    this.kind = r.i32();
    const n = r.i32();
    r.need(4 * n);
    if (this.frames.length < n) this.frames = new Int32Array(Math.max(n, this.frames.length * 2));
    for (let k = 0; k < n; k++) this.frames[k] = r.i32();
    this.length = n;
    this.record++;
  }

  protected pass(): void {
    const r = this.reader;
    r.need(SAMPLE_HEAD_BYTES);
    r.i32();
    r.skip(4 * r.i32());
    this.record++;
  }
}

export class WeightCursor extends Cursor {
  kind = 0;
  value = 0;

  next(): void {
    const r = this.reader;
    r.need(WEIGHT_BYTES);
    this.kind = r.i32();
    this.value = r.f64();
    this.record++;
  }

  protected pass(): void {
    this.reader.skip(WEIGHT_BYTES);
    this.record++;
  }
}

export class EventCursor extends Cursor {
  kinds = 0;
  frame = 0;
  at = 0;

  get selfKind(): number {
    return this.kinds & 15;
  }
  get typeKind(): number {
    return (this.kinds >> 4) & 15;
  }
  get atKind(): number {
    return (this.kinds >> 8) & 15;
  }
  /** EVENT_OPEN, EVENT_CLOSE, or 0 for anything else. */
  get type(): number {
    return (this.kinds >> 12) & 3;
  }

  next(): void {
    const r = this.reader;
    r.need(EVENT_BYTES);
    this.kinds = r.i32();
    this.frame = r.i32();
    this.at = r.f64();
    this.record++;
  }

  protected pass(): void {
    this.reader.skip(EVENT_BYTES);
    this.record++;
  }
}

export function cursorsOf(spools: SpeedscopeSpools): {
  samples: SampleCursor;
  weights: WeightCursor;
  events: EventCursor;
} {
  return {
    samples: new SampleCursor(spools.samples),
    weights: new WeightCursor(spools.weights),
    events: new EventCursor(spools.events),
  };
}
