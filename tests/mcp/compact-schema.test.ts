/**
 * The tools/list schema rewrite: shorter, and accepting exactly what the arktype-derived
 * schema accepts (checked with the SDK's Ajv validator on values of every shape touched).
 */
import { describe, expect, test } from "bun:test";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { type } from "arktype";
import { compactSchema } from "../../src/mcp/schemas/compact-schema.ts";
import { jsonSchemaOf } from "../../src/mcp/schemas/common.ts";

const ajv = new AjvJsonSchemaValidator();
const accepts = (schema: Record<string, unknown>, value: unknown) =>
  ajv.getValidator(schema)(value).valid;

describe("compactSchema", () => {
  const Sample = type({
    metric: type("'cpu_time' | 'wall_time' | 'samples'").describe("which measure"),
    "cursor?": type("string > 0 | null").describe("the opaque cursor"),
    "level?": "'low' | 'high' | null",
    tags: type({ "[string]": "number | string | boolean" }),
    "nested?": { "child?": type({ id: "string" }).or("null") },
  });
  const raw = (() => {
    const { $schema: _, ...rest } = Sample.toJsonSchema() as Record<string, unknown>;
    return rest;
  })();
  const compact = compactSchema(raw);

  test("enums, nullable types and type unions are spelled once", () => {
    const text = JSON.stringify(compact);
    expect(text.length).toBeLessThan(JSON.stringify(raw).length);
    expect(text.split("which measure").length - 1).toBe(1);
    expect(text.split("the opaque cursor").length - 1).toBe(1);
    expect((compact.properties as Record<string, Record<string, unknown>>).metric!.enum).toEqual([
      "cpu_time",
      "samples",
      "wall_time",
    ]);
    expect(text).not.toContain('"anyOf"');
  });

  test.each([
    [{ metric: "cpu_time", tags: {} }],
    [{ metric: "samples", cursor: null, tags: { a: 1, b: "x", c: true } }],
    [{ metric: "wall_time", cursor: "c1", level: null, tags: {}, nested: { child: null } }],
    [{ metric: "wall_time", level: "high", tags: {}, nested: { child: { id: "x" } } }],
    [{ metric: "other", tags: {} }],
    [{ metric: "cpu_time", cursor: "", tags: {} }],
    [{ metric: "cpu_time", cursor: 5, tags: {} }],
    [{ metric: "cpu_time", level: "mid", tags: {} }],
    [{ metric: "cpu_time", tags: { a: null } }],
    [{ metric: "cpu_time", tags: {}, nested: { child: { id: 1 } } }],
    [{ tags: {} }],
  ])("accepts %j exactly when the original does", (value) => {
    expect(accepts(compact, value)).toBe(accepts(raw, value));
    expect(accepts(compact, value)).toBe(!(Sample(value) instanceof type.errors));
  });

  test("jsonSchemaOf publishes the compact form", () => {
    expect(jsonSchemaOf(Sample)).toEqual(compact);
  });
});
