/** `flameox workload list|show|approve|revoke NAME`, `flameox capabilities`, `flameox recover`. */
import { defineCommand } from "citty";
import type { ProbeMode } from "../../application/capture/capabilities.ts";
import {
  answerCapabilities,
  CapabilitiesRequest,
} from "../../application/requests/capture-requests.ts";
import { checkRequest } from "../../application/requests/request-schema.ts";
import type { ApproveResult } from "../../application/capture/workload-approval.ts";
import type { WorkspaceService } from "../../application/workspace-service.ts";
import { FlameoxError } from "../../domain/errors.ts";
import { approveCommand } from "../../domain/workload/approval.ts";
import { confirm, hasTerminal } from "../confirm.ts";
import { commonArgs, execute } from "../context.ts";
import {
  renderApproval,
  renderCapabilities,
  renderRecover,
  renderRevoke,
  renderWorkload,
  renderWorkloadStatus,
} from "../render-capture.ts";

/** What `approve` answers: the approval, or that the person said no. */
type ApproveOutcome = ApproveResult | (Omit<ApproveResult, "outcome"> & { outcome: "declined" });

/**
 * Shows the canonical form, asks on a terminal (or takes --yes), and approves exactly the
 * digest that was shown: an edit in between is refused, never approved unseen.
 */
async function approve(
  s: WorkspaceService,
  args: { name: string; yes: boolean; digest?: string },
): Promise<ApproveOutcome> {
  const capture = await s.capture();
  const shown = capture.showWorkload(args.name);
  const digest = shown.workload.workload_definition_id;
  if (args.digest !== undefined && args.digest !== digest) {
    throw new FlameoxError(
      "WORKLOAD_CHANGED",
      `Cannot approve workload ${args.name}: it is declared with digest ${digest}, ` +
        `not ${args.digest}`,
      {
        details: { shown: args.digest, current: digest },
        remediation: [
          `Review it with \`flameox workload show ${args.name}\`, then approve what is ` +
            `declared now`,
        ],
      },
    );
  }
  if (shown.approval.state !== "approved" && !args.yes) {
    if (!hasTerminal()) {
      throw new FlameoxError(
        "CONFIRMATION_REQUIRED",
        `Cannot approve workload ${args.name} without confirmation: stdin is not a terminal`,
        {
          details: { workload: args.name, workload_definition_id: digest },
          remediation: [
            `Run \`${approveCommand(args.name)}\` in a terminal to review and confirm it`,
            `Or, having reviewed \`flameox workload show ${args.name}\`, pass --yes (with ` +
              `--digest ${digest} to approve only that form)`,
          ],
        },
      );
    }
    process.stderr.write(`${renderWorkload(shown)}\n\n`);
    if (
      !(await confirm(`Approve workload ${args.name} (${digest}) to run exactly as shown? [y/N] `))
    ) {
      return {
        workload: args.name,
        workload_definition_id: digest,
        outcome: "declined",
        previous_state: shown.approval.state,
        canonical: shown.canonical,
        approval: shown.approval,
      };
    }
  }
  return capture.approveWorkload(args.name, { expected: digest });
}

export const workloadCommand = defineCommand({
  meta: { name: "workload", description: "Workloads declared in flameox.toml" },
  subCommands: {
    list: defineCommand({
      meta: { name: "list", description: "State and digest of flameox.toml and its workloads" },
      args: commonArgs,
      run: ({ args }) =>
        execute(
          args,
          async (s) => (await s.capture()).workloadStatus(),
          renderWorkloadStatus,
          (r) => r.state === "invalid",
        ),
    }),
    show: defineCommand({
      meta: {
        name: "show",
        description: "One workload's canonical definition and its workload_definition_id",
      },
      args: { ...commonArgs, name: { type: "positional", required: true } },
      run: ({ args }) =>
        execute(args, async (s) => (await s.capture()).showWorkload(args.name), renderWorkload),
    }),
    approve: defineCommand({
      meta: {
        name: "approve",
        description:
          "Show a workload's canonical form and approve it to run exactly so (asks on a " +
          "terminal; --yes to skip)",
      },
      args: {
        ...commonArgs,
        name: { type: "positional", required: true },
        yes: {
          type: "boolean",
          default: false,
          description: "Approve without asking (for scripts; review `workload show` first)",
        },
        digest: {
          type: "string",
          description: "Approve only if the workload is declared with this workload_definition_id",
          valueHint: "SHA256",
        },
      },
      run: ({ args }) =>
        execute(
          args,
          (s) => approve(s, args),
          renderApproval,
          (r) => r.outcome === "declined",
        ),
    }),
    revoke: defineCommand({
      meta: {
        name: "revoke",
        description: "Withdraw a workload's approval; it runs again only after a new approval",
      },
      args: { ...commonArgs, name: { type: "positional", required: true } },
      run: ({ args }) =>
        execute(args, async (s) => (await s.capture()).revokeWorkload(args.name), renderRevoke),
    }),
  },
});

export const capabilitiesCommand = defineCommand({
  meta: {
    name: "capabilities",
    description:
      "Capture adapters and containment: absent, incompatible, permission_required or available",
  },
  args: {
    ...commonArgs,
    refresh: {
      type: "boolean",
      default: false,
      description: "Probe again now (active probes run through the broker)",
    },
    passive: {
      type: "boolean",
      default: false,
      description: "Only resolve and hash tools; run nothing",
    },
    adapter: { type: "string", description: "Only this adapter" },
  },
  run: ({ args }) => {
    if (args.refresh && args.passive)
      throw new FlameoxError("INVALID_ARGUMENTS", "Cannot combine --refresh and --passive");
    const mode: ProbeMode = args.passive
      ? "passive"
      : args.refresh
        ? "active_refresh"
        : "active_cached";
    return execute(
      args,
      async (s) =>
        answerCapabilities(
          await s.capture(),
          checkRequest(CapabilitiesRequest, { mode, adapter: args.adapter }),
        ),
      renderCapabilities,
    );
  },
});

export const recoverCommand = defineCommand({
  meta: {
    name: "recover",
    description:
      "Close runs whose owning process is provably gone (boot id, pid and start time); live " +
      "runs are never touched",
  },
  args: {
    ...commonArgs,
    "rebuild-from-corpus": {
      type: "boolean",
      default: false,
      description:
        "First restore lost control-plane rows and a rolled-back HEAD from the immutable " +
        "commits and manifests",
    },
  },
  run: ({ args }) =>
    execute(
      args,
      async (s) => {
        const rebuild = args["rebuild-from-corpus"] ? s.rebuildFromCorpus() : undefined;
        return { ...(await s.capture()).recover(), ...(rebuild ? { rebuild } : {}) };
      },
      renderRecover,
    ),
});
