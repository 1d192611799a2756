/**
 * The modules that define tools, each loaded on its own: a call loads only its tool's
 * module (and the schemas that module uses), not all forty tools' schemas. The keys are
 * what tool-list.json records as each tool's `module`. Loaders are written out, not built
 * from a path, so a compiled binary bundles every module.
 */
import type { AnyTool } from "./tool.ts";

export const TOOL_MODULES = {
  "analysis-tools": () => import("./tools/analysis-tools.ts"),
  "capture-tools": () => import("./tools/capture-tools.ts"),
  "coverage-tools": () => import("./tools/coverage-tools.ts"),
  "accelerator-tools": () => import("./tools/accelerator-tools.ts"),
  "failure-tools": () => import("./tools/failure-tools.ts"),
  "import-tool": () => import("./tools/import-tool.ts"),
  "investigation-tools": () => import("./tools/investigation-tools.ts"),
  "otel-tools": () => import("./tools/otel-tools.ts"),
  "picture-tools": () => import("./tools/picture-tools.ts"),
  "record-tools": () => import("./tools/record-tools.ts"),
  "study-tools": () => import("./tools/study-tools.ts"),
  "workload-tools": () => import("./tools/workload-tools.ts"),
  "workspace-tools": () => import("./tools/workspace-tools.ts"),
} as const satisfies Record<string, () => Promise<Record<string, unknown>>>;

export type ToolModule = keyof typeof TOOL_MODULES;

const isTool = (value: unknown): value is AnyTool =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as AnyTool).name === "string" &&
  typeof (value as AnyTool).run === "function";

/** The tools a module exports, singly or in arrays. */
export function toolsOfModule(exports: Record<string, unknown>): AnyTool[] {
  return Object.values(exports)
    .flatMap((value) => (Array.isArray(value) ? value : [value]))
    .filter(isTool);
}

const loaded = new Map<string, Promise<AnyTool | undefined>>();

/** Loads the module that defines `name` and returns that tool (looked up once per name). */
export function loadTool(module: ToolModule, name: string): Promise<AnyTool | undefined> {
  let tool = loaded.get(name);
  if (!tool) {
    tool = TOOL_MODULES[module]().then((exports) =>
      toolsOfModule(exports).find((t) => t.name === name),
    );
    // A failed load is not remembered: the next call tries again and reports its own error.
    tool.catch(() => loaded.delete(name));
    loaded.set(name, tool);
  }
  return tool;
}
