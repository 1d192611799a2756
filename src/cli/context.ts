/** Shared CLI arguments and the open-run-close pattern every command uses. */
import type { ArgsDef } from "citty";
import { WorkspaceService } from "../application/workspace-service.ts";
import { setExitCode } from "./exit-code.ts";
import { printError, printResult } from "./output.ts";

export const commonArgs = {
  workspace: {
    type: "string",
    description: "Project root of the workspace (default: nearest .diagnostics above the cwd)",
    valueHint: "PATH",
  },
  json: { type: "boolean", description: "Print the result model as JSON", default: false },
} as const satisfies ArgsDef;

export interface CommonArgs {
  workspace?: string;
  json: boolean;
}

export { exitCode, setExitCode } from "./exit-code.ts";

/**
 * Opens the workspace, runs `action`, prints its result (JSON or text) and records the
 * exit code: 0, `negative` when the result says so, or the error's code.
 */
export async function execute<T>(
  args: CommonArgs,
  action: (service: WorkspaceService) => Promise<T> | T,
  render: (result: T) => string,
  negative?: (result: T) => boolean,
): Promise<void> {
  let service: WorkspaceService | null = null;
  try {
    service = await WorkspaceService.open({ workspace: args.workspace });
    const result = await action(service);
    printResult(result, { json: args.json }, render as (r: never) => string);
    setExitCode(negative?.(result) ? 1 : 0);
  } catch (error) {
    setExitCode(printError(error, { json: args.json }));
  } finally {
    service?.close();
  }
}
