/**
 * Cobertura XML coverage reports (`coverage xml`, and the Java, .NET and JavaScript tools
 * that write the same DTD): `<coverage>` → packages → classes, each class naming its file
 * and listing its statements as `<line number hits branch condition-coverage>`, and its
 * methods with their own lines. Each class line becomes a `coverage_lines` row (executed
 * when hits > 0, with the hit count and the branch conditions covered / total), named
 * with its method where one lists it. File names are kept as written, relative to the
 * report's `<source>` roots (listed in the summary).
 *
 * Parsed by saxes, streaming and non-validating. A DOCTYPE naming the Cobertura DTD is
 * allowed (tools write one; it is never fetched) but an internal subset, where entities
 * would be declared, is refused: saxes expands only XML's predefined entities.
 */
import type { SaxesTagPlain } from "saxes";
import type { ExtractInput, ProducerAdapter } from "../adapter.ts";
import { emptyTables, type NormalizedEvidence } from "../../domain/normalized-evidence.ts";
import type { Limitation } from "../../domain/evidence-status.ts";
import { FlameoxError } from "../../domain/errors.ts";
import { CoverageLineWriter } from "../coverage-lines/row-writer.ts";
import { newXmlParser } from "../common/xml-parser.ts";
import { decodeUtf8Document, parseFailed } from "../json-guard.ts";
import { coberturaXmlDescription } from "./description.ts";

const NAME = coberturaXmlDescription.name;
const VERSION = coberturaXmlDescription.version;
const LABEL = "Cobertura XML";
const CHUNK_CHARS = 64 * 1024;
const MAX_DEPTH = 64;
const MAX_SOURCES = 100;

/** "50% (1/2)" → [1, 2]. */
function conditions(value: string | undefined): [number, number] | null {
  const m = value === undefined ? null : /\((\d+)\/(\d+)\)/.exec(value);
  return m ? [Number(m[1]), Number(m[2])] : null;
}

interface ClassLine {
  line: number;
  hits: number | null;
  conditions: [number, number] | null;
}

export function extractCoberturaXml(input: ExtractInput): NormalizedEvidence {
  const text = decodeUtf8Document(input.bytes, LABEL);
  const tables = emptyTables();
  const out = new CoverageLineWriter(tables.coverage_lines, LABEL, input.limits.maxEvents);
  const limitations: Limitation[] = [];
  const parser = newXmlParser();
  const stack: string[] = [];
  const sources: string[] = [];
  let sourceText: string | null = null;
  let root: Record<string, string> | null = null;
  let file: string | null = null;
  let method: string | null = null;
  let classLines: ClassLine[] = [];
  const methodOf = new Map<number, string>();
  let classes = 0;

  parser.on("doctype", (doctype: string) => {
    if (doctype.includes("[")) {
      throw new FlameoxError(
        "ARTIFACT_PARSE_FAILED",
        `Cannot parse ${LABEL}: the DOCTYPE has an internal subset (entity declarations are ` +
          `refused)`,
        {
          remediation: [
            "Cobertura reports need no entity declarations; re-export the report from the " +
              "coverage tool",
          ],
          details: { refused: "doctype_internal_subset" },
        },
      );
    }
  });
  parser.on("error", (e) => {
    throw parseFailed(LABEL, e.message, e);
  });
  parser.on("text", (t) => {
    if (sourceText !== null && sourceText.length < 4096) sourceText += t;
  });
  parser.on("opentag", (tag: SaxesTagPlain) => {
    const a = tag.attributes;
    stack.push(tag.name);
    if (stack.length > MAX_DEPTH)
      throw parseFailed(LABEL, `elements are nested deeper than ${MAX_DEPTH}`);
    if (root === null) {
      if (tag.name !== "coverage")
        throw parseFailed(LABEL, `expected the root element to be coverage but found ${tag.name}`);
      root = { ...a };
    } else if (tag.name === "source" && stack.at(-2) === "sources") {
      sourceText = "";
    } else if (tag.name === "class") {
      if (a.filename === undefined) throw parseFailed(LABEL, "a class has no filename attribute");
      file = a.filename;
      classes += 1;
    } else if (tag.name === "method" && file !== null) {
      method = a.name ?? null;
    } else if (tag.name === "line" && file !== null) {
      const line = Number(a.number);
      if (!Number.isInteger(line))
        throw parseFailed(LABEL, `a line of ${file} has number ${JSON.stringify(a.number)}`);
      const hits = a.hits !== undefined && /^\d+$/.test(a.hits) ? Number(a.hits) : null;
      if (method !== null) {
        if (method !== "" && !methodOf.has(line)) methodOf.set(line, method);
      } else {
        classLines.push({
          line,
          hits,
          conditions: a.branch === "true" ? conditions(a["condition-coverage"]) : null,
        });
      }
    }
  });
  parser.on("closetag", (tag: SaxesTagPlain) => {
    stack.pop();
    if (tag.name === "source" && sourceText !== null) {
      if (sources.length < MAX_SOURCES) sources.push(sourceText.trim());
      sourceText = null;
    } else if (tag.name === "method") {
      method = null;
    } else if (tag.name === "class" && file !== null) {
      for (const l of classLines) {
        out.add({
          file,
          kind: "line",
          line: l.line,
          executed: (l.hits ?? 0) > 0,
          hits: l.hits,
          function: methodOf.get(l.line) ?? null,
          branches_covered: l.conditions?.[0] ?? null,
          branches_total: l.conditions?.[1] ?? null,
        });
      }
      file = null;
      classLines = [];
      methodOf.clear();
    }
  });
  const failure = (e: unknown) =>
    e instanceof FlameoxError
      ? e
      : parseFailed(LABEL, e instanceof Error ? e.message : String(e), e);
  try {
    for (let i = 0; i < text.length; i += CHUNK_CHARS) parser.write(text.slice(i, i + CHUNK_CHARS));
    parser.close();
  } catch (e) {
    throw failure(e);
  }
  if (root === null) throw parseFailed(LABEL, "the document has no root element");
  const r = root as Record<string, string>;
  const int = (v: string | undefined) => (v !== undefined && /^\d+$/.test(v) ? Number(v) : null);
  if (out.rows > 0 && !out.files.size)
    limitations.push({ code: "no_files", message: "No class names a file" });
  return {
    adapter: NAME,
    adapterVersion: VERSION,
    producer: r.version ? "cobertura-compatible" : null,
    producerVersion: r.version ?? null,
    tables,
    limitations,
    summary: {
      classes,
      files: out.files.size,
      coverage_lines: out.rows,
      sources: JSON.stringify(sources).slice(0, 4096),
      lines_valid: int(r["lines-valid"]),
      lines_covered: int(r["lines-covered"]),
    },
  };
}

export const coberturaXmlAdapter: ProducerAdapter = {
  ...coberturaXmlDescription,
  extract: extractCoberturaXml,
};
