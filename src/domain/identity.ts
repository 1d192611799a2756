/**
 * Source and environment identity of a run. Each has a content-addressed id over its
 * fields; missing fields are listed, never guessed, and `identity_quality` says whether
 * the id is exact or partial (partial identities cannot support confirmatory claims).
 */
export interface SourceIdentity {
  source_state_id: string;
  identity_quality: "clean" | "exact" | "partial";
  repository: "git" | null;
  head_commit: string | null;
  /** sha256 of `git diff --binary HEAD` (tracked changes), null when unavailable. */
  diff_digest: string | null;
  diff_bytes: number | null;
  untracked_files: number | null;
  untracked_digest: string | null;
  missing_fields: string[];
  reasons: string[];
}

export interface EnvironmentIdentity {
  environment_id: string;
  identity_quality: "exact" | "partial";
  fields: {
    os: string;
    os_release: string | null;
    kernel: string | null;
    arch: string;
    cpu_model: string | null;
    cpu_count: number;
    memory_bytes: number;
    runtimes: Record<string, string>;
  };
  missing_fields: string[];
}
