/**
 * The protobuf scanner reads a field in one of two ways: whole, straight from the bytes, when
 * the chunk holds enough of them (the fast path), or byte by byte through its resumable state
 * machine (near a chunk's end, and for what the fast path leaves to it: unusual tags, long or
 * malformed varints, packed elements). Fed the same stream in one chunk and one byte at a time
 * (where only the state machine runs), it must give the same records, slot by slot, and the
 * same error at the same offset: generated Perfetto and OTLP streams, mutated copies of them,
 * and hand-made edge cases of the wire format.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateOtlpProto } from "../../fixtures/generators/otlp-proto.ts";
import { generatePerfetto } from "../../fixtures/generators/perfetto.ts";
import { mulberry32 } from "../../fixtures/generators/prng.ts";
import { ProtoWriter } from "../../fixtures/generators/proto-writer.ts";
import { otlpProgram } from "../../src/adapters/otlp/otlp-proto-program.ts";
import { perfettoProgram } from "../../src/adapters/perfetto/trace-program.ts";
import type { ProtoBatch } from "../../src/adapters/wasm/proto-batch.ts";
import { P_BYTES, PACKED_VARINT, ProtoProgram } from "../../src/adapters/wasm/proto-program.ts";
import { ProtoScanner } from "../../src/adapters/wasm/proto-scanner.ts";

/** Every record of a scan of `bytes` fed in chunks of `chunk` bytes, then its error, as text. */
function scan(program: () => ProtoProgram, bytes: Uint8Array, chunk: number): string[] {
  const out: string[] = [];
  const compiled = program();
  const slots = compiled.slotsPerRecord;
  const scanner = ProtoScanner.openSync(compiled, { format: "test", maxDepth: 16 });
  const onBatch = (b: ProtoBatch) => {
    for (let r = 0; r < b.count; r++) {
      const parts = [`${b.type(r)}${b.announced(r) ? "a" : ""} ${b.serial(r)}<${b.parent(r)}`];
      for (let s = 0; s < slots; s++) {
        const kind = b.kind(r, s);
        if (kind === 0) continue;
        const text = b.string(r, s);
        const value =
          text !== null
            ? JSON.stringify(text)
            : b.bytesAt(r, s) >= 0
              ? Buffer.from(b.bytes(r, s)).toString("hex")
              : `${b.length(r, s)}:${b.ubig(r, s)}`;
        parts.push(`${s}=${kind}/${value}`);
      }
      out.push(parts.join(" "));
    }
  };
  try {
    for (let at = 0; at < bytes.length; at += chunk)
      scanner.push(bytes.subarray(at, Math.min(bytes.length, at + chunk)), onBatch);
    scanner.finish(onBatch);
    out.push("done");
  } catch (error) {
    out.push(`error: ${(error as Error).message}`);
  }
  return out;
}

function expectSamePaths(program: () => ProtoProgram, bytes: Uint8Array): void {
  const whole = scan(program, bytes, bytes.length + 1);
  const byByte = scan(program, bytes, 1);
  expect(whole.length).toBe(byByte.length);
  const first = whole.findIndex((line, i) => line !== byByte[i]);
  expect(first < 0 ? null : { at: first, whole: whole[first], byByte: byByte[first] }).toBeNull();
}

/** A copy with some bytes flipped, cut, or random bytes inserted. */
function mutated(bytes: Uint8Array, random: () => number): Uint8Array {
  const choice = random();
  if (choice < 0.4) {
    const out = bytes.slice();
    const flips = 1 + Math.floor(random() * 4);
    for (let i = 0; i < flips; i++)
      out[Math.floor(random() * out.length)]! ^= 1 << Math.floor(random() * 8);
    return out;
  }
  if (choice < 0.7) return bytes.slice(0, Math.floor(random() * bytes.length));
  const at = Math.floor(random() * bytes.length);
  const noise = Uint8Array.from({ length: 1 + Math.floor(random() * 12) }, () =>
    random() < 0.5 ? 0x80 | Math.floor(random() * 128) : Math.floor(random() * 256),
  );
  const out = new Uint8Array(bytes.length + noise.length);
  out.set(bytes.subarray(0, at));
  out.set(noise, at);
  out.set(bytes.subarray(at), at + noise.length);
  return out;
}

