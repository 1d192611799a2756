/**
 * list_capabilities, plan_capture, execute_capture_plan. A capture names a declared
 * workload; the plan binds everything and returns a single-use plan_id that only this
 * server process can execute. Execution sends progress and honours cancellation (the
 * workload's process group is stopped and the run recorded as cancelled).
 */
import { CaptureResult, CapabilitiesResult, PlanPreview } from "../schemas/capture-results.ts";
import {
  answerCapabilities,
  answerCapturePlan,
  CapabilitiesRequest,
  CapturePlanExecutionRequest,
  CapturePlanRequest,
} from "../../application/requests/capture-requests.ts";
import { defineTool, EXECUTE, READ_ONLY } from "../tool.ts";

export const listCapabilities = defineTool({
  name: "list_capabilities",
  title: "List capabilities",
  description:
    "Capture adapters (command, v8-cpu, v8-heap, perf, hyperfine) and managed containment " +
    "(bubblewrap), each absent | incompatible | " +
    "permission_required | available (unknown after a passive probe), with tool paths, " +
    "digests, versions and reasons. Active probes run " +
    "bounded readiness commands through the broker. Next: plan_capture with an available adapter.",
  annotations: READ_ONLY,
  input: CapabilitiesRequest,
  result: CapabilitiesResult,
  run: async (request, { session }) =>
    answerCapabilities(await (await session.open()).capture(), request),
  summarize: (r) => [...r.adapters, r.containment].map((c) => `${c.name} ${c.status}`).join(", "),
});

export const planCapture = defineTool({
  name: "plan_capture",
  title: "Plan capture",
  description:
    "Binds a capture of a declared, approved workload without running it (an unapproved one " +
    "is WORKLOAD_NOT_APPROVED): parameter values (checked against their domains), the " +
    "resolved " +
    "executable (path and sha256), the adapter and its options, limits, containment " +
    "(trusted_local is reported as uncontained; managed " +
    "is refused when bubblewrap cannot guarantee it), and source and environment identity. " +
    "Returns a preview and a 256-bit plan_id, " +
    "single use, valid for ttl_seconds in this server process only. Next: " +
    "execute_capture_plan with the plan_id.",
  annotations: READ_ONLY,
  input: CapturePlanRequest,
  result: PlanPreview,
  run: async (request, { session }) =>
    answerCapturePlan(await (await session.open()).capture(), request),
  summarize: (r) =>
    `plan ${r.plan_id} for ${r.workload.name} via ${r.adapter.name} ` +
    `(${r.containment.state}); expires ${r.expires_at}. Next: execute_capture_plan`,
});

export const executeCapturePlan = defineTool({
  name: "execute_capture_plan",
  title: "Execute capture plan",
  description:
    "Runs a plan from plan_capture once. The plan_id is consumed before anything starts and " +
    "every binding is rechecked: an edited " +
    "workload (WORKLOAD_CHANGED), a workload whose approval was withdrawn " +
    "(WORKLOAD_NOT_APPROVED), a changed executable (EXECUTABLE_CHANGED), changed source " +
    "(SOURCE_CHANGED), a replayed (PLAN_CONSUMED), " +
    "expired (PLAN_EXPIRED) or unknown (INVALID_CAPTURE_PLAN) plan is refused. Returns the " +
    "run: statuses, termination with the signals " +
    "sent, sampled resources, artifacts (stdout/stderr flagged partial past the cap), " +
    "extractions and limitations. Sends progress; " +
    "cancelling stops the workload. Next: analyze_hotspots with the run_id when next_tool " +
    "says so, or get_run.",
  annotations: EXECUTE,
  input: CapturePlanExecutionRequest,
  result: CaptureResult,
  run: async (args, { session, signal, progress }) =>
    (await (await session.open()).capture()).execute(args.plan_id, {
      signal,
      onProgress: progress,
    }),
  summarize: (r) =>
    `run ${r.run_id}: ${r.execution_status} (${r.termination.kind}` +
    (r.termination.exit_code !== null ? ` ${r.termination.exit_code}` : "") +
    `), ` +
    `${r.artifacts.length} artifact(s), ` +
    `extraction ${r.extraction_status}${r.next_tool ? `; next ${r.next_tool}` : ""}`,
});

export const CAPTURE_TOOLS = [listCapabilities, planCapture, executeCapturePlan];
