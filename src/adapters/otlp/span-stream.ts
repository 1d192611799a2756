/**
 * The rows of an OTLP protobuf request's spans, events and links, written straight into
 * column builders from the WASM scanner's records: ids hex-encoded and texts copied from the
 * scanner's memory, attributes encoded to JSON bytes, enums named. Nothing is kept per span
 * beyond the open span's own children, so memory does not grow with the number of spans.
 */
import type { EvidenceSink } from "../adapter.ts";
import type { ColumnBatch } from "../../domain/column-batch.ts";
import { parseFailed, tooLarge } from "../json-guard.ts";
import { PT_FIXED32, type ProtoBatch } from "../wasm/proto-batch.ts";
import { ByteBuf } from "../common/json-bytes.ts";
import type { OtlpRows } from "./otlp-rows.ts";
import { writeKeyValueAt } from "./proto-attributes-json.ts";
import { SPAN_KINDS, STATUS_CODES } from "./span-input.ts";
import { traceKey } from "./trace-key.ts";
import { Int32Column, Int64Column, StreamTable, Utf8Column } from "./stream-columns.ts";

const BATCH_ROWS = 16384;
const TWO_32 = 0x1_0000_0000;
const encoder = new TextEncoder();
const enumBytes = (names: readonly string[]) => names.map((n) => encoder.encode(n));
const KIND_BYTES = enumBytes(SPAN_KINDS);
const STATUS_BYTES = enumBytes(STATUS_CODES);
const EMPTY_LIST = encoder.encode("[]");

/** enumName() of an int32 enum field, as bytes. */
function enumCell(col: Utf8Column, value: number, names: Uint8Array[], prefix: string): void {
  const known = value >= 0 ? names[value] : undefined;
  if (known) col.raw(known);
  else col.ascii(`${prefix}${value}`);
  col.commit();
}

/** The text of a bytes slot, or null when absent or empty (as `string || null`). */
function optionalText(col: Utf8Column, u8: Uint8Array, at: number, length: number): void {
  if (at >= 0 && length > 0) {
    col.text(u8, at, at + length);
    if (col.used > col.rowStart) {
      col.commit();
      return;
    }
  }
  col.nullRow();
}

function hexCell(col: Utf8Column, u8: Uint8Array, at: number, length: number): void {
  if (at >= 0) col.hex(u8, at, at + length);
  col.commit();
}

/** OTLP times are fixed64 (unsigned); the columns are int64, so 2^63 and above cannot be stored. */
function checkTime(field: string, low: number, high: number): void {
  if (high < 0)
    throw parseFailed(
      "OTLP trace",
      `a span's ${field} (${(BigInt(high >>> 0) << 32n) | BigInt(low)}) is beyond the int64 ` +
        `range of unix nanoseconds`,
    );
}

/**
 * The rows of otel_spans, otel_span_events and otel_span_links, in columns. Events and
 * links close before their span, which supplies their span_index and ids: they wait in
 * `pending` (bounded by one span) until it closes.
 */
export class SpanStream {
  private readonly spans = new StreamTable("otel_spans", {
    span_index: new Int64Column(),
    resource_index: new Int32Column(),
    scope_index: new Int32Column(),
    trace_id: new Utf8Column(),
    span_id: new Utf8Column(),
    parent_span_id: new Utf8Column(),
    trace_state: new Utf8Column(),
    name: new Utf8Column(),
    kind: new Utf8Column(),
    start_unix_nano: new Int64Column(),
    end_unix_nano: new Int64Column(),
    duration_ns: new Int64Column(),
    status_code: new Utf8Column(),
    status_message: new Utf8Column(),
    flags: new Int64Column(),
    attributes_json: new Utf8Column(1 << 16),
    dropped_attributes_count: new Int64Column(),
    dropped_events_count: new Int64Column(),
    dropped_links_count: new Int64Column(),
  });
  private readonly events = new StreamTable("otel_span_events", {
    span_index: new Int64Column(),
    event_index: new Int32Column(),
    trace_id: new Utf8Column(),
    span_id: new Utf8Column(),
    time_unix_nano: new Int64Column(),
    name: new Utf8Column(),
    attributes_json: new Utf8Column(),
    dropped_attributes_count: new Int64Column(),
  });
  private readonly links = new StreamTable("otel_span_links", {
    span_index: new Int64Column(),
    link_index: new Int32Column(),
    trace_id: new Utf8Column(),
    span_id: new Utf8Column(),
    linked_trace_id: new Utf8Column(),
    linked_span_id: new Utf8Column(),
    trace_state: new Utf8Column(),
    flags: new Int64Column(),
    attributes_json: new Utf8Column(),
    dropped_attributes_count: new Int64Column(),
  });

