/**
 * Debug annotations written as bytes (src/adapters/perfetto/annotation-bytes.ts) against the
 * reference, annotationsJson (an object and JSON.stringify): on random annotations of every
 * field (repeated, nested, of the wrong wire type, unknown), names and values interned or not
 * (and missing from the sequence's tables), names an object reorders, drops or repeats, text
 * that is not well-formed UTF-8, integers at the edges of 2^53 and 2^64, doubles of every kind,
 * and cut or mutated bytes. Where the byte path writes, it writes the reference's text; where
 * the reference fails, it does not write; and it takes the common shapes itself.
 */
import { describe, expect, test } from "bun:test";
import { mulberry32 } from "../../fixtures/generators/prng.ts";
import { ProtoWriter } from "../../fixtures/generators/proto-writer.ts";
import { ByteBuf } from "../../src/adapters/common/json-bytes.ts";
import { writeAnnotationsJson } from "../../src/adapters/perfetto/annotation-bytes.ts";
import { annotationsJson } from "../../src/adapters/perfetto/debug-annotations.ts";
import { counterArgs, eventArgs } from "../../src/adapters/perfetto/event-args.ts";
import { PacketAnnotations } from "../../src/adapters/perfetto/packet-annotations.ts";
import { SequenceState } from "../../src/adapters/perfetto/sequence-state.ts";

/**
 * The annotations as a packet holds them: one arena, reused and cleared each time, small at first
 * so that it grows (moving the annotations already in it) as it is filled.
 */
const arena = new PacketAnnotations(16);
function packed(list: readonly Uint8Array[]): PacketAnnotations {
  arena.clear();
  for (const bytes of list) arena.add(bytes, 0, bytes.length);
  return arena;
}

const NAMES = ["k", "s", "value", "1", "01", "__proto__", "4294967294", "4294967295", "", "é"];
const TEXTS: (string | Uint8Array)[] = [
  "x",
  "",
  'quote " backslash \\ newline \n tab \t',
  "\u0001\u001f",
  "é€𝄞",
  Uint8Array.from([0xef, 0xbb, 0xbf, 0x61]), // a leading BOM, which decoding drops
  Uint8Array.from([0x61, 0xc3]), // cut
  Uint8Array.from([0xed, 0xa0, 0x80]), // a surrogate
];
const INTEGERS: (number | bigint)[] = [
  0,
  1,
  127,
  128,
  2 ** 31,
  2 ** 49,
  2 ** 53 - 1,
  2 ** 53,
  2n ** 63n - 1n,
  2n ** 63n,
  2n ** 64n - 1n,
  -1n & (2n ** 64n - 1n),
  -(2n ** 53n) & (2n ** 64n - 1n),
];
const DOUBLES = [0, -0, 0.5, 1 / 3, -1e21, 1e-7, 5e-324, Number.NaN, Number.POSITIVE_INFINITY];

