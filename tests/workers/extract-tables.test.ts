/**
 * The worker's extraction: it hands its checkpoint (where the memory governor collects) to
 * streaming adapters, so a pass that writes no rows can still let garbage be collected; parts
 * wait for a landing payload's provenance; and a table's last part is written as soon as the
 * adapter ends the table, and otherwise, with every other table's, before any is waited for.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  DEFAULT_ADAPTER_LIMITS,
  type ProducerAdapter,
  type StreamExtractInput,
} from "../../src/adapters/adapter.ts";
import { tableBufferToBatch } from "../../src/adapters/common/table-buffer-batch.ts";
import { EVIDENCE_SCHEMAS } from "../../src/domain/evidence-schema.ts";
import { TableBuffer } from "../../src/domain/table-buffer.ts";
import { extractTables } from "../../workers/extract-tables.ts";
import { finishTables, ROWS_PER_PART, TableParts } from "../../workers/table-parts.ts";
import { TEST_PROVENANCE } from "../helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "flameox-extract-tables-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A fake streaming adapter of `tables`: `run` is its extraction, after reading the payload. */
function fakeAdapter(
  tables: ProducerAdapter["tables"],
  run: (input: StreamExtractInput) => Promise<void> | void,
): ProducerAdapter {
  return {
    name: "fake",
    version: "1",
    tables,
    artifactKind: "sample_profile",
    mediaType: "application/json",
    detect: () => 0,
    async extractStream(input) {
      for await (const _ of input.chunks);
      await run(input);
      return {
        adapter: "fake",
        adapterVersion: "1",
        producer: "fake",
        producerVersion: null,
        limitations: [],
        summary: {},
        tables: {},
        streamed: [...tables],
      };
    },
  };
}

const OPTIONS = {
  displayName: "t",
  limits: DEFAULT_ADAPTER_LIMITS,
  outputDir: dir,
  provenance: TEST_PROVENANCE,
};

/** A payload of one small chunk. */
function onePayload() {
  const bytes = new TextEncoder().encode("{}");
  return {
    compression: "none" as const,
    head: bytes,
    chunks: (async function* () {
      yield bytes;
    })(),
  };
}

test("a streaming adapter's checkpoints reach the worker's", async () => {
  const seen: string[] = [];
  let phase = "before";
  const adapter = fakeAdapter(["frames"], (input) => {
    phase = "aggregating";
    input.checkpoint?.();
    phase = "after";
  });
  const result = await extractTables(adapter, onePayload(), {
    ...OPTIONS,
    checkpoint: () => seen.push(phase),
  });
  expect(result.tables.map((t) => t.table)).toEqual(["frames"]);
  expect(seen).toContain("aggregating");
});

test("parts wait for a landing payload's provenance without holding the parser up", async () => {
  const n = ROWS_PER_PART;
  const utf8 = () => ({
    type: "utf8" as const,
    offsets: new Int32Array(n + 1),
    data: new Uint8Array(0),
    valid: null,
    nullCount: 0,
  });
  const batch = () => ({
    table: "tracks" as const,
    length: n,
    columns: {
      track_id: utf8(),
      pid: utf8(),
      tid: utf8(),
      process_name: utf8(),
      thread_name: utf8(),
    },
  });
  let land: (artifactId: string) => void = () => {};
  const provenance = new Promise<string>((resolve) => {
    land = resolve;
  }).then((artifact_id) => ({
    schema_version: 1,
    run_id: "r",
    artifact_id,
    evidence_generation_id: "g",
    extractor_name: "fake",
    extractor_version: "1",
  }));
  const encoded: string[] = [];
  const parts = new TableParts("tracks", dir, provenance, async (part) => {
    encoded.push(String(part.provenance.artifact_id));
  });
  // Two whole parts: handed on at once, not encoded (their provenance is not known yet).
  await parts.add(batch());
  await parts.add(batch());
  expect(encoded).toEqual([]);
  // The third would be one more in flight than the bound: it waits for the first to be written.
  let third = false;
  const adding = parts.add(batch()).then(() => {
    third = true;
  });
  await Bun.sleep(20);
  expect(third).toBe(false);
  land("sha256:landed");
  await adding;
  expect((await parts.finish()).map((p) => p.rows)).toEqual([n, n, n]);
  expect(encoded).toEqual(["sha256:landed", "sha256:landed", "sha256:landed"]);
});

test("every table's last part is sent, the largest first, before any is waited for; parts are listed in table order", async () => {
  const rows = (n: number, bytes: number) => ({
    table: "tracks" as const,
    length: n,
    columns: Object.fromEntries(
      ["track_id", "pid", "tid", "process_name", "thread_name"].map((name) => [
        name,
        {
          type: "utf8" as const,
          offsets: new Int32Array(n + 1).map((_, i) => Math.floor((i * bytes) / n)),
          data: new Uint8Array(bytes),
          valid: null,
          nullCount: 0,
        },
      ]),
    ),
  });
  const sent: string[] = [];
  const release: (() => void)[] = [];
  const encode = (part: { table: string; batches: readonly { length: number }[] | null }) => {
    sent.push(`${part.table}:${part.batches?.[0]?.length}`);
    return new Promise<void>((resolve) => release.push(resolve));
  };
  // Three writers of the same table stand in for three tables (only the order matters here).
  const small = new TableParts("tracks", dir, TEST_PROVENANCE, encode);
  const large = new TableParts("tracks", dir, TEST_PROVENANCE, encode);
  const empty = new TableParts("tracks", dir, TEST_PROVENANCE, encode);
  await small.add(rows(3, 30));
  await large.add(rows(5, 5000));
  const writers = new Map([
    ["frames", small],
    ["stacks", large],
    ["tracks", empty],
  ] as const);
  let done = false;
  const finishing = finishTables(writers, ["frames", "stacks", "tracks"]).then((parts) => {
    done = true;
    return parts;
  });
  await Bun.sleep(10);
  // Nothing was encoded yet, and every last part is already on its way.
  expect(sent).toEqual(["tracks:5", "tracks:3", "tracks:undefined"]);
  expect(done).toBe(false);
  for (const resolve of release) resolve();
  expect((await finishing).map((p) => p.rows)).toEqual([3, 5, 0]);
});

test("a table the adapter ends has its last part written before the adapter returns", async () => {
  const encoded: string[] = [];
  let phase = "rows";
  const adapter = fakeAdapter(["tracks", "frames"], async (input) => {
    const tracks = new TableBuffer(EVIDENCE_SCHEMAS.tracks);
    tracks.append({ track_id: "t", pid: "1", tid: "2", process_name: null, thread_name: null });
    await input.sink.writeBatch(tableBufferToBatch(tracks));
    await input.sink.endTable?.("tracks");
    phase = "after tracks ended";
  });
  const result = await extractTables(adapter, onePayload(), {
    ...OPTIONS,
    encode: async (part) => {
      encoded.push(`${part.table} during ${phase}`);
    },
  });
  expect(encoded).toEqual(["tracks during rows", "frames during after tracks ended"]);
  expect(result.tables.map((t) => [t.table, t.rows])).toEqual([
    ["tracks", 1],
    ["frames", 0],
  ]);
});
