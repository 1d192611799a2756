/**
 * The control-plane schema, created whole in one transaction. SCHEMA_VERSION is stored
 * in `PRAGMA user_version`; a database carrying any other version is refused, never
 * migrated by guess.
 */
export const CONTROL_SCHEMA_VERSION = 1;

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
  lease_boot_id TEXT
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
`;
