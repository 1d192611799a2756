/**
 * PyTorch execution traces (`torch.profiler.ExecutionTraceObserver`, JSON): the graph of
 * operators a program ran, each node with its parent, thread and RecordFunction scope.
 *
 * Evidence shape: an execution trace records no times at all (durations come from the
 * torch.profiler trace collected beside it, joined by `rf_id`), so `trace_events`, whose
 * rows need a timestamp, would have to invent one. The tree itself is what the file
 * says, and it is exactly a calling-context tree: each node is one call, fed as the
 * stack from its root down to it, under the metric `calls` (unit count). So
 * `frames` holds one row per distinct operator, `frame_measurements` its calls (self:
 * the operator itself; inclusive: it and every call beneath it), `call_edges` the
 * parent → child operator pairs and `stacks` each distinct root-to-operator path with
 * its number of calls. Hotspots, trees and diffs then work on ETs as on profiles.
 *
 * Operator frames use the identity of torch.profiler's CPU slices (language `trace`,
 * the operator's name, category `cpu_op`, or `user_annotation` for record_function
 * scopes), so an operator has the same frame id here and in the matching Chrome trace.
 * Tensor arguments, shapes and types are not imported; a limitation says so.
 */
import type { ExtractInput, ProducerAdapter } from "../adapter.ts";
import type { NormalizedEvidence } from "../../domain/normalized-evidence.ts";
import type { Limitation } from "../../domain/evidence-status.ts";
import { expectationFailed, isPlainObject, parseJsonPayload } from "../json-guard.ts";
import { SampledStacks } from "../common/sampled-stacks.ts";
import { pytorchEtDescription } from "./description.ts";
import { callStacks, LABEL, readOperatorTree } from "./operator-tree.ts";

/** RecordScope::USER_SCOPE: record_function annotations, which Kineto files as user_annotation. */
const USER_SCOPE = 7;

function evidenceOf(input: ExtractInput): NormalizedEvidence {
  const { value } = parseJsonPayload(input.bytes, input.limits.maxNestingDepth, LABEL);
  if (!isPlainObject(value)) throw expectationFailed(LABEL, "the document", "an object", value);
  const tree = readOperatorTree(value, input.limits.maxEvents);
  const pid = typeof value.pid === "number" ? String(value.pid) : null;
  const out = new SampledStacks();
  const calls = out.metric("calls", "count");
  const frameOf = tree.nodes.map((node) => {
    const category = node.scope === USER_SCOPE ? "user_annotation" : "cpu_op";
    return out.frames.intern(JSON.stringify(["trace", node.name, category]), {
      language: "trace",
      function: node.name,
      module: category,
      file: null,
      line: null,
      column: null,
      symbolization: "complete",
    });
  });
  const trackOf = tree.nodes.map((node) =>
    node.tid === null ? 0 : out.track(`${pid ?? ""}:${node.tid}`, null, null),
  );
  const { stacks, roots, maxDepth } = callStacks(tree.nodes, frameOf, trackOf);
  for (const stack of stacks) calls.add(stack.frames, stack.track, stack.calls, stack.calls);
  const limitations: Limitation[] = [
    {
      code: "no_timing",
      message:
        "an execution trace records operators and their parents but no times; measures are " +
        "call counts, and durations are in the torch.profiler trace collected with it " +
        "(joined by rf_id)",
    },
    {
      code: "operator_arguments_not_imported",
      message: "tensor arguments, shapes and types of each operator were not imported",
      count: tree.nodes.length,
    },
  ];
  if (tree.orphans > 0)
    limitations.push({
      code: "parent_missing",
      message: "nodes whose parent id names no node of the trace were read as roots",
      count: tree.orphans,
    });
  limitations.push(...out.deepStacksLimitation());
  return {
    adapter: pytorchEtDescription.name,
    adapterVersion: pytorchEtDescription.version,
    producer: "pytorch-execution-trace",
    producerVersion: typeof value.schema === "string" ? value.schema : null,
    tables: out.emitAll(),
    limitations,
    summary: {
      nodes: tree.nodes.length,
      operators: out.frames.size,
      roots,
      max_depth: maxDepth,
      threads: out.trackCount,
      orphans: tree.orphans,
    },
  };
}

export const pytorchEtAdapter: ProducerAdapter = {
  ...pytorchEtDescription,
  // Parsed whole (JSON.parse under the nesting guard), like the benchmark formats.
  extract: (input: ExtractInput) => evidenceOf(input),
};
