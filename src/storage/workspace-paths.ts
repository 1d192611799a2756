/**
 * Where everything of a workspace lives on disk. One place names every path so that no
 * other module builds `.diagnostics/...` strings by hand.
 */
import { join } from "node:path";

export const DIAGNOSTICS_DIR = ".diagnostics";

export interface WorkspacePaths {
  projectRoot: string;
  diagnostics: string;
  workspaceJson: string;
  configToml: string;
  controlDb: string;
  artifacts: string;
  evidence: string;
  generations: string;
  corpus: string;
  commits: string;
  head: string;
  staging: string;
  quarantine: string;
  trash: string;
}

/** `diagnostics` may be overridden to lay out a workspace in a temporary directory first. */
export function workspacePaths(
  projectRoot: string,
  diagnostics = join(projectRoot, DIAGNOSTICS_DIR),
): WorkspacePaths {
  const corpus = join(diagnostics, "corpus");
  return {
    projectRoot,
    diagnostics,
    workspaceJson: join(diagnostics, "workspace.json"),
    configToml: join(diagnostics, "config.toml"),
    controlDb: join(diagnostics, "control.sqlite"),
    artifacts: join(diagnostics, "artifacts"),
    evidence: join(diagnostics, "evidence"),
    generations: join(diagnostics, "generations"),
    corpus,
    commits: join(corpus, "commits"),
    head: join(corpus, "HEAD"),
    staging: join(diagnostics, "staging"),
    quarantine: join(diagnostics, "quarantine"),
    trash: join(diagnostics, "trash"),
  };
}

/** Path of an artifact payload in the content-addressed store: artifacts/sha256/ab/<hex>. */
export function artifactPayloadPath(paths: WorkspacePaths, sha256Hex: string): string {
  return join(paths.artifacts, "sha256", sha256Hex.slice(0, 2), sha256Hex);
}

export function evidencePartPath(
  paths: WorkspacePaths,
  table: string,
  generationId: string,
  part = 0,
): string {
  return join(paths.evidence, table, generationId, `part-${part}.parquet`);
}

export function generationManifestPath(paths: WorkspacePaths, generationId: string): string {
  return join(paths.generations, `${generationId}.json`);
}

export function commitPath(paths: WorkspacePaths, commitId: string): string {
  return join(paths.commits, `${commitId.replace(/^sha256:/, "")}.json`);
}
