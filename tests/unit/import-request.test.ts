/**
 * The import request schema (application/import-request.ts) is the one check of what an
 * import says about its file: the CLI's flags go through parseImportOptions, the MCP
 * tool's input schema is built from it, and every kind an adapter publishes is one of
 * its kinds.
 */
import { describe, expect, test } from "bun:test";
import { type } from "arktype";
import { ADAPTERS } from "../../src/adapters/registry.ts";
import { ImportOptions, parseImportOptions } from "../../src/application/import-request.ts";
import { FlameoxError } from "../../src/domain/errors.ts";
import { ARTIFACT_KINDS } from "../../src/domain/records.ts";
import { ImportArtifactInput } from "../../src/mcp/schemas/inputs.ts";

function refusal(run: () => unknown): FlameoxError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(FlameoxError);
    return error as FlameoxError;
  }
  throw new Error("accepted, but expected INVALID_ARGUMENTS");
}

describe("import request", () => {
  test("valid options pass through typed; absent flags are left out", () => {
    expect(
      parseImportOptions({
        kind: "otlp_trace",
        media_type: "application/x-protobuf",
        producer: "otel-collector",
        producer_version: undefined,
        sensitivity: "internal",
        adapter: "otlp-proto",
      }),
    ).toEqual({
      kind: "otlp_trace",
      media_type: "application/x-protobuf",
      producer: "otel-collector",
      sensitivity: "internal",
      adapter: "otlp-proto",
    });
    expect(parseImportOptions({})).toEqual({});
  });

  test("each bad field is refused with INVALID_ARGUMENTS naming it as the MCP tool does", () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ kind: "flamegraph" }, "kind"],
      [{ media_type: "json" }, "media_type"],
      [{ producer: "x".repeat(101) }, "producer"],
      [{ producer: "" }, "producer"],
      [{ sensitivity: "public" }, "sensitivity"],
      [{ adapter: "../chrome-trace" }, "adapter"],
    ];
    for (const [raw, field] of cases) {
      const error = refusal(() => parseImportOptions(raw));
      expect(error.code).toBe("INVALID_ARGUMENTS");
      expect(error.details).toMatchObject({ field });
      expect(error.message).toContain(field);
    }
    expect(refusal(() => parseImportOptions({ command: "rm -rf /" })).details).toMatchObject({
      field: "command",
    });
  });

  test(
    "the MCP tool's input accepts and refuses exactly what the use case's schema does, plus " +
      "the path",
    () => {
      for (const options of [
        { kind: "otlp_trace" },
        { kind: "nope" },
        { producer_version: "" },
        { media_type: "text/plain", sensitivity: "sensitive" },
      ]) {
        const viaUseCase = ImportOptions(options) instanceof type.errors;
        const viaTool =
          ImportArtifactInput({ path: "a.json", source_root: "temp", ...options }) instanceof
          type.errors;
        expect(viaTool).toBe(viaUseCase);
      }
      expect(ImportArtifactInput({ path: "a.json", surprise: 1 }) instanceof type.errors).toBe(
        true,
      );
    },
  );

  test("every adapter's artifact kind is an importable kind", () => {
    for (const adapter of ADAPTERS)
      expect(ARTIFACT_KINDS as readonly string[]).toContain(adapter.artifactKind);
  });
});
