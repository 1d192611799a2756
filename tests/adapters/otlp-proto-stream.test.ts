/**
 * The OTLP protobuf stream path (columns written straight from the WASM scanner's memory,
 * attributes encoded to JSON bytes) against the protobufjs reference path, on generated
 * requests that use every field: fields in any order, repeated fields, unknown fields,
 * optional strings, ids of odd lengths, out-of-range enums and counts, every AnyValue type.
 */
import { describe, expect, test } from "bun:test";
import { mulberry32 } from "../../fixtures/generators/prng.ts";
import { ProtoWriter } from "../../fixtures/generators/proto-writer.ts";
import { adapterByName } from "../../src/adapters/registry.ts";
import { ByteBuf } from "../../src/adapters/common/json-bytes.ts";
import { writeKeyValueAt } from "../../src/adapters/otlp/proto-attributes-json.ts";
import { protoKeyValue } from "../../src/adapters/otlp/proto-values.ts";
import type { ProtoBatch } from "../../src/adapters/wasm/proto-batch.ts";
import { P_BYTES, ProtoProgram } from "../../src/adapters/wasm/proto-program.ts";
import { ProtoScanner, hostFormattedDoubles } from "../../src/adapters/wasm/proto-scanner.ts";
import { DEFAULT_ADAPTER_LIMITS } from "../../src/adapters/adapter.ts";
import { extracted } from "./adapter-harness.ts";
import { expectSameOutcome } from "./wasm-equivalence.ts";

const proto = adapterByName("otlp-protobuf")!;
const TEXTS = [
  "",
  "a",
  "GET /users/{id}",
  "héllo wörld",
  "日本語",
  'q"uote\\back\nline\t\u0001\u001f\u007f',
  "\u2028",
  "x".repeat(300),
  "😀 emoji",
];

/** Doubles at the edges of the module's own digits (decimals, magnitudes, precision). */
function edgeDoubles(): number[] {
  const out = [
    1e-6,
    9.99999e-7,
    1e-6 * (1 + 2 ** -52),
    1e15,
    1e15 - 1,
    1e15 - 0.5,
    999999999999999,
  ];
  out.push(0.1 + 0.2, 0.3, 1.005, 2 ** 53, 2 ** 53 + 2, 2 ** 50 - 0.125, 123456789012345.6);
  out.push(0.000001234567890123, 1.234567890123456, 12345678901234.5, 100, 1200, 0.1, 0.05);
  out.push(Number.MAX_SAFE_INTEGER, Number.MIN_VALUE, Number.MAX_VALUE, Number.EPSILON);
  return [...out, ...out.map((n) => -n)];
}

/**
 * Random doubles of every kind: integers, decimals of 1–17 digits with up to 22 decimals, and
 * random bit patterns of ordinary magnitudes.
 */
function randomDoubles(random: () => number, n: number): number[] {
  const view = new DataView(new ArrayBuffer(8));
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const sign = random() < 0.3 ? -1 : 1;
    const kind = i % 3;
    if (kind === 0) out.push(sign * Math.floor(random() * 10 ** Math.floor(random() * 17)));
    else if (kind === 1) {
      const digits = 1 + Math.floor(random() * 17);
      const m = Math.floor(random() * 10 ** digits);
      out.push(sign * Number(`${m}e-${Math.floor(random() * 23)}`));
    } else {
      // Exponents 2^-63 … 2^64; any mantissa.
      const high = (sign < 0 ? 0x800 : 0) | (0x3c0 + Math.floor(random() * 0x80));
      view.setUint32(0, (high << 20) | Math.floor(random() * 0x100000));
      view.setUint32(4, Math.floor(random() * 2 ** 32));
      out.push(view.getFloat64(0));
    }
  }
  return out;
}

