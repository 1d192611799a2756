/**
 * Evidence status and claim levels. An empty list is never proof of absence: every
 * analysis result says whether its evidence was available, empty, unavailable, partial
 * or unknown, and why.
 */
export type EvidenceStatusKind = "available" | "empty" | "unavailable" | "partial" | "unknown";

export interface EvidenceStatus {
  status: EvidenceStatusKind;
  reason: string;
  next_tool?: string;
  next_arguments?: Record<string, unknown>;
}

/**
 * observed: a producer emitted it; derived: computed from observed rows; inferred: an
 * interpretation.
 */
export type ClaimLevel = "observed" | "derived" | "inferred";

export interface Limitation {
  /** Stable snake_case code, e.g. `unmatched_begin_events`, `missing_symbols`. */
  code: string;
  message: string;
  /** How many rows or events the limitation touches, when countable. */
  count?: number;
}
