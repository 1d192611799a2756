/**
 * The DHAT adapter's scanned paths against the reference (the whole payload through
 * JSON.parse, tests/adapters/reference-dhat/): `extract` and `extractStream` (small
 * chunks, program points spilled past a few hundred bytes) give the reference's rows,
 * summary and limitations on every corpus file and on hand-made edge cases, and fail
 * with its error code and message on bad input (for invalid JSON, the words after
 * "invalid JSON" are the parser's own).
 */
import { describe, expect, test } from "bun:test";
import type { AdapterLimits } from "../../src/adapters/adapter.ts";
import { dhatAdapter } from "../../src/adapters/dhat/adapter.ts";
import { corpusFiles, loadPayload } from "./corpus-files.ts";
import { dhatReference } from "./reference-dhat/reference-adapter.ts";
import { expectSameAsReference } from "./reference-equivalence.ts";

const same = (bytes: Uint8Array, limits?: Partial<AdapterLimits>) =>
  expectSameAsReference(dhatAdapter, dhatReference, bytes, limits);

const encode = (doc: unknown) => new TextEncoder().encode(JSON.stringify(doc));
const text = (s: string) => new TextEncoder().encode(s);

const FTBL = [
  "[root]",
  "0x48417B4: malloc (in /usr/libexec/valgrind/vgpreload_dhat-amd64-linux.so)",
  "0x1091DF: churn (prog.c:5)",
  "0x1091DF: main (prog.c:7)",
  "0x4000: ???",
  "0x4001: größe::über (src/lib.rs:12:5)",
];
const DOC = {
  dhatFileVersion: 2,
  mode: "heap",
  bklt: true,
  pps: [
    { tb: 100, tbk: 2, gb: 50, gbk: 1, fs: [1, 2, 3] },
    { tb: 7, tbk: 1, gb: 0, gbk: 0, fs: [1, 4, 3] },
    { tb: 3, tbk: 3, gb: 3, gbk: 3, fs: [5, 0, 3] },
    { tb: 1, tbk: 1, gb: 1, gbk: 1, fs: [1] },
    { tb: 0, tbk: 0, gb: 0, gbk: 0, fs: [2, 3] },
    { tb: 9, tbk: 1, gb: -0, gbk: 0, fs: [] },
  ],
  ftbl: FTBL,
};

