/**
 * The control-plane schema, created whole in one transaction. SCHEMA_VERSION is stored
 * in `PRAGMA user_version`. A database of an older version is brought forward by the
 * explicit MIGRATIONS below, each in one transaction; any other version is refused,
 * never migrated by guess.
 */
export const CONTROL_SCHEMA_VERSION = 4;

/**
 * Workload approvals: a person approved one exact canonical digest of one named
 * workload on the CLI. Rows are never rewritten except to mark them revoked.
 */
const WORKLOAD_APPROVALS_SQL = `
CREATE TABLE workload_approvals (
  approval_id TEXT PRIMARY KEY,
  workload TEXT NOT NULL,
  workload_definition_id TEXT NOT NULL,
  canonical_json TEXT NOT NULL,
  approved_at TEXT NOT NULL,
  approved_by TEXT NOT NULL,
  approved_uid INTEGER,
  revoked_at TEXT,
  revoked_by TEXT
);
CREATE INDEX workload_approvals_by_workload ON workload_approvals(workload, approved_at);
`;

/**
 * The HEAD log: every corpus HEAD this control plane published, in order, so a HEAD
 * rolled back to an older commit is detected (see head-log.ts).
 */
const CORPUS_HEAD_LOG_SQL = `
CREATE TABLE corpus_head_log (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  commit_id TEXT NOT NULL,
  parent_commit_id TEXT,
  recorded_at TEXT NOT NULL
);
CREATE INDEX corpus_head_log_by_commit ON corpus_head_log(commit_id);
`;

/** The oldest version a database can be brought forward from. */
export const BASE_CONTROL_SCHEMA_VERSION = 2;

/** SQL that takes a database from version N (the key) to N + 1. */
export const CONTROL_MIGRATIONS: Record<number, string> = {
  // v3: approvals; configure_workload's source names the MCP client for what it is.
  2: `${WORKLOAD_APPROVALS_SQL}
UPDATE configuration_changes SET source = 'mcp_client' WHERE source = 'agent';`,
  // v4: the HEAD log.
  3: CORPUS_HEAD_LOG_SQL,
};

