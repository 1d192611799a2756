/**
 * The speedscope adapter's scanned paths against the reference (the whole payload
 * through JSON.parse, tests/adapters/reference-speedscope/): `extract` and
 * `extractStream` (small chunks; samples, weights, events and stacks spilled past tiny
 * budgets) give the reference's rows (slices and tracks included), summary and
 * limitations on every corpus file, the hand-written fixtures and hand-made edge cases,
 * and fail with its error code and message on bad input.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { AdapterLimits } from "../../src/adapters/adapter.ts";
import { speedscopeAdapter } from "../../src/adapters/speedscope/adapter.ts";
import { REPO } from "../helpers.ts";
import { corpusFiles, loadPayload } from "./corpus-files.ts";
import { expectSameAsReference } from "./reference-equivalence.ts";
import { speedscopeReference } from "./reference-speedscope/reference-adapter.ts";

const same = (bytes: Uint8Array, limits?: Partial<AdapterLimits>) =>
  expectSameAsReference(speedscopeAdapter, speedscopeReference, bytes, limits);
const encode = (doc: unknown) => new TextEncoder().encode(JSON.stringify(doc));
const text = (s: string) => new TextEncoder().encode(s);

const FIXTURES = join(REPO, "fixtures", "speedscope");
const files = [
  ...corpusFiles("speedscope"),
  ...readdirSync(FIXTURES)
    .filter((n) => n.endsWith(".json"))
    .map((name) => ({ name, path: join(FIXTURES, name) })),
];

const FRAMES = [
  { name: "main", file: "app.js", line: 1, col: 2 },
  { name: "work", file: "/srv/work.py", line: 0, col: -1 },
  { name: "größe::über", file: "src/lib.rs", line: 1.5 },
  { name: "", file: "" },
  { name: "[unknown]", file: "lib.so" },
  { name: "leaf" },
];
const SAMPLED = {
  type: "sampled",
  name: "thread 1",
  unit: "milliseconds",
  startValue: 0,
  endValue: 10,
  samples: [[0, 1, 2], [0, 1], [], [0, 5, 5], [3, 4]],
  weights: [1, 2.5, 1, 0, 3],
};
const EVENTED = {
  type: "evented",
  name: "main",
  unit: "microseconds",
  startValue: 0,
  endValue: 100,
  events: [
    { type: "O", frame: 0, at: 0 },
    { type: "O", frame: 1, at: 5 },
    { type: "O", frame: 2, at: 6 },
    { type: "C", frame: 1, at: 9 },
    { type: "C", frame: 5, at: 10 },
    { type: "O", frame: 3, at: 8 },
    { type: "C", frame: 3, at: 12 },
    { type: "O", frame: 4, at: 20 },
  ],
};
const DOC = {
  $schema: "https://www.speedscope.app/file-format-schema.json",
  exporter: "py-spy@0.3.14",
  name: "run",
  shared: { frames: FRAMES },
  profiles: [SAMPLED, EVENTED],
};

/** Many evented slices: many batches of them when batches are small. */
function manySlices(pairs: number): unknown {
  const events: unknown[] = [];
  for (let i = 0; i < pairs; i++) {
    events.push({ type: "O", frame: i % 6, at: i * 2 });
    events.push({ type: "C", frame: i % 6, at: i * 2 + 1 });
  }
  return { ...DOC, profiles: [{ ...EVENTED, endValue: pairs * 2, events }] };
}

