/**
 * pprof locations → frames. A location's lines are innermost first (inlined callees
 * before the function they were inlined into), so a location expands to its lines in
 * reverse, caller first. A location without lines is an unsymbolized address in its
 * mapping.
 */
import type { FrameRegistry, Symbolization } from "../common/frame-registry.ts";
import { languageOf } from "../common/source-language.ts";
import type { PprofFunction, PprofInput, PprofLocation, PprofMapping } from "./pprof-input.ts";

export class PprofFrames {
  private readonly functions = new Map<number, PprofFunction>();
  private readonly mappings = new Map<number, PprofMapping>();
  private readonly locations = new Map<number, PprofLocation>();
  private readonly byLocation = new Map<number, number[] | null>();
  addressOnly = 0;

  constructor(
    private readonly input: PprofInput,
    private readonly frames: FrameRegistry,
  ) {
    for (const f of input.functions) this.functions.set(f.id, f);
    for (const m of input.mappings) this.mappings.set(m.id, m);
    for (const l of input.locations) this.locations.set(l.id, l);
  }

  private str(index: number): string | null {
    const s = this.input.strings[index];
    return s === undefined || s === "" ? null : s;
  }

  /** Frame indexes of a location, caller first; null for an unknown location id. */
  of(locationId: number): number[] | null {
    const known = this.byLocation.get(locationId);
    if (known !== undefined) return known;
    const location = this.locations.get(locationId);
    let frames: number[] | null = null;
    if (location) {
      const module = this.str(this.mappings.get(location.mappingId)?.filename ?? 0);
      frames =
        location.lines.length === 0
          ? [this.addressFrame(location.address, module)]
          : location.lines
              .map((line) => this.lineFrame(line.functionId, line.line, line.column, module))
              .reverse();
    }
    this.byLocation.set(locationId, frames);
    return frames;
  }

  private lineFrame(
    functionId: number,
    line: number,
    column: number,
    module: string | null,
  ): number {
    const fn = this.functions.get(functionId);
    const name = fn ? (this.str(fn.name) ?? this.str(fn.systemName)) : null;
    const file = fn ? this.str(fn.filename) : null;
    const symbolization: Symbolization =
      name !== null ? "complete" : file !== null ? "partial" : "absent";
    const record = {
      language: languageOf(file),
      function: name ?? "(unknown)",
      file,
      module,
      line: line > 0 && line < 2 ** 31 ? line : null,
      column: column > 0 && column < 2 ** 31 ? column : null,
      symbolization,
    };
    return this.frames.intern(
      JSON.stringify([
        "pprof",
        record.language,
        record.function,
        file,
        module,
        record.line,
        record.column,
      ]),
      record,
    );
  }

  /**
   * The root a sample without any stack is kept on: pprof counts such samples in every
   * total (a legacy heap line with nothing after its `@`), so dropping them would make
   * flameox's totals smaller than the profile's.
   */
  noStackFrame(): number {
    return this.frames.intern(JSON.stringify(["pprof-no-stack"]), {
      language: "native",
      function: "(no stack)",
      file: null,
      module: null,
      line: null,
      column: null,
      symbolization: "absent",
    });
  }

  private addressFrame(address: bigint, module: string | null): number {
    this.addressOnly++;
    const name = `0x${address.toString(16)}`;
    return this.frames.intern(JSON.stringify(["pprof-address", name, module]), {
      language: "native",
      function: name,
      file: null,
      module,
      line: null,
      column: null,
      symbolization: "absent",
    });
  }
}
