/**
 * A run set: a frozen, named membership of runs pinned to one corpus commit, the unit a
 * comparison's baseline and candidate are made of. Membership never changes after
 * freezing; excluded members stay listed with their reason, so nothing drops out silently.
 */
export interface RunSetMember {
  run_id: string;
  trial_id: string | null;
  /** Block of a randomized design; members of two run sets pair on it. */
  block_id: string | null;
  included: boolean;
  reason: string | null;
}

export interface RunSetRecord {
  schema_version: 1;
  run_set_id: string;
  corpus_commit_id: string;
  created_at: string;
  selection: Record<string, unknown>;
  members: RunSetMember[];
  /** Canonical digest of `members`: two run sets with equal digests have identical membership. */
  membership_digest: string;
}
