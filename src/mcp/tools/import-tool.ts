/**
 * import_artifact: copies one file into the content-addressed store as a new run and
 * extracts its evidence. Fenced (project root or system temp dir, no symbolic links, no
 * `.diagnostics/`), reports progress, and honours cancellation: a cancelled request stops
 * the parse worker and the run is recorded as cancelled.
 */
import { ImportArtifactInput } from "../schemas/inputs.ts";
import { ImportResult } from "../schemas/workspace.ts";
import { ADDITIVE, defineTool } from "../tool.ts";

export const importArtifact = defineTool({
  name: "import_artifact",
  title: "Import artifact",
  description:
    "Imports a profile or trace file (V8 .cpuprofile, Chrome trace JSON) as a new run: the " +
    "bytes are stored content-addressed and " +
    "evidence is extracted into a new corpus generation. path is relative to the project " +
    'root (source_root "project", default) or to ' +
    'the system temp directory (source_root "temp"); symbolic links, FIFOs and paths outside ' +
    "the root are refused. Sends progress " +
    "when asked; cancelling stops extraction and leaves the run recorded as cancelled. The " +
    "result names the next tool to call on this evidence " +
    "(next_tool with next_arguments).",
  annotations: ADDITIVE,
  input: ImportArtifactInput,
  result: ImportResult,
  run: async ({ source_root, ...request }, { session, signal, progress }) =>
    (await session.open()).importFenced({
      ...request,
      sourceRoot: source_root ?? "project",
      signal,
      onProgress: progress,
    }),
  summarize: (r) =>
    [
      `run ${r.run_id}, artifact ${r.artifact_id} (${r.byte_length} ` +
        `bytes${r.deduplicated ? ", already stored" : ""})`,
      `extracted by ${r.extraction.adapter} into ${r.extraction.generation_id}: ${Object.entries(
        r.extraction.tables,
      )
        .map(([t, n]) => `${t}=${n}`)
        .join(" ")}; next ${r.next_tool}`,
    ].join("\n"),
});
