/**
 * Payload → HeapProfileInput through the WASM JSON scanner, whole or in chunks. Every tree node is
 * a record (the `head`
 * tree's recursion is a cycle in the program); records arrive children first, each with
 * its parent's serial, so parents are linked when they arrive.
 */
import type { AdapterLimits } from "../adapter.ts";
import { expectationFailed } from "../json-guard.ts";
import {
  TAG_ABSENT,
  TAG_ARRAY,
  TAG_OBJECT,
  sampleOfKind,
  type JsonBatch,
} from "../wasm/json-batch.ts";
import { JsonProgram, MODE_JSON_IF_CONTAINER, MODE_SCALAR } from "../wasm/json-program.ts";
import { JsonScanner, type JsonScanOptions } from "../wasm/json-scanner.ts";
import {
  HEAP_FORMAT,
  type HeapNodeInput,
  type HeapProfileInput,
  type HeapSampleInput,
} from "./heap-input.ts";

const R_TOP = 0;
const R_NODE = 1;
const R_SAMPLE = 2;
const T_HEAD = 0;
const T_SAMPLES = 1;
const N_ID = 0;
const N_CALL_FRAME = 1;
const N_SELF_SIZE = 2;
const N_CHILDREN = 3;
const N_FRAME_FIELDS = 4; // functionName, url, lineNumber, columnNumber: slots 4..7
const FRAME_KEYS = ["functionName", "url", "lineNumber", "columnNumber"];
const S_NODE_ID = 0;
const S_SIZE = 1;
const ANY = MODE_SCALAR | MODE_JSON_IF_CONTAINER;

function heapProgram(): JsonProgram {
  const p = new JsonProgram(8);
  p.record(0, R_TOP).special(R_TOP, -1, "");
  const head = p.key(0, "head", p.node({ record: R_NODE }));
  p.slot(head, R_TOP, T_HEAD);
  const samples = p.key(0, "samples");
  p.slot(samples, R_TOP, T_SAMPLES);
  p.slot(p.key(head, "id"), R_NODE, N_ID, ANY);
  p.slot(p.key(head, "selfSize"), R_NODE, N_SELF_SIZE, ANY);
  const callFrame = p.key(head, "callFrame");
  p.slot(callFrame, R_NODE, N_CALL_FRAME);
  FRAME_KEYS.forEach((key, i) => p.slot(p.key(callFrame, key), R_NODE, N_FRAME_FIELDS + i, ANY));
  const children = p.key(head, "children");
  p.slot(children, R_NODE, N_CHILDREN);
  p.elem(children, head);
  const sample = p.elem(samples, p.node({ record: R_SAMPLE }));
  p.slot(p.key(sample, "nodeId"), R_SAMPLE, S_NODE_ID, ANY);
  p.slot(p.key(sample, "size"), R_SAMPLE, S_SIZE, ANY);
  return p;
}

const scanOptions = (limits: AdapterLimits): JsonScanOptions => ({
  format: HEAP_FORMAT,
  maxDepth: limits.maxNestingDepth,
  truncateJsonAt: 1 << 30,
});

/** The profile in chunks, as it streams in. */
export async function scanHeapProfile(
  chunks: AsyncIterable<Uint8Array>,
  limits: AdapterLimits,
): Promise<HeapProfileInput> {
  const reader = heapReader(limits);
  await (await JsonScanner.open(heapProgram(), scanOptions(limits))).scanChunks(
    chunks,
    reader.onBatch,
  );
  return reader.result();
}

function heapReader(limits: AdapterLimits): {
  onBatch: (b: JsonBatch) => void;
  result(): HeapProfileInput;
} {
  const nodes: HeapNodeInput[] = [];
  const samples: HeapSampleInput[] = [];
  const waiting = new Map<number, number[]>(); // parent serial → positions of its finished children
  let topKind = TAG_ABSENT;
  let headKind = TAG_ABSENT;
  let samplesKind = TAG_ABSENT;
  const onBatch = (b: JsonBatch): void => {
    for (let r = 0; r < b.count; r++) {
      const type = b.type(r);
      if (type === R_NODE) {
        const at = nodes.length;
        const kind = b.selfKind(r);
        if (kind !== TAG_OBJECT) {
          nodes.push({
            id: undefined,
            callFrame: undefined,
            selfSize: undefined,
            parent: -1,
            notObject: sampleOfKind(kind),
          });
        } else {
          if (b.kind(r, N_CHILDREN) !== TAG_ABSENT && b.kind(r, N_CHILDREN) !== TAG_ARRAY)
            throw expectationFailed(
              HEAP_FORMAT,
              "children",
              "an array",
              sampleOfKind(b.kind(r, N_CHILDREN)),
            );
          const callFrame =
            b.kind(r, N_CALL_FRAME) === TAG_OBJECT
              ? Object.fromEntries(
                  FRAME_KEYS.map((key, i) => [key, b.value(r, N_FRAME_FIELDS + i)]),
                )
              : b.value(r, N_CALL_FRAME);
          nodes.push({
            id: b.value(r, N_ID),
            callFrame,
            selfSize: b.value(r, N_SELF_SIZE),
            parent: -1,
          });
        }
        for (const child of waiting.get(b.serial(r)) ?? []) nodes[child]!.parent = at;
        waiting.delete(b.serial(r));
        const parent = waiting.get(b.parent(r));
        if (parent) parent.push(at);
        else waiting.set(b.parent(r), [at]);
      } else if (type === R_SAMPLE) {
        samples.push(
          b.selfKind(r) === TAG_OBJECT
            ? { nodeId: b.value(r, S_NODE_ID), size: b.value(r, S_SIZE) }
            : { nodeId: undefined, size: undefined },
        );
        if (samples.length > limits.maxEvents) break;
      } else if (type === R_TOP) {
        topKind = b.selfKind(r);
        headKind = b.kind(r, T_HEAD);
        samplesKind = b.kind(r, T_SAMPLES);
      }
    }
  };
  const result = (): HeapProfileInput => {
    if (topKind !== TAG_OBJECT)
      throw expectationFailed(
        HEAP_FORMAT,
        "the top-level value",
        "an object",
        sampleOfKind(topKind),
      );
    if (headKind !== TAG_OBJECT)
      throw expectationFailed(HEAP_FORMAT, "head", "an object", sampleOfKind(headKind));
    if (samplesKind !== TAG_ABSENT && samplesKind !== TAG_ARRAY)
      throw expectationFailed(HEAP_FORMAT, "samples", "an array", sampleOfKind(samplesKind));
    return { nodes, samples: samplesKind === TAG_ARRAY ? samples : null };
  };
  return { onBatch, result };
}
