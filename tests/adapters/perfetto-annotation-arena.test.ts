/**
 * A packet's debug annotations are copied into one arena, reused packet after packet
 * (packet-annotations.ts): every event still gets its own annotations, when a packet holds several,
 * when they outgrow the arena in the middle of a packet, and when the next packet writes over
 * the last one's bytes.
 */
import { expect, test } from "bun:test";
import { mulberry32 } from "../../fixtures/generators/prng.ts";
import { DEFAULT_ADAPTER_LIMITS } from "../../src/adapters/adapter.ts";
import { adapterByName } from "../../src/adapters/registry.ts";
import { extracted } from "./adapter-harness.ts";
import { Trace } from "./reference-perfetto/perfetto-schema.ts";
import { traceEventBufferRows } from "./stream-harness.ts";

const perfetto = adapterByName("perfetto")!;

test("each event keeps its own annotations, through arena growth and reuse", async () => {
  const random = mulberry32(5);
  const expected: Record<string, string>[] = [];
  const packets = [];
  for (let p = 0; p < 60; p++) {
    const args: Record<string, string> = {};
    const annotations = [];
    // One to four annotations; now and then one larger than the arena's first 4 KiB.
    for (let k = 0; k < 1 + Math.floor(random() * 4); k++) {
      const length =
        random() < 0.15 ? 3000 + Math.floor(random() * 9000) : Math.floor(random() * 60);
      const value = String.fromCharCode(97 + (p % 26)).repeat(length) + `#${p}.${k}`;
      args[`a${k}`] = value;
      annotations.push({ name: `a${k}`, string_value: value });
    }
    expected.push(args);
    packets.push({
      trusted_packet_sequence_id: 1,
      timestamp: 1_000 + p * 10,
      track_event: { type: 3, name: `e${p}`, track_uuid: 0, debug_annotations: annotations },
    });
  }
  const bytes = Trace.encode(
    Trace.fromObject({
      packet: [{ trusted_packet_sequence_id: 1, track_descriptor: { uuid: 0 } }, ...packets],
    }),
  ).finish();
  // Args are not cut: every byte of every annotation is compared.
  const limits = { ...DEFAULT_ADAPTER_LIMITS, maxArgsBytes: 1 << 20 };
  const e = await extracted(perfetto, { bytes, displayName: "t", limits });
  const rows = traceEventBufferRows(e).filter((r) => String(r.name).startsWith("e"));
  expect(rows).toHaveLength(60);
  for (const row of rows) {
    const p = Number(String(row.name).slice(1));
    expect(JSON.parse(String(row.args_json))).toEqual(expected[p]!);
  }
});