  /**
   * Attribute lists being built, innermost owner last (owners nest: resource, scope, span, event or
   * link).
   */
  private attrOwner: number[] = [];
  private attrLists: ByteBuf[] = [];
  private attrDepth = 0;

  /**
   * The open span's events and links: numbers in `pending`, texts (finished cells) in
   * `pendingText`.
   */
  private pending: number[] = [];
  private pendingText = new ByteBuf();
  private pendingEvents = 0;
  private pendingLinks = 0;

  private lastTrace = new Uint8Array(16);
  private lastTraceLength = -1;

  constructor(
    private readonly rows: OtlpRows,
    private readonly maxSpans: number,
  ) {}

  get due(): boolean {
    return (
      this.spans.rows >= BATCH_ROWS ||
      this.events.rows >= BATCH_ROWS ||
      this.links.rows >= BATCH_ROWS
    );
  }

  /**
   * Appends the KeyValue of record `r` (its bytes in slot 0) to its owner's attribute list: its
   * JSON as the scanner's module writes it, or as written here from its bytes.
   */
  keyValue(b: ProtoBatch, r: number): void {
    const owner = b.parent(r);
    let list: ByteBuf;
    if (this.attrDepth > 0 && this.attrOwner[this.attrDepth - 1] === owner) {
      list = this.attrLists[this.attrDepth - 1]!;
      list.byte(0x2c);
    } else {
      if (this.attrDepth === this.attrLists.length) this.attrLists.push(new ByteBuf(256));
      this.attrOwner[this.attrDepth] = owner;
      list = this.attrLists[this.attrDepth++]!;
      list.used = 0;
      list.byte(0x5b);
    }
    const json = b.keyValueJson(r, 0);
    if (json >= 0) {
      list.copy(b.u8, b.keyValueJsonAt, b.keyValueJsonAt + json);
      return;
    }
    const at = b.bytesAt(r, 0);
    if (at < 0) writeKeyValueAt(list, b.u8, 0, 0);
    else writeKeyValueAt(list, b.u8, at, at + b.length(r, 0));
  }

  /**
   * The finished attribute list of `owner`, or null when it has none (valid until the next
   * keyValue).
   */
  attributes(owner: number): ByteBuf | null {
    // Serials grow with nesting: a list owned by a later serial belongs to a record that already
    // closed.
    while (this.attrDepth > 0 && this.attrOwner[this.attrDepth - 1]! > owner) this.attrDepth--;
    if (this.attrDepth === 0 || this.attrOwner[this.attrDepth - 1] !== owner) return null;
    const list = this.attrLists[--this.attrDepth]!;
    list.byte(0x5d);
    return list;
  }

  attributesJson(owner: number): string {
    return this.attributes(owner)?.toString() ?? "[]";
  }

  /** Appends a text cell to `pendingText`: [start, end], or [-1, -1] for null. */
  private stash(u8: Uint8Array, at: number, length: number, hex: boolean): void {
    const start = this.pendingText.used;
    if (at >= 0) {
      if (hex) this.pendingText.hex(u8, at, at + length);
      else this.pendingText.text(u8, at, at + length);
    }
    this.pending.push(start, this.pendingText.used);
  }

  private stashAttributes(owner: number): void {
    const list = this.attributes(owner);
    const start = this.pendingText.used;
    if (list) this.pendingText.copy(list.data, 0, list.used);
    else this.pendingText.raw(EMPTY_LIST);
    this.pending.push(start, this.pendingText.used);
  }

