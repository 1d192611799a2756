/** What the `junit-xml` adapter declares, and its detection, without its parser. */
import type { AdapterDescription, DetectInput } from "../adapter.ts";

function detectJunitXml({ head }: DetectInput): number {
  const text = head.replace(/^\uFEFF/, "").trimStart();
  if (!text.startsWith("<")) return 0;
  // The first element after the prolog (declaration, comments, processing instructions, a DOCTYPE
  // to be refused later).
  const root =
    /^(?:<\?[\s\S]*?\?>\s*|<!--[\s\S]*?-->\s*|<!DOCTYPE(?:[^[>]|\[[\s\S]*?\])*>\s*)*<([A-Za-z_][\w.:-]*)/.exec(
      text,
    )?.[1];
  return root === "testsuites" || root === "testsuite" ? 0.9 : 0;
}

export const junitXmlDescription: AdapterDescription = {
  name: "junit-xml",
  version: "1.0.0",
  tables: ["test_results"],
  artifactKind: "test_report",
  mediaType: "application/xml",
  detect: detectJunitXml,
};
