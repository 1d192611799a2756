/**
 * What a server loads in the background once a client is connected, in the order a first
 * question needs it: the call path (arktype and the envelope), the modules of the tools it
 * publishes (core first), the analyses behind the drill-downs, then the rest (resources).
 * One module graph at a time, and only while no call is running: a call loads what it
 * needs itself (sharing whatever is already loading), and a request that arrives
 * meanwhile waits for at most the graph being evaluated.
 */
import { warmAnalyses } from "../application/analysis-warmup.ts";
import { publishedTool, publishedTools } from "./published-tools.ts";
import type { ToolGroup } from "./tool-groups.ts";
import { TOOL_MODULES, type ToolModule } from "./tool-modules.ts";

export interface WarmUpPlan {
  groups: readonly ToolGroup[];
  /** Loaded before the tool modules: the call path. */
  first: () => Promise<unknown>;
  /** Loaded after the analyses. */
  last: readonly (() => Promise<unknown>)[];
  /** Resolves when no call is in progress. */
  idle: () => Promise<void>;
}

export async function warmUpServer(plan: WarmUpPlan): Promise<void> {
  const modules = new Set<ToolModule>();
  for (const tool of publishedTools(plan.groups)) modules.add(publishedTool(tool.name)!.module);
  const steps = [
    plan.first,
    ...[...modules].map((m) => TOOL_MODULES[m]),
    warmAnalyses,
    ...plan.last,
  ];
  for (const step of steps) {
    await plan.idle();
    await step();
  }
}