  event(b: ProtoBatch, r: number): void {
    // [kind 0, time low, time high, name start, name end, attrs start, attrs end, dropped]
    this.pending.push(0, b.low(r, 0), b.high(r, 0));
    this.stash(b.u8, b.bytesAt(r, 1), b.length(r, 1), false);
    this.stashAttributes(b.serial(r));
    this.pending.push(b.low(r, 2));
    this.pendingEvents++;
  }

  link(b: ProtoBatch, r: number): void {
    // [kind 1, trace, span, state (start, end each), flags present, flags low, flags high, attrs
    // start, attrs end, dropped]
    this.pending.push(1);
    this.stash(b.u8, b.bytesAt(r, 0), b.length(r, 0), true);
    this.stash(b.u8, b.bytesAt(r, 1), b.length(r, 1), true);
    this.stash(b.u8, b.bytesAt(r, 2), b.length(r, 2), false);
    const flags = b.kind(r, 4) === PT_FIXED32 ? b.low(r, 4) : 0;
    this.pending.push(flags !== 0 ? 1 : 0, flags, 0);
    this.stashAttributes(b.serial(r));
    this.pending.push(b.low(r, 3));
    this.pendingLinks++;
  }

  span(b: ProtoBatch, r: number, resource: number, scope: number): void {
    const u8 = b.u8;
    const startLow = b.low(r, 6),
      startHigh = b.high(r, 6);
    const endLow = b.low(r, 7),
      endHigh = b.high(r, 7);
    checkTime("start_time_unix_nano", startLow, startHigh);
    checkTime("end_time_unix_nano", endLow, endHigh);
    const p = this.pending;
    for (let i = 0; i < p.length; ) {
      if (p[i] === 0) {
        checkTime("event time_unix_nano", p[i + 1]!, p[i + 2]!);
        i += 8;
      } else i += 13;
    }
    const rows = this.rows;
    const index = rows.spanCount++;
    if (rows.spanCount > this.maxSpans)
      throw tooLarge("OTLP trace", "spans", rows.spanCount, this.maxSpans);

    const traceAt = b.bytesAt(r, 0),
      traceLength = b.length(r, 0);
    const spanAt = b.bytesAt(r, 1),
      spanLength = b.length(r, 1);
    this.countTrace(u8, traceAt, traceAt < 0 ? 0 : traceLength);
    const s = this.spans.columns;
    s.span_index.number(index);
    s.resource_index.push(resource);
    s.scope_index.push(scope);
    hexCell(s.trace_id, u8, traceAt, traceLength);
    hexCell(s.span_id, u8, spanAt, spanLength);
    const parentAt = b.bytesAt(r, 3),
      parentLength = b.length(r, 3);
    if (parentAt < 0 || parentLength === 0) s.parent_span_id.nullRow();
    else hexCell(s.parent_span_id, u8, parentAt, parentLength);
    optionalText(s.trace_state, u8, b.bytesAt(r, 2), b.length(r, 2));
    const nameAt = b.bytesAt(r, 4);
    if (nameAt >= 0) s.name.text(u8, nameAt, nameAt + b.length(r, 4));
    s.name.commit();
    enumCell(s.kind, b.low(r, 5) | 0, KIND_BYTES, "SPAN_KIND_");
    s.start_unix_nano.words64(startLow, startHigh);
    s.end_unix_nano.words64(endLow, endHigh);
    // end - start in 64-bit two's complement (exact: both are below 2^63).
    let low = endLow - startLow;
    let borrow = 0;
    if (low < 0) {
      low += TWO_32;
      borrow = 1;
    }
    const high = (endHigh - startHigh - borrow) | 0;
    if (high < 0) rows.negativeDurations++;
    s.duration_ns.words64(low, high);
    enumCell(s.status_code, b.low(r, 12) | 0, STATUS_BYTES, "STATUS_CODE_");
    optionalText(s.status_message, u8, b.bytesAt(r, 11), b.length(r, 11));
    const flags = b.kind(r, 13) === PT_FIXED32 ? b.low(r, 13) : 0;
    // proto3 fixed32 has no presence: 0 is "unset", null as protobufjs reads it.
    if (flags !== 0) s.flags.number(flags);
    else s.flags.nullRow();
    const list = this.attributes(b.serial(r));
    if (list) s.attributes_json.row(list.data, 0, list.used);
    else s.attributes_json.row(EMPTY_LIST, 0, 2);
    // uint32 counts: the low 32 bits of the varint, as protobufjs reads them.
    s.dropped_attributes_count.number(b.low(r, 8));
    s.dropped_events_count.number(b.low(r, 9));
    s.dropped_links_count.number(b.low(r, 10));
    if (p.length > 0) this.children(index, u8, traceAt, traceLength, spanAt, spanLength);
  }