function generator(seed: number, repeatedValues = false) {
  const random = mulberry32(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const int = (n: number) => Math.floor(random() * n);
  const id = (n: number) => Uint8Array.from({ length: n }, () => int(256));
  /** Writes the message's fields in a random order (proto3 allows any). */
  const message = (fields: ((w: ProtoWriter) => void)[]): ProtoWriter => {
    const w = new ProtoWriter();
    for (let i = fields.length - 1; i > 0; i--) {
      const j = int(i + 1);
      [fields[i], fields[j]] = [fields[j]!, fields[i]!];
    }
    for (const f of fields) f(w);
    return w;
  };
  const anyValue = (depth: number): ProtoWriter => {
    const w = new ProtoWriter();
    switch (int(depth > 2 ? 5 : 8)) {
      case 0:
        return w.string(1, pick(TEXTS));
      case 1:
        return w.uint(2, int(2));
      case 2:
        return w.uint(3, pick([0, 1, 2 ** 40, -1n, -(2n ** 63n), 2n ** 63n - 1n, 2n ** 64n - 5n]));
      case 3:
        return w
          .tag(4, 1)
          .fixed64Raw(pick([0, -0, 0.5, 1e21, 1 / 3, NaN, Infinity, -Infinity, 5e-324]));
      case 4:
        return w.bytes(7, id(int(7)));
      case 5: {
        for (let i = int(4); i > 0; i--) w.message(1, anyValue(depth + 1));
        return new ProtoWriter().message(5, w);
      }
      case 6: {
        for (let i = int(3); i > 0; i--) w.message(1, keyValue(depth + 1));
        return new ProtoWriter().message(6, w);
      }
      default:
        return w; // no value: "empty"
    }
  };
  const keyValue = (depth = 0): ProtoWriter => {
    const fields: ((w: ProtoWriter) => void)[] = [(w) => w.string(1, pick(TEXTS))];
    if (random() < 0.9) fields.push((w) => w.message(2, anyValue(depth)));
    // A repeated value: the stream path keeps the last, protobufjs merges the two messages,
    // so only the readable decoder's comparison (which keeps the last too) has them.
    if (repeatedValues && random() < 0.05) fields.push((w) => w.message(2, anyValue(depth)));
    if (random() < 0.05) fields.push((w) => w.uint(9, 1)); // unknown field
    return message(fields);
  };
  const attributes = (field: number, fields: ((w: ProtoWriter) => void)[]) => {
    for (let i = int(4); i > 0; i--) fields.push((w) => w.message(field, keyValue()));
  };
  const count = () => (random() < 0.1 ? pick([1, 7, 2 ** 32 + 3, 2n ** 64n - 1n]) : 0);
  const optionalText = (field: number, fields: ((w: ProtoWriter) => void)[]) => {
    if (random() < 0.5) fields.push((w) => w.string(field, pick(TEXTS)));
  };
  const time = () => 1_700_000_000_000_000_000n + BigInt(int(1_000_000));

  const span = (): ProtoWriter => {
    const traceId = id(pick([16, 16, 16, 8, 0]));
    const fields: ((w: ProtoWriter) => void)[] = [
      (w) => w.bytes(1, traceId),
      (w) => w.bytes(2, id(8)),
      (w) => w.string(5, pick(TEXTS)),
      (w) => w.fixed64(7, time()),
      (w) => w.fixed64(8, time()),
    ];
    if (random() < 0.7) fields.push((w) => w.bytes(4, id(pick([8, 0]))));
    optionalText(3, fields);
    if (random() < 0.8) fields.push((w) => w.uint(6, pick([0, 1, 2, 3, 4, 5, 9, -1n])));
    attributes(9, fields);
    if (random() < 0.2) fields.push((w) => w.uint(10, count()));
    for (let i = int(3); i > 0; i--) {
      const e: ((w: ProtoWriter) => void)[] = [(w) => w.fixed64(1, time())];
      optionalText(2, e);
      attributes(3, e);
      if (random() < 0.3) e.push((w) => w.uint(4, count()));
      fields.push((w) => w.message(11, message(e)));
    }
    if (random() < 0.2) fields.push((w) => w.uint(12, count()));
    for (let i = int(3); i > 0; i--) {
      const l: ((w: ProtoWriter) => void)[] = [(w) => w.bytes(1, id(16)), (w) => w.bytes(2, id(8))];
      optionalText(3, l);
      attributes(4, l);
      if (random() < 0.3) l.push((w) => w.uint(5, count()));
      if (random() < 0.5) l.push((w) => w.fixed32(6, int(512)));
      fields.push((w) => w.message(13, message(l)));
    }
    if (random() < 0.2) fields.push((w) => w.uint(14, count()));
    if (random() < 0.5) {
      const st: ((w: ProtoWriter) => void)[] = [];
      optionalText(2, st);
      if (random() < 0.8) st.push((w) => w.uint(3, pick([0, 1, 2, 7])));
      fields.push((w) => w.message(15, message(st)));
    }
    if (random() < 0.5) fields.push((w) => w.fixed32(16, int(512)));
    // a repeated name: the last wins
    if (random() < 0.05) fields.push((w) => w.string(5, pick(TEXTS)));
    if (random() < 0.05) fields.push((w) => w.uint(99, 5)); // unknown field
    return message(fields);
  };
  const scopeSpans = (): ProtoWriter => {
    const scope: ((w: ProtoWriter) => void)[] = [];
    optionalText(1, scope);
    optionalText(2, scope);
    attributes(3, scope);
    if (random() < 0.3) scope.push((w) => w.uint(4, count()));
    const fields: ((w: ProtoWriter) => void)[] = [(w) => w.message(1, message(scope))];
    for (let i = int(6); i > 0; i--) fields.push((w) => w.message(2, span()));
    optionalText(3, fields);
    return message(fields);
  };
  const request = (): Uint8Array => {
    const w = new ProtoWriter();
    for (let r = 1 + int(3); r > 0; r--) {
      const resource: ((w: ProtoWriter) => void)[] = [];
      attributes(1, resource);
      if (random() < 0.3) resource.push((x) => x.uint(2, count()));
      const fields: ((w: ProtoWriter) => void)[] = [(x) => x.message(1, message(resource))];
      for (let s = 1 + int(3); s > 0; s--) fields.push((x) => x.message(2, scopeSpans()));
      optionalText(3, fields);
      w.message(1, message(fields));
    }
    return w.finish().slice();
  };
  return { request, keyValue, random };
}

describe("OTLP protobuf stream path", () => {
  test("equals the protobufjs reference on generated requests with every field", async () => {
    for (let seed = 1; seed <= 40; seed++) {
      const bytes = generator(seed).request();
      await expectSameOutcome(proto, bytes, {
        displayName: `generated-${seed}.pb`,
        chunkSize: seed % 2 === 0 ? 7 : 4096,
      });
    }
  });

  test("the module writes a double as String(n) does: every exponent, subnormals, edges", () => {
    // Each double as the value of a KeyValue, field 1 of one stream; batched as the import does.
    const random = mulberry32(5);
    const view = new DataView(new ArrayBuffer(8));
    const values: number[] = [...edgeDoubles(), ...randomDoubles(random, 30_000)];
    for (let i = 0; i < 100_000; i++) {
      // Any bit pattern: every exponent from the subnormals to the largest.
      view.setUint32(0, Math.floor(random() * 2 ** 32));
      view.setUint32(4, Math.floor(random() * 2 ** 32));
      values.push(view.getFloat64(0));
    }
    for (let e = -1074; e <= 1023; e++) {
      // Powers of two and their neighbours, where the lower boundary is closer.
      const p = 2 ** e;
      values.push(p, p * (1 + 2 ** -52), p * (1 - 2 ** -53));
    }
    for (let d = -323; d <= 308; d++)
      values.push(Number(`1e${d}`), Number(`9.999999999999999e${d}`));
    const program = new ProtoProgram(1);
    program.record(0, 1);
    program.value(0, 1, 0, 0, P_BYTES, 0, 0);
    const stream = new ProtoWriter();
    const value = new ProtoWriter();
    const keyValue = new ProtoWriter();
    for (const n of values) {
      value.reset().tag(4, 1).fixed64Raw(n);
      stream.bytes(1, keyValue.reset().string(1, "d").message(2, value).finish());
    }
    const texts: string[] = [];
    const decoder = new TextDecoder();
    const scanner = ProtoScanner.openSync(program, { format: "test", maxDepth: 8 });
    const before = hostFormattedDoubles();
    scanner.scanWhole(stream.finish(), (b: ProtoBatch) => {
      b.prepareKeyValues(0, 0);
      for (let r = 0; r < b.count; r++) {
        if (b.type(r) !== 0) continue;
        const n = b.keyValueJson(r, 0);
        texts.push(
          n < 0 ? "" : decoder.decode(b.u8.subarray(b.keyValueJsonAt, b.keyValueJsonAt + n)),
        );
      }
    });
    const expected = values.map((n) =>
      Number.isFinite(n) ? `["d","double",${String(n)}]` : `["d","double","${String(n)}"]`,
    );
    const wrong = texts.flatMap((t, i) => (t === expected[i] ? [] : [`${values[i]}: ${t}`]));
    expect(wrong.slice(0, 10)).toEqual([]);
    expect(texts.length).toBe(values.length);
    // The host writes only what the module cannot prove (Grisu3 fails ~0.5% of doubles).
    const host = hostFormattedDoubles() - before;
    expect(host).toBeGreaterThan(0);
    expect(host).toBeLessThan(values.length * 0.02);
  });

  test(
    "attribute JSON bytes equal canonicalAttributes of the readable decoder, or both " + "fail",
    () => {
      const { keyValue, random } = generator(99, true);
      const out = new ByteBuf(16);
      for (let i = 0; i < 5000; i++) {
        let bytes = keyValue().finish().slice();
        if (random() < 0.3 && bytes.length > 0)
          bytes[Math.floor(random() * bytes.length)]! ^= 1 << Math.floor(random() * 8);
        else if (random() < 0.2) bytes = bytes.subarray(0, Math.floor(random() * bytes.length));
        let expected: string | null = null;
        try {
          expected = JSON.stringify(protoKeyValue(bytes));
        } catch {}
        const host = new Uint8Array(bytes.length + 5);
        host.set(bytes, 2);
        let actual: string | null = null;
        out.used = 0;
        try {
          writeKeyValueAt(out, host, 2, 2 + bytes.length);
          actual = out.toString();
        } catch {}
        expect(actual).toBe(expected);
      }
    },
  );

  for (const batched of [false, true])
    test(`the scanner's own attribute JSON is the host writer's, byte for byte, where it writes it (${batched ? "a batch's at once" : "one at a time"})`, () => {
      // Each KeyValue (generated, some mutated or cut) as field 1 of one stream, read by a
      // program with nothing but that field; the module writes each one's JSON, or leaves it to
      // the host writer. Batched, the module writes a whole batch's at once, and asks for those
      // past its batch scratch (4 MiB) one at a time.
      const { keyValue, random } = generator(7, true);
      const program = new ProtoProgram(1);
      program.record(0, 1);
      program.value(0, 1, 0, 0, P_BYTES, 0, 0);
      const kvs: Uint8Array[] = [];
      const stream = new ProtoWriter();
      // Text at the edges of well-formed UTF-8 (the module copies it; anything else is the host's).
      const texts = [
        [0xef, 0xbb, 0xbf, 0x6b], // a leading BOM, which the host's decoder drops
        [0x6b, 0xef, 0xbb, 0xbf], // a BOM further on, which it keeps
        [0xc2, 0x80, 0xdf, 0xbf, 0xe0, 0xa0, 0x80, 0xed, 0x9f, 0xbf, 0xf0, 0x90, 0x80, 0x80],
        [0xf4, 0x8f, 0xbf, 0xbf, 0xe2, 0x80, 0xa8, 0x22, 0x5c, 0x01],
        [0xc0, 0x80], // overlong
        [0xc1, 0xbf],
        [0xe0, 0x9f, 0xbf],
        [0xed, 0xa0, 0x80], // a surrogate
        [0xf4, 0x90, 0x80, 0x80], // past U+10FFFF
        [0xf5, 0x80, 0x80, 0x80],
        [0xe3, 0x81], // cut
        [0x61, 0x80, 0x62], // a lone continuation byte
      ].map((b) => Uint8Array.from(b));
      for (const text of texts) {
        const value = new ProtoWriter().bytes(1, text);
        kvs.push(new ProtoWriter().bytes(1, text).message(2, value).finish());
        stream.bytes(1, kvs.at(-1)!);
      }
      // Doubles: the module writes those of at most 15 significant digits in [1e-6, 1e15) and has
      // the host write the rest (`String(n)`, quoted when not finite); the text is String(n)'s.
      const doubles = [0, -0, 0.5, 1 / 3, 1e21, 1e-7, 123e-20, -1.5e300, 5e-324, NaN, Infinity];
      doubles.push(...edgeDoubles(), ...randomDoubles(random, 6000));
      for (const n of [...doubles, -Infinity]) {
        const value = new ProtoWriter().tag(4, 1).fixed64Raw(n);
        kvs.push(new ProtoWriter().string(1, "d").message(2, value).finish());
        stream.bytes(1, kvs.at(-1)!);
      }
      const special = texts.length + doubles.length + 1;
      // Long strings: a batch's JSON past the batch scratch (each one within the one-at-a-time
      // scratch, which must hold 6 bytes a character of a string that could all be escapes).
      const LONG = 30;
      for (let i = 0; i < LONG; i++) {
        const value = new ProtoWriter().string(1, `${i % 10}`.repeat(150_000));
        kvs.push(new ProtoWriter().string(1, "long").message(2, value).finish());
        stream.bytes(1, kvs.at(-1)!);
      }
      for (let i = 0; i < 4000; i++) {
        let bytes = keyValue().finish().slice();
        if (random() < 0.2 && bytes.length > 0)
          bytes[Math.floor(random() * bytes.length)]! ^= 1 << Math.floor(random() * 8);
        else if (random() < 0.1) bytes = bytes.subarray(0, Math.floor(random() * bytes.length));
        kvs.push(bytes);
        stream.bytes(1, bytes);
      }
      const written: { json: Uint8Array | null; bytes: Uint8Array }[] = [];
      const scanner = ProtoScanner.openSync(program, { format: "test", maxDepth: 8 });
      const onBatch = (b: ProtoBatch) => {
        if (batched) b.prepareKeyValues(0, 0);
        for (let r = 0; r < b.count; r++) {
          if (b.type(r) !== 0) continue;
          const n = b.keyValueJson(r, 0);
          const json = n < 0 ? null : b.u8.slice(b.keyValueJsonAt, b.keyValueJsonAt + n);
          written.push({ json, bytes: b.bytes(r, 0).slice() });
        }
      };
      scanner.scanWhole(stream.finish(), onBatch);
      expect(written.length).toBe(kvs.length);
      expect(
        written.slice(texts.length, special).map((w) => new TextDecoder().decode(w.json!)),
      ).toEqual(
        [...doubles, -Infinity].map((n) =>
          Number.isFinite(n) ? `["d","double",${n}]` : `["d","double","${n}"]`,
        ),
      );
      // Well-formed text (and a BOM after the start) is the module's; the rest, the host's.
      expect(written.slice(0, texts.length).map((w) => w.json !== null)).toEqual([
        false,
        true,
        true,
        true,
        false,
        false,
        false,
        false,
        false,
        false,
        false,
        false,
      ]);
      const out = new ByteBuf(16);
      const decoder = new TextDecoder();
      let fast = 0;
      written.forEach(({ json, bytes }, i) => {
        expect(bytes).toEqual(kvs[i]!);
        if (json === null) return;
        fast++;
        out.used = 0;
        writeKeyValueAt(out, kvs[i]!, 0, kvs[i]!.length);
        expect(decoder.decode(json)).toBe(out.toString());
      });
      // Most generated KeyValues are of the kinds the scanner writes itself, the long ones too.
      expect(fast).toBeGreaterThan(kvs.length / 4);
      expect(written.slice(special, special + LONG).every((w) => w.json !== null)).toBe(true);
    });
});

test("distinct trace ids are counted by their bytes, ids of every length apart", async () => {
  const a = Uint8Array.from({ length: 16 }, (_, i) => 0x30 + i);
  const ids = [
    a,
    Uint8Array.from(a, (v, i) => (i === 15 ? v + 1 : v)),
    a.subarray(0, 15),
    Uint8Array.from([...a.subarray(0, 15), 0]),
    a.subarray(0, 10),
    Uint8Array.from(a.subarray(0, 10), (v, i) => (i === 9 ? v + 1 : v)),
    // Ten bytes that spell, two to a unit, what a prefix of length and colon would.
    Uint8Array.from([0x31, 0, 0x30, 0, 0x3a, 0, 1, 2, 3, 4]),
    new Uint8Array(0),
    a, // again: not distinct
  ];
  const scope = new ProtoWriter();
  for (const id of ids)
    scope.message(
      2,
      new ProtoWriter()
        .bytes(1, id)
        .bytes(2, Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8))
        .string(5, "s")
        .fixed64(7, 1_700_000_000_000_000_000n)
        .fixed64(8, 1_700_000_000_000_001_000n),
    );
  const request = new ProtoWriter()
    .message(1, new ProtoWriter().message(2, scope))
    .finish()
    .slice();
  const evidence = await extracted(proto, {
    bytes: request,
    displayName: "ids.pb",
    limits: DEFAULT_ADAPTER_LIMITS,
  });
  const hex = new Set(ids.map((id) => Buffer.from(id).toString("hex")));
  expect(hex.size).toBe(8);
  expect(evidence.summary.traces).toBe(hex.size);
  await expectSameOutcome(proto, request, { displayName: "ids.pb" });
});
