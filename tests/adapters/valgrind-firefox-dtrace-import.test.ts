/**
 * The new text and JSON formats through the whole import path (parse worker, publication,
 * analysis): callgrind (streamed, no stacks), Firefox Profiler (whole JSON), massif (memory
 * profile) and DTrace stacks (stacks streamed) each end with hotspots naming the hot
 * function with the value the file gives it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { WorkspaceService } from "../../src/application/workspace-service.ts";
import { REPO, tempWorkspace } from "../helpers.ts";

describe("new formats through import and hotspots", () => {
  let ws: { root: string; cleanup: () => void };
  let service: WorkspaceService;
  beforeAll(async () => {
    ws = await tempWorkspace();
    service = await WorkspaceService.open({ workspace: ws.root });
  }, 60_000);
  afterAll(() => {
    service?.close();
    ws?.cleanup();
  });

  for (const [file, metric, top, value] of [
    // callgrind_annotate: 16,605,750 Ir in main.
    [
      "fixtures/corpus/callgrind/local-valgrind-3.19.0-callgrind.out.prog",
      "instructions",
      "main",
      16_605_750,
    ],
    [
      "fixtures/corpus/gecko/speedscope-firefox79-webpack.json",
      "samples",
      "ThreadEventQueue::GetEvent::Wait",
      317,
    ],
    [
      "fixtures/corpus/massif/local-valgrind-3.19.0-massif.out.prog",
      "inuse_space",
      "_IO_file_doallocate",
      4096,
    ],
    ["fixtures/dtrace-stacks/ustack-hand-written.txt", "samples", "grow", 30],
  ] as const) {
    test(`${file.split("/").pop()}: imported, hotspots by ${metric} lead with ${top}`, async () => {
      const imported = await service.importArtifact({ path: join(REPO, file) });
      const hot = await service.analyzeHotspots(imported.artifact_id, { limit: 1 });
      expect([hot.metric, hot.items[0]?.function, hot.items[0]?.self_value]).toEqual([
        metric,
        top,
        value,
      ]);
    }, 60_000);
  }
});
