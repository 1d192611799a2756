/**
 * legacyJsonText says which annotations `annotation` reads as legacy JSON: V8 profile chunks are
 * held as that text until the scan ends and parsed then, so the text must be exactly the value
 * `annotation` would have parsed, and null whenever another field is the value.
 */
import { describe, expect, test } from "bun:test";
import { annotation, legacyJsonText } from "../../src/adapters/perfetto/debug-annotations.ts";
import { SequenceState } from "../../src/adapters/perfetto/sequence-state.ts";
import { perfettoRoot } from "./reference-perfetto/perfetto-schema.ts";

const DebugAnnotation = perfettoRoot.lookupType("perfetto.DebugAnnotation");
const bytesOf = (fields: Record<string, unknown>): Uint8Array =>
  DebugAnnotation.encode(DebugAnnotation.fromObject(fields)).finish();
/** Two encoded annotations' fields in order (protobufjs writes one message's fields by number). */
const concat = (a: Uint8Array, b: Uint8Array): Uint8Array => new Uint8Array([...a, ...b]);

describe("legacyJsonText", () => {
  const json = '{"cpuProfile":{"samples":[1,2]}}';

  test("a legacy_json_value is its text, the value annotation() parses", () => {
    const bytes = bytesOf({ name: "data", legacy_json_value: json });
    expect(legacyJsonText(bytes)).toBe(json);
    expect(annotation(bytes, new SequenceState())[1]).toEqual(JSON.parse(json));
  });

  test("a later value of another kind is the value: no text", () => {
    const bytes = concat(
      bytesOf({ name: "data", legacy_json_value: json }),
      bytesOf({ int_value: 7 }),
    );
    expect(annotation(bytes, new SequenceState())[1]).toBe(7);
    expect(legacyJsonText(bytes)).toBeNull();
  });

  test("an earlier value of another kind is overridden by the JSON", () => {
    const bytes = concat(bytesOf({ string_value: "x" }), bytesOf({ legacy_json_value: json }));
    expect(annotation(bytes, new SequenceState())[1]).toEqual(JSON.parse(json));
    expect(legacyJsonText(bytes)).toBe(json);
  });

  test("dict entries make the value a dict wherever they come", () => {
    const bytes = concat(
      bytesOf({ dict_entries: [{ name: "k", int_value: 1 }] }),
      bytesOf({ legacy_json_value: json }),
    );
    expect(annotation(bytes, new SequenceState())[1]).toEqual({ k: 1 });
    expect(legacyJsonText(bytes)).toBeNull();
  });

  test("other values and an empty annotation have no text", () => {
    expect(legacyJsonText(bytesOf({ name: "data", string_value: json }))).toBeNull();
    expect(legacyJsonText(new Uint8Array(0))).toBeNull();
  });
});
