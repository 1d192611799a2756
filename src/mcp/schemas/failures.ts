/** Input and result of analyze_failures. */
import { type } from "arktype";
import { analysisFields } from "./common.ts";

const ref = type("0 < string <= 200").describe("a run id (run_…) or an artifact id (sha256:…, or a unique hex prefix of at least 8 characters)");

export const FailuresInput = type({
  "+": "reject",
  run_or_artifact: ref.or(ref.array().atLeastLength(1).atMostLength(50)).describe("one run or artifact, or up to 50 of them to find flaky tests across runs"),
  "limit?": type("1 <= number.integer <= 1000").describe("clusters per page, 1 to 1000"),
  "cursor?": type("0 < string <= 4096").or("null").describe("the opaque next_cursor of the previous page, or null for the first page"),
});

const subjectRef = type({ type: "'run' | 'artifact'", id: "string" });

export const FailureCluster = type({
  cluster_key: "string", exception_type: "string | null", message_pattern: "string", location: "string | null", count: "number.integer",
  tests: "number.integer", inputs: "number.integer", outcomes: "Record<string, number>", example_node_ids: "string[]", example_message: "string | null",
});

export const FailuresResult = type({
  ...analysisFields,
  items: FailureCluster.array(),
  subjects: subjectRef.array(),
  populations: type({ subject: subjectRef, tests: "number.integer", by_outcome: "Record<string, number>", retried: "number.integer", warnings: "number.integer" }).array(),
  flaky: type({ node_id: "string", outcomes: type({ subject_id: "string", outcome: "string", retried: "boolean" }).array() }).array(),
  flaky_total: "number.integer",
});