  private children(
    index: number,
    u8: Uint8Array,
    traceAt: number,
    traceLength: number,
    spanAt: number,
    spanLength: number,
  ): void {
    const p = this.pending;
    const text = this.pendingText.data;
    const cell = (col: Utf8Column, at: number, nullable: boolean) => {
      if (nullable && p[at] === p[at + 1]) col.nullRow();
      else col.row(text, p[at]!, p[at + 1]!);
    };
    let eventIndex = 0;
    let linkIndex = 0;
    for (let i = 0; i < p.length; ) {
      if (p[i] === 0) {
        const e = this.events.columns;
        e.span_index.number(index);
        e.event_index.push(eventIndex++);
        hexCell(e.trace_id, u8, traceAt, traceLength);
        hexCell(e.span_id, u8, spanAt, spanLength);
        e.time_unix_nano.words64(p[i + 1]!, p[i + 2]!);
        cell(e.name, i + 3, false);
        cell(e.attributes_json, i + 5, false);
        e.dropped_attributes_count.number(p[i + 7]!);
        i += 8;
      } else {
        const l = this.links.columns;
        l.span_index.number(index);
        l.link_index.push(linkIndex++);
        hexCell(l.trace_id, u8, traceAt, traceLength);
        hexCell(l.span_id, u8, spanAt, spanLength);
        cell(l.linked_trace_id, i + 1, false);
        cell(l.linked_span_id, i + 3, false);
        cell(l.trace_state, i + 5, true);
        if (p[i + 7] === 1) l.flags.words64(p[i + 8]!, p[i + 9]!);
        else l.flags.nullRow();
        cell(l.attributes_json, i + 10, false);
        l.dropped_attributes_count.number(p[i + 12]!);
        i += 13;
      }
    }
    this.rows.eventCount += this.pendingEvents;
    this.rows.linkCount += this.pendingLinks;
    this.pending.length = 0;
    this.pendingText.used = 0;
    this.pendingEvents = 0;
    this.pendingLinks = 0;
  }

  /** Distinct trace ids for the summary (the first 100,000); consecutive spans mostly share one. */
  private countTrace(u8: Uint8Array, at: number, length: number): void {
    const traces = this.rows.traceIds;
    if (traces.size >= 100_000) return;
    if (length === this.lastTraceLength && length <= 16) {
      let same = true;
      for (let i = 0; i < length; i++)
        if (u8[at + i] !== this.lastTrace[i]) {
          same = false;
          break;
        }
      if (same) return;
    }
    this.lastTraceLength = length <= 16 ? length : -1;
    if (length <= 16) for (let i = 0; i < length; i++) this.lastTrace[i] = u8[at + i]!;
    traces.add(traceKey(u8, at, length));
  }

  async flush(sink: EvidenceSink, final: boolean): Promise<void> {
    for (const table of [this.spans, this.events, this.links]) {
      if (table.rows === 0 && !final) continue;
      await sink.writeBatch(table.take());
      if (final) await sink.endTable?.(table.table);
    }
  }

  /** Every table's rows as one batch each (a piece's scan, which never flushes midway). */
  takeAll(): ColumnBatch[] {
    return [this.spans, this.events, this.links].map((table) => table.take());
  }
}
