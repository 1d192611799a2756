/**
 * The server `instructions`: how an agent gets from an empty project to an answer, and how
 * it recovers. Sections about tool groups the server does not publish are left out (they
 * would name tools the agent cannot call); one line says which groups exist and how to
 * enable them.
 */
import { TOOL_GROUP_NAMES, TOOL_GROUPS, type ToolGroup } from "./tool-groups.ts";

const FIRST_RUN = `flameox keeps runtime evidence (profiles, traces) of this project locally and \
answers questions about it.
The project root is fixed when the server starts; every path is relative to it.

First run:
1. workspace_status. If it fails with WORKSPACE_NOT_FOUND, call initialize_workspace (idempotent), \
then workspace_status again.
2. import_artifact with the path of a profile or trace (V8 .cpuprofile, Chrome trace JSON) under \
the project root,
   or source_root "temp" for a file in the system temp directory. It returns run_id and \
artifact_id, and next_tool/next_arguments.
3. analyze_hotspots with run_or_artifact = that run_id or artifact_id: top frames by self time.
4. get_frame_callers / get_frame_callees / get_stack_examples with a frame_id from the hotspots: \
who calls it, what it calls, full stacks.
5. get_trace_window with artifact_id, start_ns and end_ns (integer strings) for the events of a \
trace in a time range;
   a first call returns trace_bounds to choose the window from.
diff_profiles compares two profiles function by function; freeze_run_set and compare_run_sets \
compare repeated measurements.`;

const RECORDS =
  `get_run, get_artifact and get_evidence describe what was recorded and extracted; list_runs ` +
  `and list_artifacts page through them.`;

const CAPTURE = `Capture (run a declared workload under a measurement tool):
1. workload_configuration_status: flameox.toml state, configuration_id and workloads with their \
approval state.
   Only workloads a person approved on the CLI (\`flameox workload approve NAME\`) can be planned \
or run. configure_workload
   proposes one (create; replace needs expected_configuration_id): it never runs anything and what \
it writes stays
   unapproved, so ask the user to approve it. No tool approves.
2. list_capabilities: which adapters (command, v8-cpu, v8-heap, perf, hyperfine) and containment \
are available, and why not.
3. plan_capture with adapter and workload (+ parameters from the declared domains): returns a \
preview and a single-use plan_id
   (valid in this server process for ttl_seconds). Containment trusted_local is reported as \
uncontained; managed uses bubblewrap.
4. execute_capture_plan with that plan_id: the run with termination, resources, artifacts and \
extractions. When next_tool is
   analyze_hotspots, call it with the run_id. A refused plan (PLAN_CONSUMED, PLAN_EXPIRED, \
INVALID_CAPTURE_PLAN,
   WORKLOAD_CHANGED, EXECUTABLE_CHANGED, SOURCE_CHANGED) needs a new plan_capture. \
WORKLOAD_NOT_APPROVED needs the user.`;

const RESULTS = `Results: every tool returns structuredContent {schema_version, ok, result, \
error}. Analyses carry evidence.status
(available | empty | unavailable | partial | unknown) with a reason and often next_tool; an empty \
list is never proof of absence.
Lists are paginated: pass next_cursor back as cursor; keep limit small (results stay under 60 KB; \
a page may come back
smaller than limit, with next_cursor set).

Recovery: on isError, read error.code and follow error.remediation, whose first step names the \
next tool.
WORKSPACE_NOT_FOUND → initialize_workspace. STALE_CURSOR → repeat the call without cursor (the \
corpus moved on).
FRAME_NOT_FOUND → take frame ids from analyze_hotspots. RUN_NOT_FOUND / ARTIFACT_NOT_FOUND → \
list_runs / list_artifacts (records group).
QUERY_BUDGET_EXCEEDED → use a smaller limit. ARTIFACT_REFUSED → import a regular file under the \
root, without symbolic links.
PROCESS_CANCELLED → the run stays recorded as cancelled; import again if needed.
TOOL_NOT_ENABLED → the tool's group is not published; error.details.flag is the server argument \
that adds it (a person restarts the server).
Only execute_capture_plan and run_experiment run programs: workloads declared in flameox.toml and \
approved by a person, through the broker. No tool takes a shell command,
argv or SQL, or returns artifact bytes.`;

/** The instructions of a server publishing `groups`. */
export function instructionsFor(groups: readonly ToolGroup[]): string {
  const sections = [FIRST_RUN];
  if (groups.includes("records")) sections[0] += `\n${RECORDS}`;
  if (groups.includes("capture")) sections.push(CAPTURE);
  sections.push(RESULTS);
  const off = TOOL_GROUP_NAMES.filter((g) => !groups.includes(g));
  if (off.length > 0) {
    sections.push(
      `Tool groups not published by this server (a person enables them with \`flameox mcp ` +
        `serve --tools ${[...groups, off[0]].join(",")}\`, or --tools ` +
        `all):\n${off.map((g) => `- ${g}: ${TOOL_GROUPS[g].summary}`).join("\n")}`,
    );
  }
  return sections.join("\n\n");
}
