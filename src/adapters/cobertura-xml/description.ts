/** What the `cobertura-xml` adapter declares, and its detection, without its parser. */
import type { AdapterDescription, DetectInput } from "../adapter.ts";

function detectCoberturaXml({ head }: DetectInput): number {
  const text = head.replace(/^\uFEFF/, "").trimStart();
  if (!text.startsWith("<")) return 0;
  const m =
    /^(?:<\?[\s\S]*?\?>\s*|<!--[\s\S]*?-->\s*|<!DOCTYPE(?:[^[>]|\[[\s\S]*?\])*>\s*)*<coverage\b([^>]*)>/.exec(
      text,
    );
  return m && /\bline-rate\s*=/.test(m[1]!) ? 0.9 : 0;
}

export const coberturaXmlDescription: AdapterDescription = {
  name: "cobertura-xml",
  version: "1.0.0",
  tables: ["coverage_lines"],
  artifactKind: "execution_coverage",
  mediaType: "application/xml",
  detect: detectCoberturaXml,
};