describe("speedscope: scanned paths equal the whole-payload reference", () => {
  for (const file of files)
    test(
      `${file.name}: same rows, summary and limitations; samples spilled and read ` + `back`,
      async () => {
        const outcome = await same(loadPayload(file.path));
        expect("evidence" in outcome && outcome.spilled).toBeGreaterThan(0);
      },
    );

  const cases: [string, Uint8Array][] = [
    ["sampled and evented profiles, odd frames, every counted irregularity", encode(DOC)],
    [
      "profiles before shared, and a profile's type and unit after its samples (py-spy's order)",
      text(
        `{"profiles":[{"samples":${JSON.stringify(SAMPLED.samples)},"weights":` +
          `${JSON.stringify(SAMPLED.weights)},"type":"sampled","unit":"seconds","name":"t"},` +
          `{"events":${JSON.stringify(EVENTED.events)}` +
          `,"endValue":50,"unit":"nanoseconds","type":"evented"}],` +
          `"shared":{"frames":${JSON.stringify(FRAMES)}` +
          `},"exporter":"speedscope@1.20.0","name":"late"}`,
      ),
    ],
    [
      "many samples over three profiles (spilled in many runs), weights absent in one",
      encode({
        ...DOC,
        profiles: [0, 1, 2].map((p) => ({
          ...SAMPLED,
          unit: ["none", "bytes", "nanoseconds"][p],
          samples: Array.from({ length: 300 }, (_, i) => SAMPLED.samples[(i + p) % 5]),
          weights:
            p === 2 ? undefined : Array.from({ length: 300 }, (_, i) => (i % 7) + (p ? 0.5 : 0)),
        })),
      }),
    ],
    ["slices written in many batches", encode(manySlices(200))],
    [
      "untimed evented profiles (none, bytes) and an empty one",
      encode({
        ...DOC,
        version: "0.0.1",
        exporter: undefined,
        profiles: [
          { ...EVENTED, unit: "none" },
          { ...EVENTED, unit: "bytes" },
          { ...EVENTED, events: [] },
        ],
      }),
    ],
    ["no profiles", encode({ ...DOC, profiles: [] })],
    [
      "start and end values beyond a double's range (infinite: taken as 0)",
      text(
        JSON.stringify({ ...DOC, profiles: [EVENTED] })
          .replace('"startValue":0', '"startValue":1e400')
          .replace('"endValue":100', '"endValue":-1e400'),
      ),
    ],
    ["an exporter without a version", encode({ ...DOC, exporter: "my-tool" })],
    [
      "repeated keys: the last value counts, as in JSON.parse",
      text(
        '{"shared":{"frames":[{"name":"x"}]},"profiles":[{"type":"sampled","unit":"none",' +
          '"samples":[[7]]}],' +
          `"shared":{"frames":[{"name":"gone"}],"frames":${JSON.stringify(FRAMES)}},` +
          '"profiles":[{"type":"evented","unit":"none","samples":[[0]],"weights":[1],' +
          '"type":"sampled",' +
          '"samples":[[0,1],[2]],"weights":[1],"weights":[4,5],"unit":"seconds"},' +
          '{"type":"evented","unit":"milliseconds","events":[{"type":"O","frame":9,"at":1}],' +
          `"events":${JSON.stringify(EVENTED.events)}}],"name":"a","name":"b"}`,
      ),
    ],
    [
      "arrays a profile's type does not use are not read, bad values in them included",
      encode({
        ...DOC,
        profiles: [
          { ...SAMPLED, events: [{ type: "X" }] },
          { ...EVENTED, samples: [[99]], weights: ["x"] },
        ],
      }),
    ],
    [
      "pretty-printed with a byte order mark, unknown fields skipped",
      new Uint8Array([
        0xef,
        0xbb,
        0xbf,
        ...text(
          JSON.stringify(
            { ...DOC, activeProfileIndex: 0, extra: { profiles: [1], shared: 2 } },
            null,
            2,
          ),
        ),
      ]),
    ],
  ];
  for (const [name, bytes] of cases)
    test(`edge case: ${name}`, async () => {
      expect("evidence" in (await same(bytes))).toBe(true);
    });

  const profile = (p: Record<string, unknown>) => encode({ ...DOC, profiles: [p] });
  const bad: [string, Uint8Array, Partial<AdapterLimits>?][] = [
    ["empty", text("")],
    ["whitespace", text(" \n")],
    ["an array", text("[{}]")],
    ["a string", text('"x"')],
    ["cut off", encode(DOC).subarray(0, 120)],
    ["trailing data", text(`${JSON.stringify(DOC)}]`)],
    ["invalid JSON in a sample", text(JSON.stringify(DOC).replace("[0,1,2]", "[0,1,,2]"))],
    ["shared missing", encode({ ...DOC, shared: undefined })],
    ["shared a number", encode({ ...DOC, shared: 3 })],
    ["shared.frames missing", encode({ ...DOC, shared: {} })],
    ["shared.frames an object", encode({ ...DOC, shared: { frames: {} } })],
    ["a frame that is a string", encode({ ...DOC, shared: { frames: [...FRAMES, "f"] } })],
    ["a frame without a name", encode({ ...DOC, shared: { frames: [{ file: "a" }] } })],
    ["a frame named by a number", encode({ ...DOC, shared: { frames: [{ name: 1 }] } })],
    ["profiles missing", encode({ ...DOC, profiles: undefined })],
    ["profiles an object", encode({ ...DOC, profiles: {} })],
    ["a profile that is null", encode({ ...DOC, profiles: [SAMPLED, null] })],
    ["unit unknown", profile({ ...SAMPLED, unit: "minutes" })],
    ["unit missing", profile({ ...SAMPLED, unit: undefined })],
    ["unit an object", profile({ ...SAMPLED, unit: { a: [1, "x"] } })],
    ["type unknown", profile({ ...SAMPLED, type: "counted" })],
    ["type missing", profile({ ...SAMPLED, type: undefined })],
    ["type an array", profile({ ...SAMPLED, type: ["sampled"] })],
    ["events missing", profile({ ...EVENTED, events: undefined })],
    ["an event that is a number", profile({ ...EVENTED, events: [...EVENTED.events, 3] })],
    ["an event of type X", profile({ ...EVENTED, events: [{ type: "X", frame: 0, at: 1 }] })],
    ["an event without a type", profile({ ...EVENTED, events: [{ frame: 0, at: 1 }] })],
    ["an event without at", profile({ ...EVENTED, events: [{ type: "O", frame: 0 }] })],
    ["an event at a string", profile({ ...EVENTED, events: [{ type: "O", frame: 0, at: "1" }] })],
    ["an event on frame 6", profile({ ...EVENTED, events: [{ type: "O", frame: 6, at: 1 }] })],
    ["an event on frame -1", profile({ ...EVENTED, events: [{ type: "O", frame: -1, at: 1 }] })],
    ["an event on frame 0.5", profile({ ...EVENTED, events: [{ type: "O", frame: 0.5, at: 1 }] })],
    ["an event on frame '0'", profile({ ...EVENTED, events: [{ type: "O", frame: "0", at: 1 }] })],
    ["samples missing", profile({ ...SAMPLED, samples: undefined })],
    ["a sample that is an object", profile({ ...SAMPLED, samples: [[0], { 0: 1 }] })],
    ["a frame index too large", profile({ ...SAMPLED, samples: [[0], [0, 2 ** 40]] })],
    ["a frame index that is null", profile({ ...SAMPLED, samples: [[0, null]] })],
    ["weights one short", profile({ ...SAMPLED, weights: [1, 1, 1, 1] })],
    ["a negative weight", profile({ ...SAMPLED, weights: [1, 1, -1, 1, 1] })],
    ["a weight that is a string", profile({ ...SAMPLED, weights: [1, 1, "1", 1, 1] })],
    ["weights null", profile({ ...SAMPLED, weights: null })],
    [
      "a weight beyond a double's range",
      text(
        JSON.stringify({ ...DOC, profiles: [{ ...SAMPLED, unit: "none" }] }).replace(
          "[1,2.5,1,0,3]",
          "[1,2.5,1e400,0,3]",
        ),
      ),
    ],
    [
      "an event at a time beyond a double's range",
      text(JSON.stringify({ ...DOC, profiles: [EVENTED] }).replace('"at":20', '"at":1e400')),
    ],
    ["weights an object", profile({ ...SAMPLED, weights: { length: 5 } })],
    [
      "sample weights beyond 2^53 ns",
      profile({ ...SAMPLED, unit: "seconds", weights: [1e300, 1, 1, 1, 1] }),
    ],
    [
      "an evented span beyond 2^53 ns over two profiles",
      encode({
        ...DOC,
        profiles: [
          { ...EVENTED, unit: "seconds", endValue: 2e6 },
          { ...EVENTED, unit: "seconds", endValue: 3e6 },
        ],
      }),
    ],
    ["more samples and events than the limit", encode(DOC), { maxEvents: 12 }],
    ["nested deeper than the limit", encode(DOC), { maxNestingDepth: 3 }],
  ];
  for (const [name, bytes, limits] of bad)
    test(`bad input: ${name}: the reference's error`, async () => {
      expect("error" in (await same(bytes, limits))).toBe(true);
    });
});