export const CONTROL_SCHEMA_SQL = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE runs (
  run_id TEXT PRIMARY KEY,
  run_type TEXT NOT NULL CHECK (run_type IN ('import', 'execution')),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  revision INTEGER NOT NULL,
  execution_status TEXT NOT NULL,
  capture_status TEXT NOT NULL,
  extraction_status TEXT NOT NULL,
  validation_status TEXT NOT NULL,
  limitations_json TEXT NOT NULL DEFAULT '[]',
  error_json TEXT,
  lease_pid INTEGER,
  lease_boot_id TEXT,
  -- The lease names one process: boot id + pid + start time (clock ticks since boot).
  lease_start_time TEXT,
  -- Execution runs: what ran and under which identities (JSON documents, no storage paths).
  workload_definition_id TEXT,
  workload_instance_id TEXT,
  source_state_id TEXT,
  environment_id TEXT,
  workload_json TEXT,
  execution_json TEXT,
  source_identity_json TEXT,
  environment_identity_json TEXT
);
CREATE INDEX runs_by_workload ON runs(workload_definition_id);
-- Provenance of flameox.toml edits made through flameox: source 'mcp_client' (a proposal
-- from configure_workload) or 'cli'.
CREATE TABLE configuration_changes (
  change_id TEXT PRIMARY KEY,
  recorded_at TEXT NOT NULL,
  source TEXT NOT NULL,
  operation TEXT NOT NULL,
  workload TEXT NOT NULL,
  previous_configuration_id TEXT,
  configuration_id TEXT NOT NULL,
  workload_definition_id TEXT NOT NULL
);
CREATE TABLE run_revisions (
  run_id TEXT NOT NULL REFERENCES runs(run_id),
  revision INTEGER NOT NULL,
  recorded_at TEXT NOT NULL,
  state_json TEXT NOT NULL,
  PRIMARY KEY (run_id, revision)
);
CREATE TABLE artifacts (
  artifact_id TEXT PRIMARY KEY,
  byte_length INTEGER NOT NULL,
  created_at TEXT NOT NULL
);
CREATE TABLE registrations (
  registration_id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(run_id),
  artifact_id TEXT NOT NULL REFERENCES artifacts(artifact_id),
  display_name TEXT NOT NULL,
  kind TEXT NOT NULL,
  media_type TEXT NOT NULL,
  role TEXT NOT NULL,
  producer TEXT,
  producer_version TEXT,
  sensitivity TEXT NOT NULL CHECK (sensitivity IN ('normal', 'internal', 'sensitive')),
  registered_at TEXT NOT NULL
);
CREATE INDEX registrations_by_artifact ON registrations(artifact_id);
CREATE INDEX registrations_by_run ON registrations(run_id);
CREATE TABLE extractions (
  extraction_id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES runs(run_id),
  artifact_id TEXT NOT NULL REFERENCES artifacts(artifact_id),
  adapter TEXT,
  adapter_version TEXT,
  status TEXT NOT NULL,
  generation_id TEXT,
  limitations_json TEXT NOT NULL DEFAULT '[]',
  summary_json TEXT NOT NULL DEFAULT '{}',
  error_json TEXT,
  started_at TEXT NOT NULL,
  finished_at TEXT
);
CREATE TABLE quarantine (
  quarantine_id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL,
  artifact_id TEXT NOT NULL,
  adapter TEXT,
  code TEXT NOT NULL,
  message TEXT NOT NULL,
  created_at TEXT NOT NULL
);
-- Derived catalog of the corpus: rebuildable from corpus/ files at any time.
CREATE TABLE catalog_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE catalog_generations (
  generation_id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL,
  artifact_id TEXT NOT NULL,
  adapter TEXT NOT NULL,
  manifest_sha256 TEXT NOT NULL,
  tables_json TEXT NOT NULL,
  committed_in TEXT NOT NULL
);
CREATE INDEX catalog_generations_by_artifact ON catalog_generations(artifact_id);
CREATE INDEX catalog_generations_by_run ON catalog_generations(run_id);
-- Experiments and comparisons. Immutable records keep their whole JSON; the
-- columns beside it are what lookups, listings and retention need.
CREATE TABLE run_sets (
  run_set_id TEXT PRIMARY KEY,
  corpus_commit_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  membership_digest TEXT NOT NULL,
  record_json TEXT NOT NULL
);
CREATE TABLE comparisons (
  comparison_id TEXT PRIMARY KEY,
  experiment_id TEXT,
  baseline_run_set_id TEXT NOT NULL REFERENCES run_sets(run_set_id),
  candidate_run_set_id TEXT NOT NULL REFERENCES run_sets(run_set_id),
  corpus_commit_id TEXT NOT NULL,
  decision TEXT NOT NULL,
  validity TEXT NOT NULL,
  parameters_digest TEXT NOT NULL,
  result_digest TEXT NOT NULL,
  created_at TEXT NOT NULL,
  record_json TEXT NOT NULL
);
CREATE TABLE experiments (
  experiment_id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  investigation_id TEXT,
  hypothesis_id TEXT,
  experiment_design_id TEXT NOT NULL,
  status TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  protocol_json TEXT NOT NULL,
  outcome_json TEXT
);
CREATE TABLE trials (
  trial_id TEXT PRIMARY KEY,
  experiment_id TEXT NOT NULL REFERENCES experiments(experiment_id),
  cell_index INTEGER NOT NULL,
  block_index INTEGER NOT NULL,
  order_in_block INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  variant TEXT NOT NULL,
  outcome TEXT NOT NULL,
  run_id TEXT,
  updated_at TEXT NOT NULL,
  record_json TEXT NOT NULL,
  UNIQUE (experiment_id, cell_index, attempt)
);
CREATE INDEX trials_by_experiment ON trials(experiment_id, cell_index, attempt);
CREATE TABLE investigations (
  investigation_id TEXT PRIMARY KEY,
  created_at TEXT NOT NULL,
  status TEXT NOT NULL,
  record_json TEXT NOT NULL
);
CREATE TABLE hypotheses (
  hypothesis_id TEXT NOT NULL,
  revision INTEGER NOT NULL,
  investigation_id TEXT NOT NULL REFERENCES investigations(investigation_id),
  created_at TEXT NOT NULL,
  record_json TEXT NOT NULL,
  PRIMARY KEY (hypothesis_id, revision)
);
CREATE TABLE findings (
  finding_id TEXT NOT NULL,
  revision INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  assessment TEXT NOT NULL,
  record_json TEXT NOT NULL,
  PRIMARY KEY (finding_id, revision)
);
CREATE TABLE analyses (
  analysis_id TEXT PRIMARY KEY,
  recipe TEXT NOT NULL,
  corpus_commit_id TEXT NOT NULL,
  parameters_digest TEXT NOT NULL,
  result_digest TEXT NOT NULL,
  created_at TEXT NOT NULL,
  record_json TEXT NOT NULL
);
CREATE TABLE evidence_refs (
  owner_type TEXT NOT NULL CHECK (owner_type IN ('analysis', 'finding', 'hypothesis')),
  owner_id TEXT NOT NULL,
  owner_revision INTEGER NOT NULL DEFAULT 0,
  ref_type TEXT NOT NULL,
  ref_id TEXT NOT NULL,
  relation TEXT NOT NULL CHECK (relation IN ('supports', 'contradicts', 'context', 'validates'))
);
CREATE INDEX evidence_refs_by_owner ON evidence_refs(owner_type, owner_id);
${WORKLOAD_APPROVALS_SQL}
${CORPUS_HEAD_LOG_SQL}`;
