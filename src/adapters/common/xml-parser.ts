/**
 * The streaming XML parser of the XML formats (JUnit, Cobertura): saxes, non-validating,
 * with positions for error messages. It is loaded at the first XML document, not with the
 * adapter registry: saxes and its character tables are ~30-40 ms of every parse worker's
 * start, and most imports are not XML.
 */
import type * as Saxes from "saxes";

export function newXmlParser(): Saxes.SaxesParser {
  const { SaxesParser } = require("saxes") as typeof Saxes;
  return new SaxesParser({ xmlns: false, position: true });
}
