/**
 * What a tool is: a name, a description, annotation hints, an arktype input and result
 * type (published as inputSchema and, wrapped in the envelope, as outputSchema), and a
 * thin `run` that calls the application. Tools hold no business rules.
 */
import type { Type } from "arktype";
import type { WorkspaceSession } from "./workspace-session.ts";

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** Annotation presets of REFERENCE.md (readOnly/destructive/idempotent/openWorld). */
export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
export const INITIALIZE: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
export const ADDITIVE: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};
/**
 * Runs a declared workload: it may write files and reach the network (when uncontained), so
 * open-world and destructive.
 */
export const EXECUTE: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
};

export interface ToolContext {
  session: WorkspaceSession;
  /** Aborted when the client cancels the request. */
  signal: AbortSignal;
  /** Reports a phase of long work; a no-op unless the client asked for progress. */
  progress(phase: string, done: number, total: number): void;
}

export interface ToolSpec<I, R> {
  name: string;
  title: string;
  description: string;
  annotations: ToolAnnotations;
  input: Type<I>;
  result: Type<R>;
  /**
   * The tool takes `limit` and returns `returned`; a page over the byte budget may be retried
   * smaller.
   */
  pageable?: boolean;
  run(args: I, ctx: ToolContext): Promise<R> | R;
  /** The short text mirror: one or two lines and the key ids, never the whole result. */
  summarize(result: R): string;
}

// biome-ignore lint: tools of different types live in one list
export type AnyTool = ToolSpec<any, any>;

export function defineTool<I, R>(spec: ToolSpec<I, R>): AnyTool {
  return spec as AnyTool;
}