describe("dhat: scanned paths equal the whole-payload reference", () => {
  for (const file of corpusFiles("dhat"))
    test(
      `${file.name}: same rows, summary and limitations; points spilled and read ` + `back`,
      async () => {
        const outcome = await same(loadPayload(file.path));
        expect("evidence" in outcome && outcome.spilled).toBeGreaterThan(0);
      },
    );

  const cases: [string, Uint8Array][] = [
    [
      "frame table after the points, many points (spilled in runs)",
      encode({
        ...DOC,
        pps: Array.from({ length: 200 }, (_, i) => DOC.pps[i % DOC.pps.length]),
      }),
    ],
    ["frame table before the points", encode({ ...DOC, ftbl: FTBL, pps: DOC.pps })],
    [
      "no block lifetimes (gb, gbk absent)",
      encode({
        ...DOC,
        bklt: false,
        pps: DOC.pps.map(({ tb, tbk, fs }) => ({ tb, tbk, fs })),
      }),
    ],
    ["copy mode", encode({ ...DOC, mode: "copy" })],
    [
      "dhat-rs mode, pretty-printed with a byte order mark",
      new Uint8Array([
        0xef,
        0xbb,
        0xbf,
        ...text(JSON.stringify({ ...DOC, mode: "rust-heap" }, null, 2)),
      ]),
    ],
    ["no points", encode({ ...DOC, pps: [] })],
    [
      "repeated keys: the last value counts, as in JSON.parse",
      text(
        '{"dhatFileVersion":1,"dhatFileVersion":2,"mode":"copy","mode":"heap","bklt":true,' +
          '"pps":[{"tb":1,"tbk":1,"gb":1,"gbk":1,"fs":[9]}],' +
          '"pps":[{"tb":5,"tbk":1,"gb":1,"gbk":1,"fs":[2,3],"fs":[1,2],"tb":6},' +
          '{"tb":1,"tbk":1,"gb":1,"gbk":1,"fs":[2],"fs":[]}],' +
          '"ftbl":["x"],"ftbl":' +
          JSON.stringify(FTBL) +
          "}",
      ),
    ],
    [
      "unknown fields and values skipped",
      encode({
        ...DOC,
        extra: { pps: [1, 2], ftbl: 5 },
        pps: DOC.pps.map((p) => ({ ...p, tl: 5, mb: [1, { x: 2 }], fs2: "x" })),
      }),
    ],
  ];
  for (const [name, bytes] of cases)
    test(`edge case: ${name}`, async () => {
      expect("evidence" in (await same(bytes))).toBe(true);
    });

  const bad: [string, Uint8Array, Partial<AdapterLimits>?][] = [
    ["empty", text("")],
    ["whitespace", text("  \n ")],
    ["an array", text("[1,2]")],
    ["a number", text("5")],
    ["cut off", encode(DOC).subarray(0, 60)],
    ["trailing data", text(`${JSON.stringify(DOC)} x`)],
    ["invalid JSON inside a point", text(JSON.stringify(DOC).replace('"tb":7', '"tb":07'))],
    ["version 1", encode({ ...DOC, dhatFileVersion: 1 })],
    ["version as a string", encode({ ...DOC, dhatFileVersion: "2" })],
    ["version as an array", encode({ ...DOC, dhatFileVersion: [2, { a: 1 }] })],
    ["no version", encode({ ...DOC, dhatFileVersion: undefined })],
    ["mode missing", encode({ ...DOC, mode: undefined })],
    ["mode a number", encode({ ...DOC, mode: 3 })],
    ["ftbl missing", encode({ ...DOC, ftbl: undefined })],
    ["ftbl with a number", encode({ ...DOC, ftbl: [...FTBL, 5] })],
    ["ftbl an object", encode({ ...DOC, ftbl: { a: "b" } })],
    ["pps an object", encode({ ...DOC, pps: { a: 1 } })],
    ["pps missing", encode({ ...DOC, pps: undefined })],
    ["a point that is an array", encode({ ...DOC, pps: [DOC.pps[0], [1]] })],
    ["tb negative", encode({ ...DOC, pps: [{ ...DOC.pps[0], tb: -1 }] })],
    ["tb fractional", encode({ ...DOC, pps: [{ ...DOC.pps[0], tb: 1.5 }] })],
    ["tbk a string", encode({ ...DOC, pps: [{ ...DOC.pps[0], tbk: "1" }] })],
    ["tbk null", encode({ ...DOC, pps: [{ ...DOC.pps[0], tbk: null }] })],
    ["gb missing with bklt", encode({ ...DOC, pps: [{ ...DOC.pps[0], gb: undefined }] })],
    ["gbk an object with bklt", encode({ ...DOC, pps: [{ ...DOC.pps[0], gbk: {} }] })],
    ["fs not an array", encode({ ...DOC, pps: [DOC.pps[0], { ...DOC.pps[0], fs: 3 }] })],
    ["fs index out of range", encode({ ...DOC, pps: [{ ...DOC.pps[0], fs: [1, 6] }] })],
    ["fs index negative", encode({ ...DOC, pps: [{ ...DOC.pps[0], fs: [-1] }] })],
    ["fs index huge", encode({ ...DOC, pps: [{ ...DOC.pps[0], fs: [2 ** 40] }] })],
    ["fs index fractional", encode({ ...DOC, pps: [{ ...DOC.pps[0], fs: [1.5] }] })],
    ["fs index a string", encode({ ...DOC, pps: [{ ...DOC.pps[0], fs: ["1"] }] })],
    ["fs index true", encode({ ...DOC, pps: [{ ...DOC.pps[0], fs: [true] }] })],
    [
      "summed bytes beyond 2^53",
      encode({
        ...DOC,
        pps: [
          { ...DOC.pps[0], tb: 2 ** 52 },
          { ...DOC.pps[0], tb: 2 ** 52 + 2 },
        ],
      }),
    ],
    [
      "nested deeper than the limit",
      encode({ ...DOC, extra: [[[[[[1]]]]]] }),
      { maxNestingDepth: 4 },
    ],
    ["more points than the limit", encode(DOC), { maxEvents: 5 }],
  ];
  for (const [name, bytes, limits] of bad)
    test(`bad input: ${name}: the reference's error`, async () => {
      const outcome = await same(bytes, limits);
      expect("error" in outcome).toBe(true);
    });
});
