/**
 * Result of analyze_failures (its input is the failures request,
 * application/requests/recipe-requests.ts).
 */
import { type } from "arktype";
import { analysisFields } from "./common.ts";

const subjectRef = type({ type: "'run' | 'artifact'", id: "string" });

export const FailureCluster = type({
  cluster_key: "string",
  exception_type: "string | null",
  message_pattern: "string",
  location: "string | null",
  count: "number.integer",
  tests: "number.integer",
  inputs: "number.integer",
  outcomes: "Record<string, number>",
  example_node_ids: "string[]",
  example_message: "string | null",
});

export const FailuresResult = type({
  ...analysisFields,
  items: FailureCluster.array(),
  subjects: subjectRef.array(),
  populations: type({
    subject: subjectRef,
    tests: "number.integer",
    by_outcome: "Record<string, number>",
    retried: "number.integer",
    warnings: "number.integer",
  }).array(),
  flaky: type({
    node_id: "string",
    outcomes: type({ subject_id: "string", outcome: "string", retried: "boolean" }).array(),
  }).array(),
  flaky_total: "number.integer",
});