/** A program over field 1 (a message) whose fields 1-7 fill slots of one record, 8 packed. */
function edgeProgram(): ProtoProgram {
  const p = new ProtoProgram(8);
  p.record(0, 0);
  const m = p.child(0, 1, p.message({ record: 1 }));
  for (let f = 1; f <= 6; f++) p.value(m, f, 1, f - 1);
  p.value(m, 7, 1, 6, P_BYTES);
  p.value(m, 8, 2, 0, undefined, PACKED_VARINT, 2);
  return p;
}

/** Field 1 of the stream: a message holding `body`. */
function framed(body: number[]): Uint8Array {
  return Uint8Array.from([0x0a, body.length, ...body]);
}

const PAD = Array.from({ length: 24 }, () => [0x08, 0x01]).flat();

describe("protobuf scanner: whole fields and the byte-by-byte state machine agree", () => {
  const dir = mkdtempSync(join(tmpdir(), "flameox-proto-paths-"));

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const generated = [
    {
      name: "Perfetto traces",
      file: "trace.perfetto-trace",
      make: generatePerfetto,
      program: perfettoProgram,
      seeds: [3, 17],
    },
    {
      name: "OTLP requests",
      file: "request.pb",
      make: generateOtlpProto,
      program: otlpProgram,
      seeds: [5, 23],
    },
  ] as const;
  for (const g of generated)
    test(`generated ${g.name} and mutated copies`, async () => {
      const path = join(dir, g.file);
      await g.make(path, 48 * 1024, g.seeds[0]);
      const bytes = new Uint8Array(readFileSync(path));
      expectSamePaths(g.program, bytes);
      const random = mulberry32(g.seeds[1]);
      for (let i = 0; i < 40; i++)
        expectSamePaths(g.program, mutated(bytes.subarray(0, 6000), random));
    });

  test("edge cases of the wire format, each with room for the whole-field path", () => {
    const max = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
    const cases: number[][] = [
      // Varints of every length up to 10 bytes, the largest 64-bit value included.
      [0x08, 0x7f, 0x10, 0x80, 0x01, 0x18, 0xff, 0xff, 0x03, 0x20, ...max],
      // A 10th byte above 1 overflows 64 bits; an 11-byte varint is invalid.
      [0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02],
      [0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00],
      // Non-canonical (padded) tags and values, which are valid.
      [0x88, 0x80, 0x80, 0x00, 0x05, 0x10, 0x85, 0x80, 0x80, 0x80, 0x00],
      // Field number 0, and a tag beyond 32 bits.
      [0x00, 0x01],
      [0x88, 0x80, 0x80, 0x80, 0x80, 0x01, 0x01],
      // Groups and the reserved wire types 6 and 7.
      [0x0b, 0x0c],
      [0x0e, 0x01],
      [0x0f, 0x01],
      // fixed64 and fixed32 values.
      [0x21, 1, 2, 3, 4, 5, 6, 7, 8, 0x2d, 9, 10, 11, 12],
      // Wrong wire types for scalar slots: a length-delimited value where a varint is read.
      [0x0a, 0x02, 0x41, 0x42, 0x12, 0x00],
      // Bytes, an empty bytes value, and a length past the message's end.
      [0x3a, 0x03, 0x61, 0x62, 0x63, 0x3a, 0x00],
      [0x3a, 0x7f, 0x61],
      // Packed varints, and the same field unpacked.
      [0x42, 0x04, 0x01, 0x96, 0x01, 0x02, 0x40, 0x07],
      // Unknown fields of every wire type, skipped.
      [0x78, 0x01, 0x79, 1, 2, 3, 4, 5, 6, 7, 8, 0x7a, 0x01, 0x00, 0x7d, 1, 2, 3, 4],
    ];
    for (const body of cases) {
      // Alone, after enough fields that the case starts mid-chunk, and at the stream's end.
      expectSamePaths(edgeProgram, framed(body));
      expectSamePaths(edgeProgram, framed([...PAD, ...body]));
      const tail = new ProtoWriter().bytes(1, Uint8Array.from(PAD)).finish();
      expectSamePaths(edgeProgram, Uint8Array.from([...tail, ...framed([...PAD, ...body])]));
      expectSamePaths(edgeProgram, Uint8Array.from([...framed([...PAD, ...body]), ...tail]));
    }
  });
});
