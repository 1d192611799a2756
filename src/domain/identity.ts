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
  /**
   * Digest of the tracked paths whose working-tree bytes or mode differ from HEAD (both sides
   * listed), null when unavailable.
   */
  diff_digest: string | null;
  /** Bytes of the changed tracked files as they are in the working tree. */
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
