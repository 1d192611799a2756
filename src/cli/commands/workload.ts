/** `flameox workload list|show NAME`, `flameox capabilities`, `flameox recover`. */
import { defineCommand } from "citty";
import type { ProbeMode } from "../../application/capture/capabilities.ts";
import { FlameoxError } from "../../domain/errors.ts";
import { commonArgs, execute } from "../context.ts";
import { renderCapabilities, renderRecover, renderWorkload, renderWorkloadStatus } from "../render-capture.ts";

export const workloadCommand = defineCommand({
  meta: { name: "workload", description: "Workloads declared in flameox.toml" },
  subCommands: {
    list: defineCommand({
      meta: { name: "list", description: "State and digest of flameox.toml and its workloads" },
      args: commonArgs,
      run: ({ args }) => execute(args, async (s) => (await s.capture()).workloadStatus(), renderWorkloadStatus, (r) => r.state === "invalid"),
    }),
    show: defineCommand({
      meta: { name: "show", description: "One workload's canonical definition and its workload_definition_id" },
      args: { ...commonArgs, name: { type: "positional", required: true } },
      run: ({ args }) => execute(args, async (s) => (await s.capture()).showWorkload(args.name), renderWorkload),
    }),
  },
});

export const capabilitiesCommand = defineCommand({
  meta: { name: "capabilities", description: "Capture adapters and containment: absent, incompatible, permission_required or available" },
  args: {
    ...commonArgs,
    refresh: { type: "boolean", default: false, description: "Probe again now (active probes run through the broker)" },
    passive: { type: "boolean", default: false, description: "Only resolve and hash tools; run nothing" },
    adapter: { type: "string", description: "Only this adapter" },
  },
  run: ({ args }) => {
    if (args.refresh && args.passive) throw new FlameoxError("INVALID_ARGUMENTS", "Cannot combine --refresh and --passive");
    const mode: ProbeMode = args.passive ? "passive" : args.refresh ? "active_refresh" : "active_cached";
    return execute(args, async (s) => (await s.capture()).capabilities(mode, args.adapter), renderCapabilities);
  },
});

export const recoverCommand = defineCommand({
  meta: { name: "recover", description: "Close runs whose owning process is provably gone (boot id, pid and start time); live runs are never touched" },
  args: commonArgs,
  run: ({ args }) => execute(args, async (s) => (await s.capture()).recover(), renderRecover),
});
