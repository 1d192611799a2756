/**
 * Callgrind's name compression: `(id) name` defines a name the first time, `(id)` refers
 * back to it; a name without an id is used as written. Objects (`ob=`, `cob=`), files
 * (`fl=`, `fi=`, `fe=`, `cfi=`, `cfl=`) and functions (`fn=`, `cfn=`) have separate id
 * spaces. A reference to an id never defined, or an id defined twice with different
 * names, is a malformed file.
 */
import { parseFailed } from "../json-guard.ts";

const DEFINE = /^\((\d+)\)\s*([^]*)$/;
const REFER = /^\((\d+)\)$/;

export class NameTable {
  private readonly byId = new Map<string, string>();

  constructor(
    private readonly format: string,
    private readonly kind: string,
  ) {}

  resolve(value: string, lineNumber: number): string {
    // Most lines refer back to an id: look the text up before any regex (a hot path).
    if (value.charCodeAt(0) === 40 && value.charCodeAt(value.length - 1) === 41) {
      const known = this.byId.get(value.slice(1, -1));
      if (known !== undefined) return known;
    }
    const text = value.trim();
    const ref = REFER.exec(text);
    if (ref) {
      const known = this.byId.get(ref[1]!);
      if (known === undefined)
        throw parseFailed(
          this.format,
          `line ${lineNumber} refers to ${this.kind} (${ref[1]}) before it is defined`,
        );
      return known;
    }
    const def = DEFINE.exec(text);
    if (def) {
      const name = def[2]!.trim();
      const known = this.byId.get(def[1]!);
      if (known !== undefined && known !== name) {
        throw parseFailed(
          this.format,
          `line ${lineNumber} redefines ${this.kind} (${def[1]}) ` +
            `as ${JSON.stringify(name.slice(0, 80))}; it ` +
            `was ${JSON.stringify(known.slice(0, 80))}`,
        );
      }
      this.byId.set(def[1]!, name);
      return name;
    }
    return text;
  }
}
