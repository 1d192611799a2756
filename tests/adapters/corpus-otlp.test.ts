/**
 * OTLP traces, JSON and protobuf: every corpus file is detected and imported; span rows
 * equal the raw spans (JSON.parse / protobufjs decoded independently); the WASM stream
 * paths equal the reference paths row for row.
 */
import { describe, expect, test } from "bun:test";
import { DEFAULT_ADAPTER_LIMITS } from "../../src/adapters/adapter.ts";
import { ExportTraceServiceRequest } from "./reference-otlp/otlp-proto-schema.ts";
import { adapterByName, detectAdapter } from "../../src/adapters/registry.ts";
import { payload, extracted } from "./adapter-harness.ts";
import { corpusFiles, headOf, loadPayload, parseLoose } from "./corpus-files.ts";
import { bufferRows } from "./stream-harness.ts";
import { expectSameOutcome } from "./wasm-equivalence.ts";

type Msg = Record<string, any>;
const json = adapterByName("otlp-json")!;
const proto = adapterByName("otlp-protobuf")!;

function detect(bytes: Uint8Array, name: string): string | undefined {
  return detectAdapter({
    head: headOf(bytes),
    headBytes: bytes.subarray(0, 65536),
    displayName: name,
  })?.name;
}

describe("OTLP/JSON corpus", () => {
  for (const file of corpusFiles("otlp-json")) {
    test(file.name, async () => {
      const bytes = loadPayload(file.path);
      expect(detect(bytes, file.name)).toBe("otlp-json");
      const evidence = await extracted(json, {
        bytes,
        displayName: file.name,
        limits: DEFAULT_ADAPTER_LIMITS,
      });
      const raw = parseLoose(bytes) as Msg;
      const spans: Msg[] = (raw.resourceSpans ?? raw.result.resourceSpans).flatMap((rs: Msg) =>
        (rs.scopeSpans ?? []).flatMap((ss: Msg) => ss.spans ?? []),
      );
      const rows = bufferRows(evidence.tables.otel_spans);
      expect(rows.map((r) => [r.name, r.trace_id, r.span_id, r.parent_span_id])).toEqual(
        spans.map((s) => [
          s.name,
          s.traceId.toLowerCase(),
          s.spanId.toLowerCase(),
          s.parentSpanId ? s.parentSpanId.toLowerCase() : null,
        ]),
      );
      rows.forEach((r, i) =>
        expect(BigInt(r.duration_ns as string)).toBe(
          BigInt(spans[i]!.endTimeUnixNano ?? 0) - BigInt(spans[i]!.startTimeUnixNano ?? 0),
        ),
      );
      await expectSameOutcome(json, bytes, { displayName: file.name, chunkSize: 211 });
    });
  }
});

describe("OTLP/JSON Lines (the Collector's file exporter)", () => {
  test(
    "every corpus request on its own line: one trace, resource indexes continuing " +
      "across lines",
    async () => {
      const files = corpusFiles("otlp-json");
      const raws = files.map((f) => parseLoose(loadPayload(f.path)) as Msg);
      const bytes = new TextEncoder().encode(
        raws.map((raw) => JSON.stringify(raw) + "\n").join(""),
      );
      expect(detect(bytes, "traces.jsonl")).toBe("otlp-json");
      const evidence = await extracted(json, {
        bytes,
        displayName: "traces.jsonl",
        limits: DEFAULT_ADAPTER_LIMITS,
      });
      // Independently: span names in file order, each with the index of its resource counted over
      // all lines.
      const want: [string, number][] = [];
      let base = 0;
      for (const raw of raws) {
        const resourceSpans: Msg[] = raw.resourceSpans ?? raw.result.resourceSpans;
        resourceSpans.forEach((rs, k) =>
          (rs.scopeSpans ?? []).forEach((ss: Msg) =>
            (ss.spans ?? []).forEach((sp: Msg) => want.push([sp.name, base + k])),
          ),
        );
        base += resourceSpans.length;
      }
      expect(
        bufferRows(evidence.tables.otel_spans).map((r) => [r.name, Number(r.resource_index)]),
      ).toEqual(want);
      expect(
        bufferRows(evidence.tables.otel_resources).map((r) => Number(r.resource_index)),
      ).toEqual(Array.from({ length: base }, (_, i) => i));
      await expectSameOutcome(json, bytes, { displayName: "traces.jsonl", chunkSize: 97 });
      // Blank lines and CRLF endings are whitespace between requests.
      const crlf = new TextEncoder().encode(
        raws.map((raw) => JSON.stringify(raw) + "\r\n\r\n").join(""),
      );
      expect(
        bufferRows(
          (
            await extracted(json, {
              bytes: crlf,
              displayName: "t.jsonl",
              limits: DEFAULT_ADAPTER_LIMITS,
            })
          ).tables.otel_spans,
        ).length,
      ).toBe(want.length);
      await expectSameOutcome(json, crlf, { displayName: "t.jsonl", chunkSize: 131 });
    },
  );

  test(
    "a bad line fails typed on both paths; a request that is not an object fails " + "typed",
    async () => {
      const good = JSON.stringify(parseLoose(loadPayload(corpusFiles("otlp-json")[0]!.path)));
      for (const text of [
        `${good}\n{"resourceSpans": [}\n`,
        `${good}\n[1, 2]\n`,
        `${good}\n{"resourceSpans": 3}\n`,
      ]) {
        const bytes = new TextEncoder().encode(text);
        await expect(
          extracted(json, {
            bytes,
            displayName: "t.jsonl",
            limits: DEFAULT_ADAPTER_LIMITS,
          }),
        ).rejects.toThrow();
        await expectSameOutcome(json, bytes, { displayName: "t.jsonl", chunkSize: 64 });
      }
    },
  );
});

