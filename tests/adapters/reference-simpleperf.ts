/**
 * simpleperf's protobuf files for tests, read and written without the adapter's schema:
 * the wire format walked field by field with protobufjs's low-level Reader and Writer
 * (field numbers from cmd_report_sample.proto). `referenceSimpleperf` counts, per event
 * type, self samples and summed event counts per leaf function name (`[unknown]` where
 * simpleperf has no symbol); `writeSimpleperf` builds files for hand-made cases.
 */
import protobuf from "protobufjs";

export interface RefEntry {
  file: number;
  symbol: number;
  execution?: number;
}
export interface RefSample {
  time?: bigint;
  tid: number;
  event: number;
  count: number;
  chain: RefEntry[];
  unwindError?: number;
}
export interface RefFile {
  id: number;
  path: string;
  symbols: string[];
}
export interface RefThread {
  tid: number;
  pid: number;
  name: string;
}
export interface RefMeta {
  events: string[];
  app?: string;
  offcpu?: boolean;
}

export interface ReferenceEvent {
  event: string;
  samples: number;
  selfSamples: Map<string, number>;
  selfCount: Map<string, number>;
}

function fieldsOf(
  bytes: Uint8Array,
  each: (field: number, reader: protobuf.Reader, wire: number) => void,
): void {
  const reader = protobuf.Reader.create(bytes);
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    const before = reader.pos;
    each(tag >>> 3, reader, tag & 7);
    if (reader.pos === before) reader.skipType(tag & 7);
  }
}

/** The records' bodies, after the 12-byte header, until the zero length. */
function records(bytes: Uint8Array): Uint8Array[] {
  if (new TextDecoder().decode(bytes.subarray(0, 10)) !== "SIMPLEPERF")
    throw new Error("no SIMPLEPERF magic");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: Uint8Array[] = [];
  for (let at = 12; at + 4 <= bytes.length; ) {
    const n = view.getUint32(at, true);
    at += 4;
    if (n === 0) break;
    out.push(bytes.subarray(at, at + n));
    at += n;
  }
  return out;
}

export function referenceSimpleperf(bytes: Uint8Array): ReferenceEvent[] {
  const samples: RefSample[] = [];
  const symbols = new Map<number, string[]>();
  let events: string[] = [];
  for (const body of records(bytes)) {
    fieldsOf(body, (kind, r) => {
      const inner = r.bytes();
      if (kind === 1) {
        const s: RefSample = { tid: 0, event: 0, count: 0, chain: [] };
        fieldsOf(inner, (f, sr) => {
          if (f === 3) {
            const e: RefEntry = { file: 0, symbol: -1 };
            fieldsOf(sr.bytes(), (g, er) => {
              if (g === 2) e.file = er.uint32();
              else if (g === 3) e.symbol = er.int32();
            });
            s.chain.push(e);
          } else if (f === 4) s.count = Number(sr.uint64().toString());
          else if (f === 5) s.event = sr.uint32();
        });
        samples.push(s);
      } else if (kind === 3) {
        let id = 0;
        const names: string[] = [];
        fieldsOf(inner, (f, fr) => {
          if (f === 1) id = fr.uint32();
          else if (f === 3) names.push(fr.string());
        });
        symbols.set(id, names);
      } else if (kind === 5) {
        const types: string[] = [];
        fieldsOf(inner, (f, mr) => {
          if (f === 1) types.push(mr.string());
        });
        events = types;
      }
    });
  }
  const byEvent = new Map<string, ReferenceEvent>();
  for (const s of samples) {
    const name = events[s.event] ?? `event ${s.event}`;
    const ref = byEvent.get(name) ?? {
      event: name,
      samples: 0,
      selfSamples: new Map(),
      selfCount: new Map(),
    };
    byEvent.set(name, ref);
    ref.samples++;
    if (s.chain.length === 0) continue;
    const leaf = s.chain[0]!;
    const fn = leaf.symbol >= 0 ? symbols.get(leaf.file)![leaf.symbol]! : "[unknown]";
    ref.selfSamples.set(fn, (ref.selfSamples.get(fn) ?? 0) + 1);
    ref.selfCount.set(fn, (ref.selfCount.get(fn) ?? 0) + s.count);
  }
  return [...byEvent.values()];
}

function message(write: (w: protobuf.Writer) => void): Uint8Array {
  const w = protobuf.Writer.create();
  write(w);
  return w.finish();
}

/**
 * A simpleperf file: header, the records in simpleperf's order (meta, samples, lost, threads,
 * files), the end record.
 */
export function writeSimpleperf(parts: {
  meta?: RefMeta;
  samples: RefSample[];
  threads?: RefThread[];
  files: RefFile[];
  lost?: [number, number];
  end?: boolean;
}): Uint8Array {
  const bodies: Uint8Array[] = [];
  const record = (field: number, body: Uint8Array) =>
    bodies.push(message((w) => w.uint32((field << 3) | 2).bytes(body)));
  if (parts.meta) {
    const meta = parts.meta;
    record(
      5,
      message((w) => {
        for (const e of meta.events) w.uint32((1 << 3) | 2).string(e);
        if (meta.app) w.uint32((2 << 3) | 2).string(meta.app);
        if (meta.offcpu) w.uint32(6 << 3).bool(true);
      }),
    );
  }
  for (const s of parts.samples) {
    record(
      1,
      message((w) => {
        if (s.time !== undefined) w.uint32(1 << 3).uint64(s.time.toString());
        w.uint32(2 << 3).int32(s.tid);
        for (const e of s.chain) {
          w.uint32((3 << 3) | 2).bytes(
            message((c) => {
              c.uint32(1 << 3).uint64(0x1000 + e.symbol);
              c.uint32(2 << 3).uint32(e.file);
              c.uint32(3 << 3).int32(e.symbol);
              if (e.execution) c.uint32(4 << 3).int32(e.execution);
            }),
          );
        }
        w.uint32(4 << 3).uint64(s.count);
        w.uint32(5 << 3).uint32(s.event);
        if (s.unwindError)
          w.uint32((6 << 3) | 2).bytes(message((u) => u.uint32(3 << 3).uint32(s.unwindError!)));
      }),
    );
  }
  if (parts.lost)
    record(
      2,
      message((w) =>
        w
          .uint32(1 << 3)
          .uint64(parts.lost![0])
          .uint32(2 << 3)
          .uint64(parts.lost![1]),
      ),
    );
  for (const t of parts.threads ?? [])
    record(
      4,
      message((w) =>
        w
          .uint32(1 << 3)
          .uint32(t.tid)
          .uint32(2 << 3)
          .uint32(t.pid)
          .uint32((3 << 3) | 2)
          .string(t.name),
      ),
    );
  for (const f of parts.files) {
    record(
      3,
      message((w) => {
        w.uint32(1 << 3)
          .uint32(f.id)
          .uint32((2 << 3) | 2)
          .string(f.path);
        for (const s of f.symbols) w.uint32((3 << 3) | 2).string(s);
      }),
    );
  }
  const chunks: Uint8Array[] = [new TextEncoder().encode("SIMPLEPERF"), new Uint8Array([1, 0])];
  for (const body of bodies) {
    const length = new Uint8Array(4);
    new DataView(length.buffer).setUint32(0, body.length, true);
    chunks.push(length, body);
  }
  if (parts.end !== false) chunks.push(new Uint8Array(4));
  return Buffer.concat(chunks);
}