/** `nested`: how often a field is also a dict entry or array value, to depth `maxDepth`. */
function generator(seed: number, nested = 0, maxDepth = 3) {
  const random = mulberry32(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const text = (w: ProtoWriter, field: number, t: string | Uint8Array) =>
    typeof t === "string" ? w.string(field, t) : w.bytes(field, t);
  function annotation(depth: number): ProtoWriter {
    const w = new ProtoWriter();
    const fields = 1 + Math.floor(random() * (random() < 0.8 ? 2 : 5));
    for (let f = 0; f < fields; f++) {
      if (depth < maxDepth && random() < nested) {
        w.message(random() < 0.6 ? 11 : 12, annotation(depth + 1));
        continue;
      }
      const r = random();
      if (r < 0.3) w.uint(1, Math.floor(random() * 6));
      else if (r < 0.45) text(w, 10, pick(NAMES));
      else if (r < 0.5) w.uint(2, pick([0, 1, 2n ** 63n]));
      else if (r < 0.6) w.uint(3, pick(INTEGERS));
      else if (r < 0.7) w.uint(4, pick(INTEGERS));
      else if (r < 0.75) w.tag(5, 1).fixed64Raw(pick(DOUBLES));
      else if (r < 0.85) text(w, 6, pick(TEXTS));
      else if (r < 0.9) w.uint(17, Math.floor(random() * 6));
      else if (r < 0.93) w.uint(7, pick(INTEGERS));
      else if (r < 0.95) w.string(9, pick(['{"a":1}', "[1,2]", "not json"]));
      else if (r < 0.97 && depth < 3) w.message(random() < 0.5 ? 11 : 12, annotation(depth + 1));
      else if (r < 0.975) w.string(1, "name of the wrong wire type");
      else if (r < 0.98)
        w.uint(11, 3); // a dict entry of the wrong wire type
      else w.uint(99, 5); // unknown
    }
    return w;
  }
  return { random, annotation };
}

function state(): SequenceState {
  const s = new SequenceState();
  // iids 0..3 known, 4 and 5 not.
  for (const [iid, name] of ["k", "s", "7", "value"].entries()) s.annotationNames.set(iid, name);
  for (const [iid, value] of ["interned", 'q"uote', "é", ""].entries())
    s.stringValues.set(iid, value);
  return s;
}

describe("debug annotations as bytes", () => {
  /**
   * Random events of `generator(seed, nested, maxDepth)`; each written as bytes must be the
   * reference's text. Returns how many were written, and how many of them nest.
   */
  function compare(seed: number, nested: number, maxDepth: number, events: number) {
    const { random, annotation } = generator(seed, nested, maxDepth);
    const sequence = state();
    const out = new ByteBuf(16);
    let written = 0;
    let nestedWritten = 0;
    for (let i = 0; i < events; i++) {
      const annotations = Array.from({ length: 1 + Math.floor(random() * 3) }, () => {
        let bytes = annotation(0).finish().slice();
        const mutation = random();
        if (mutation < 0.05 && bytes.length > 0)
          bytes = bytes.subarray(0, Math.floor(random() * bytes.length));
        else if (mutation < 0.1 && bytes.length > 0)
          bytes[Math.floor(random() * bytes.length)]! ^= 1 << Math.floor(random() * 8);
        return bytes;
      });
      let expected: string | null = null;
      try {
        expected = annotationsJson(annotations, sequence);
      } catch {}
      out.used = 3; // what the buffer held before is kept
      out.data.set([1, 2, 3]);
      const ok = writeAnnotationsJson(packed(annotations), sequence, out);
      if (!ok) {
        expect(out.used).toBe(3);
        continue;
      }
      written++;
      expect(expected).not.toBeNull();
      const text = out.toString(3);
      expect(text).toBe(expected!);
      expect([...out.data.subarray(0, 3)]).toEqual([1, 2, 3]);
      if (/^\{"[^"]*":[[{]|,"[^"]*":[[{]/.test(text)) nestedWritten++;
    }
    return { written, nestedWritten };
  }

  test("write the reference's args JSON, or leave it to the reference", () => {
    const { written } = compare(3, 0, 3, 20_000);
    // Most random events have a shape the byte path takes.
    expect(written).toBeGreaterThan(20_000 * 0.3);
  });

  test("nested dicts and arrays, to past the reference's nesting limit, are written alike", () => {
    const shallow = compare(5, 0.35, 4, 8_000);
    const deep = compare(7, 0.5, 40, 400);
    // The byte path takes nested shapes too, not only flat ones.
    expect(shallow.nestedWritten).toBeGreaterThan(500);
    expect(deep.nestedWritten).toBeGreaterThan(20);
    // A chain of dicts 40 deep: the reference stops reading nested values at 32, and so must this.
    for (const field of [11, 12]) {
      let inner = new ProtoWriter().string(10, "k").string(6, "leaf");
      for (let d = 0; d < 40; d++)
        inner = new ProtoWriter().string(10, `d${d}`).message(field, inner);
      const bytes = [inner.finish().slice()];
      const out = new ByteBuf(16);
      expect(writeAnnotationsJson(packed(bytes), state(), out)).toBe(true);
      expect(out.toString()).toBe(annotationsJson(bytes, state())!);
      expect(out.toString()).toContain(field === 11 ? '{"d7":null}' : "[null]");
    }
  });

  test("the generator's shape and Chrome's usual ones are written as bytes", () => {
    const sequence = state();
    const cases: [ProtoWriter[], string][] = [
      [[new ProtoWriter().uint(1, 0).uint(4, 12345)], '{"k":12345}'],
      [
        [
          new ProtoWriter().string(10, "src_file").string(6, "a.cc"),
          new ProtoWriter().uint(1, 3).uint(2, 1),
        ],
        '{"src_file":"a.cc","value":true}',
      ],
      [[new ProtoWriter().uint(1, 1).uint(17, 0)], '{"s":"interned"}'],
      [[new ProtoWriter().string(10, "p").uint(7, 0xdeadbeefn)], '{"p":"0xdeadbeef"}'],
      [
        [
          new ProtoWriter()
            .string(10, "data")
            .message(11, new ProtoWriter().string(10, "frame").string(6, "F1"))
            .message(
              11,
              new ProtoWriter()
                .string(10, "stack")
                .message(12, new ProtoWriter().uint(3, 1))
                .message(12, new ProtoWriter().string(6, "b")),
            ),
        ],
        '{"data":{"frame":"F1","stack":[1,"b"]}}',
      ],
    ];
    for (const [annotations, json] of cases) {
      const bytes = annotations.map((w) => w.finish().slice());
      const out = new ByteBuf(4);
      expect(writeAnnotationsJson(packed(bytes), sequence, out)).toBe(true);
      expect(out.toString()).toBe(json);
      expect(annotationsJson(bytes, sequence)).toBe(json);
    }
  });
});

describe("counter readings as bytes", () => {
  test("are JSON.stringify's {value}, alone or before annotations", () => {
    const random = mulberry32(11);
    const values = [...DOUBLES, -1, 2 ** 53, 2 ** 64, 1e21, -1e-7, 123456789012345, 0.1 + 0.2];
    for (let i = 0; i < 5_000; i++) {
      const magnitude = 10 ** Math.floor(random() * 40 - 12);
      const v = (random() - 0.3) * magnitude;
      values.push(v, Math.round(v));
    }
    const buf = new ByteBuf(4);
    for (const value of values) {
      expect(counterArgs(value, buf).toString()).toBe(JSON.stringify({ value }));
      expect(eventArgs(packed([]), state(), value, buf)).toBe(buf);
      expect(buf.toString()).toBe(JSON.stringify({ value }));
    }
    const annotation = [new ProtoWriter().string(10, "k").uint(3, 5).finish().slice()];
    expect(eventArgs(packed(annotation), state(), 2.5, buf)).toBe('{"value":2.5,"k":5}');
    expect(eventArgs(packed(annotation), state(), undefined, buf)).toBe(buf);
    expect(buf.toString()).toBe('{"k":5}');
    expect(eventArgs(packed([]), state(), undefined, buf)).toBeNull();
  });
});

describe("a packet's annotations", () => {
  test("keep every annotation's bytes as the arena grows, cleared packet after packet", () => {
    const annotations = new PacketAnnotations(8);
    const random = mulberry32(5);
    for (let packet = 0; packet < 50; packet++) {
      annotations.clear();
      const sent: Uint8Array[] = [];
      for (let k = Math.floor(random() * 12); k > 0; k--) {
        const bytes = Uint8Array.from({ length: Math.floor(random() * 90) }, () => random() * 256);
        // From inside a larger buffer, as from the scanner's memory.
        const source = new Uint8Array(bytes.length + 7);
        source.set(bytes, 5);
        annotations.add(source, 5, bytes.length);
        sent.push(bytes);
      }
      expect(annotations.length).toBe(sent.length);
      expect(annotations.views()).toEqual(sent);
      expect(PacketAnnotations.of(sent).views()).toEqual(sent);
    }
  });
});