describe("OTLP protobuf corpus", () => {
  for (const file of corpusFiles("otlp-proto")) {
    test(file.name, async () => {
      const bytes = loadPayload(file.path);
      expect(detect(bytes, file.name)).toBe("otlp-protobuf");
      const evidence = await extracted(proto, {
        bytes,
        displayName: file.name,
        limits: DEFAULT_ADAPTER_LIMITS,
      });
      const request = ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(bytes), {
        longs: String,
      }) as Msg;
      const spans: Msg[] = request.resource_spans.flatMap((rs: Msg) =>
        rs.scope_spans.flatMap((ss: Msg) => ss.spans ?? []),
      );
      const hex = (b: Uint8Array | undefined) => Buffer.from(b ?? []).toString("hex");
      expect(
        bufferRows(evidence.tables.otel_spans).map((r) => [
          r.name,
          r.trace_id,
          r.span_id,
          r.start_unix_nano,
          r.end_unix_nano,
        ]),
      ).toEqual(
        spans.map((s) => [
          s.name,
          hex(s.trace_id),
          hex(s.span_id),
          s.start_time_unix_nano,
          s.end_time_unix_nano,
        ]),
      );
      expect(bufferRows(evidence.tables.otel_span_events).length).toBe(
        spans.reduce((n, s) => n + (s.events?.length ?? 0), 0),
      );
      expect(bufferRows(evidence.tables.otel_span_links).length).toBe(
        spans.reduce((n, s) => n + (s.links?.length ?? 0), 0),
      );
      await expectSameOutcome(proto, bytes, { displayName: file.name, chunkSize: 17 });
    });
  }

  test(
    "length-prefixed requests (the Collector's file exporter, format: proto) import as one " +
      "trace",
    async () => {
      const bodies = corpusFiles("otlp-proto").map((f) => loadPayload(f.path));
      const frame = (body: Uint8Array) => {
        const prefix = new Uint8Array(4);
        new DataView(prefix.buffer).setUint32(0, body.length);
        return Buffer.concat([prefix, body]);
      };
      const bytes = new Uint8Array(
        Buffer.concat([...bodies.map(frame), frame(new Uint8Array(0)), frame(bodies[0]!)]),
      );
      expect(detect(bytes, "traces.bin")).toBe("otlp-protobuf");
      // Independently: each body decoded by protobufjs, spans in file order, resource indexes
      // counted across bodies.
      const want: [string, number][] = [];
      let base = 0;
      for (const body of [...bodies, bodies[0]!]) {
        const request = ExportTraceServiceRequest.toObject(
          ExportTraceServiceRequest.decode(body),
        ) as Msg;
        request.resource_spans.forEach((rs: Msg, k: number) =>
          rs.scope_spans.forEach((ss: Msg) =>
            (ss.spans ?? []).forEach((sp: Msg) => want.push([sp.name, base + k])),
          ),
        );
        base += request.resource_spans.length;
      }
      const evidence = await extracted(proto, {
        bytes,
        displayName: "traces.bin",
        limits: DEFAULT_ADAPTER_LIMITS,
      });
      expect(
        bufferRows(evidence.tables.otel_spans).map((r) => [r.name, Number(r.resource_index)]),
      ).toEqual(want);
      expect(bufferRows(evidence.tables.otel_resources).length).toBe(base);
      // Chunks of 3 bytes: prefixes split across chunks.
      await expectSameOutcome(proto, bytes, { displayName: "traces.bin", chunkSize: 3 });
      for (const cut of [
        bytes.subarray(0, bytes.length - 1),
        bytes.subarray(0, 2 + frame(bodies[0]!).length),
      ]) {
        await expect(
          extracted(proto, {
            bytes: cut,
            displayName: "t.bin",
            limits: DEFAULT_ADAPTER_LIMITS,
          }),
        ).rejects.toThrow(/cut off/);
        await expectSameOutcome(proto, cut, { displayName: "t.bin", chunkSize: 5 });
      }
    },
  );

  test("the same request in JSON and protobuf gives the same typed attributes", async () => {
    const request = {
      resource_spans: [
        {
          resource: { attributes: [{ key: "service.name", value: { string_value: "svc" } }] },
          scope_spans: [
            {
              scope: { name: "lib" },
              spans: [
                {
                  trace_id: Buffer.alloc(16, 1),
                  span_id: Buffer.alloc(8, 2),
                  name: "op",
                  kind: 2,
                  start_time_unix_nano: 10,
                  end_time_unix_nano: 25,
                  attributes: [
                    { key: "n", value: { int_value: 7 } },
                    { key: "d", value: { double_value: 0.5 } },
                    { key: "b", value: { bytes_value: Buffer.from([1, 2]) } },
                    { key: "a", value: { array_value: { values: [{ bool_value: true }] } } },
                    {
                      key: "kv",
                      value: {
                        kvlist_value: { values: [{ key: "x", value: { string_value: "y" } }] },
                      },
                    },
                  ],
                },
              ],
            },
          ],
        },
      ],
    };
    const bytes = ExportTraceServiceRequest.encode(
      ExportTraceServiceRequest.fromObject(request),
    ).finish();
    const jsonBody = {
      resourceSpans: [
        {
          resource: { attributes: [{ key: "service.name", value: { stringValue: "svc" } }] },
          scopeSpans: [
            {
              scope: { name: "lib" },
              spans: [
                {
                  traceId: "01".repeat(16),
                  spanId: "02".repeat(8),
                  name: "op",
                  kind: 2,
                  startTimeUnixNano: "10",
                  endTimeUnixNano: "25",
                  attributes: [
                    { key: "n", value: { intValue: "7" } },
                    { key: "d", value: { doubleValue: 0.5 } },
                    { key: "b", value: { bytesValue: "AQI=" } },
                    { key: "a", value: { arrayValue: { values: [{ boolValue: true }] } } },
                    {
                      key: "kv",
                      value: {
                        kvlistValue: { values: [{ key: "x", value: { stringValue: "y" } }] },
                      },
                    },
                  ],
                },
              ],
            },
          ],
        },
      ],
    };
    const fromProto = bufferRows(
      (await extracted(proto, { bytes, displayName: "x.pb", limits: DEFAULT_ADAPTER_LIMITS }))
        .tables.otel_spans,
    );
    const fromJson = bufferRows(
      (
        await extracted(json, {
          bytes: payload(jsonBody),
          displayName: "x.json",
          limits: DEFAULT_ADAPTER_LIMITS,
        })
      ).tables.otel_spans,
    );
    expect(fromProto).toEqual(fromJson);
    expect(JSON.parse(fromJson[0]!.attributes_json as string)).toEqual([
      ["n", "int", "7"],
      ["d", "double", 0.5],
      ["b", "bytes", "AQI="],
      ["a", "array", [["bool", true]]],
      ["kv", "kvlist", [["x", "string", "y"]]],
    ]);
  });

  test("malformed requests fail with typed errors on both paths", async () => {
    const bytes = loadPayload(corpusFiles("otlp-proto")[1]!.path);
    for (const cut of [2, bytes.length >> 1, bytes.length - 1])
      await expectSameOutcome(proto, bytes.subarray(0, cut), { chunkSize: 13 });
    for (const value of [
      {},
      { resourceSpans: 3 },
      { resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: "zz" }] }] }] },
      [1],
    ]) {
      await expectSameOutcome(json, payload(value), { chunkSize: 5 });
    }
  });
});
