/**
 * Published output schemas are brief: the envelope and the result's own fields in full,
 * nested values by type only. A brief schema must accept every value the full one does
 * (checked with the SDK's Ajv validator), so a client validating results never rejects a
 * correct answer.
 */
import { describe, expect, test } from "bun:test";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { type } from "arktype";
import { briefSchema } from "../../src/mcp/schemas/brief-schema.ts";
import { jsonSchemaOf } from "../../src/mcp/schemas/common.ts";
import { describeTool, fullOutputSchema } from "../../src/mcp/tool-registry.ts";
import { TOOLS } from "../../src/mcp/tools/index.ts";

type Schema = Record<string, unknown>;
const ajv = new AjvJsonSchemaValidator();
const accepts = (schema: Schema, value: unknown) => ajv.getValidator(schema)(value).valid;

/** The deepest level of `properties` under a schema (0: none). */
function depth(schema: unknown): number {
  if (typeof schema !== "object" || schema === null) return 0;
  const s = schema as Schema;
  const below = Object.entries(s).flatMap(([key, value]) =>
    key === "properties" && typeof value === "object" && value
      ? Object.values(value).map((child) => 1 + depth(child))
      : Array.isArray(value)
        ? value.map(depth)
        : [depth(value)],
  );
  return Math.max(0, ...below);
}

describe("briefSchema", () => {
  const Sample = type({
    id: "string",
    kind: "'a' | 'b'",
    "metric?": type("'m1' | 'm2' | 'm3' | 'm4' | 'm5' | 'm6' | 'm7' | 'm8' | 'm9' | null"),
    nested: { inner: { leaf: "number" }, "tags?": "string[]" },
    "either?": type({ x: "string" }).or({ y: "number" }),
    list: type({ name: "string", "n?": "number" }).array(),
    "maybe?": type({ z: "boolean" }).or("null"),
  });
  const full = jsonSchemaOf(Sample);
  const brief = briefSchema(full, 1);

  test(
    "keeps the top-level fields, their enums and required list; cuts nested shapes to their " +
      "type",
    () => {
      const props = brief.properties as Record<string, Schema>;
      expect(Object.keys(props).sort()).toEqual(Object.keys(full.properties as Schema).sort());
      expect(brief.required).toEqual(full.required);
      expect(props.kind!.enum).toEqual(["a", "b"]);
      // A long enum (here 9 names and null) is published as its types.
      expect(props.metric).toEqual({ type: ["string", "null"] });
      expect(props.nested).toEqual({ type: "object" });
      expect(props.list).toEqual({ type: "array" });
      expect(props.either).toEqual({ type: "object" });
      expect(depth(brief)).toBe(1);
    },
  );

  test.each([
    [{ id: "1", kind: "a", nested: { inner: { leaf: 1 } }, list: [] }],
    [
      {
        id: "1",
        kind: "b",
        nested: { inner: { leaf: 1 }, tags: ["t"] },
        either: { x: "s" },
        list: [{ name: "n", n: 2 }],
        maybe: null,
      },
    ],
    [
      {
        id: "1",
        kind: "b",
        nested: { inner: { leaf: 1 } },
        either: { y: 2 },
        list: [{ name: "n" }],
        maybe: { z: true },
      },
    ],
    [{ id: "1", kind: "c", nested: { inner: { leaf: 1 } }, list: [] }],
    [{ id: "1", kind: "a", list: [] }],
    [{ id: 1, kind: "a", nested: { inner: { leaf: 1 } }, list: [] }],
    [{ id: "1", kind: "a", nested: { inner: { leaf: "x" } }, list: [] }],
    [{ id: "1", kind: "a", nested: { inner: { leaf: 1 } }, list: [{ n: 1 }] }],
    [{ id: "1", kind: "a", nested: { inner: { leaf: 1 } }, list: [], metric: "m9" }],
    [{ id: "1", kind: "a", nested: { inner: { leaf: 1 } }, list: [], metric: null }],
    [{ id: "1", kind: "a", nested: { inner: { leaf: 1 } }, list: [], metric: "other" }],
  ])("accepts %j whenever the full schema does", (value) => {
    if (accepts(full, value)) expect(accepts(brief, value)).toBe(true);
    // What is checked at the levels kept is still checked.
    if (typeof value.id !== "string" || !["a", "b"].includes(value.kind) || !("nested" in value))
      expect(accepts(brief, value)).toBe(false);
  });

  test("every tool publishes the envelope and its result's own fields, and nothing deeper", () => {
    for (const tool of TOOLS) {
      const published = describeTool(tool).outputSchema as Schema;
      const whole = fullOutputSchema(tool) as Schema;
      const result = (s: Schema) => (s.properties as Record<string, Schema>).result!;
      expect(Object.keys(published.properties as Schema).sort(), tool.name).toEqual([
        "error",
        "ok",
        "result",
        "schema_version",
      ]);
      expect(Object.keys(result(published).properties ?? {}), tool.name).toEqual(
        Object.keys(result(whole).properties ?? {}),
      );
      expect(depth(published), tool.name).toBeLessThanOrEqual(2);
      // The error payload, the same for every tool, is published by type and description.
      expect(
        Object.keys((published.properties as Record<string, Schema>).error!).sort(),
        tool.name,
      ).toEqual(["description", "type"]);
    }
  });
});
