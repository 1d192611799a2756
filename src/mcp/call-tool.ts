/**
 * Runs one tool call: validate the arguments with the tool's arktype input (malformed →
 * INVALID_ARGUMENTS naming the field), call the tool, check the result against its
 * declared schema, bound it, and keep it under the byte budget. A pageable result that
 * is too big is fetched again with a smaller limit (its `returned`, `truncated` and
 * `next_cursor` stay exact); anything else over budget is QUERY_BUDGET_EXCEEDED.
 */
import { type } from "arktype";
import { invalidRequest, requestName } from "../application/requests/request-schema.ts";
import { FlameoxError } from "../domain/errors.ts";
import {
  boundStrings,
  byteSize,
  failure,
  MAX_RESULT_BYTES,
  success,
  type ToolCallResult,
} from "./envelope.ts";
import type { AnyTool, ToolContext } from "./tool.ts";

export async function callTool(
  tool: AnyTool,
  rawArgs: unknown,
  ctx: ToolContext,
): Promise<ToolCallResult> {
  const hide = ctx.session.hiddenPaths();
  const args = tool.input(rawArgs ?? {});
  if (args instanceof type.errors) return failure(invalidArguments(tool, args), hide);
  try {
    let current = args as Record<string, unknown>;
    let cut = false;
    for (;;) {
      const result = boundStrings(await tool.run(current, ctx)) as Record<string, unknown>;
      const checked = tool.result(result);
      if (checked instanceof type.errors) {
        process.stderr.write(
          `flameox mcp: ${tool.name} result does not match its schema: ${checked.summary}\n`,
        );
        throw new FlameoxError(
          "INTERNAL_ERROR",
          `The ${tool.name} result does not match its declared schema`,
          {
            remediation: ["Report this with the tool name and arguments"],
          },
        );
      }
      const note = cut
        ? `\n(page cut to ${String(result.returned)} items to stay under ` +
          `the ${MAX_RESULT_BYTES / 1024} KB budget)`
        : "";
      const answer = success(result, tool.summarize(result) + note);
      if (byteSize(answer) <= MAX_RESULT_BYTES) return answer;
      const returned = typeof result.returned === "number" ? result.returned : 0;
      if (!tool.pageable || returned <= 1) throw overBudget(tool.name, byteSize(answer));
      // Halving converges in a few steps; the service pages again from the same cursor.
      current = { ...current, limit: Math.floor(returned / 2) };
      cut = true;
    }
  } catch (error) {
    if (!(error instanceof FlameoxError))
      process.stderr.write(
        `flameox mcp: ${tool.name} failed: ${(error as Error)?.stack ?? String(error)}\n`,
      );
    return failure(error, hide);
  }
}

/**
 * A tool whose input is its use case's request refuses it as the CLI does (one message
 * for both doors); any other tool names itself.
 */
function invalidArguments(tool: AnyTool, errors: InstanceType<typeof type.errors>): FlameoxError {
  const request = requestName(tool.input);
  if (request !== undefined) return invalidRequest(errors, request);
  const toolName = tool.name;
  const fields = [...new Set(errors.map((e) => e.path.join(".") || "(arguments)"))];
  // arktype says an undeclared key "must be removed"; say what that means for a tool call.
  const problems = errors.map((e) =>
    e.message.replace(/ must be removed$/, ` is not an argument of ${toolName}`),
  );
  return new FlameoxError(
    "INVALID_ARGUMENTS",
    `Invalid arguments for ${toolName}: ${problems.join("; ")}`,
    {
      details: { field: fields[0], fields },
    },
  );
}

function overBudget(toolName: string, bytes: number): FlameoxError {
  return new FlameoxError(
    "QUERY_BUDGET_EXCEEDED",
    `The ${toolName} result has ${bytes} bytes of JSON, over the ${MAX_RESULT_BYTES}-byte budget`,
    {
      remediation: ["Use a smaller limit and page with next_cursor"],
      details: { bytes, budget: MAX_RESULT_BYTES },
    },
  );
}
