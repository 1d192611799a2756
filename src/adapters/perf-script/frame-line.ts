/**
 * One callchain line of `perf script`: `ip sym+off (dso)`, where `+off`, ` (dso)` and
 * even the symbol depend on `-F`. Frames are named as perf resolved them, with the
 * offset removed so one function is one frame (as stackcollapse-perf.pl does). Kernel
 * frames, JIT frames from a `/tmp/perf-PID.map` (V8's `--perf-basic-prof` names such as
 * `JS:*fib /app/work.js:1:13` or `LazyCompile:~body app.js:39` become JavaScript frames
 * with their file, line and column; the tier marker is dropped so one function is one
 * frame whichever tier ran it), inlined frames and `[unknown]` ones are told apart.
 */
import type { FrameRecord } from "../common/frame-registry.ts";

export type FrameKind = "native" | "kernel" | "jit" | "inlined" | "unknown";

export interface PerfFrame {
  record: FrameRecord;
  kind: FrameKind;
}

/**
 * Address, then whitespace, then something; greedy to the last non-space, so no backtracking per
 * line.
 */
const FRAME = /^\s*([0-9a-fA-F]+)\s+(.*\S)\s*$/;
/** The dso in parentheses at the end; one level of nested parentheses (`(/lib/x.so (deleted))`). */
const DSO = /^(.*?)\s*\(((?:[^()]|\([^()]*\))*)\)$/;
const OFFSET = /\+0x[0-9a-fA-F]+$/;
/**
 * simpleperf's name for an address without a symbol: the file's base name and the offset,
 * `libc.so[+1f2c]`.
 */
const SIMPLEPERF_UNNAMED = /^(.+)\[\+[0-9a-fA-F]+\]$/;
const JIT_MAP = /(^|\/)perf-\d+\.map$/;
const V8_NAME =
  /^(?:JS|LazyCompile|Function|Script|Eval|InterpretedFunction|Builtin|BytecodeHandler|Handler|Stub|RegExp|Code):?\s*([~^+*]?)(.*)$/;
const JS_LOCATION = /^(?:(.*?)\s+)?(\S+?):(\d+)(?::(\d+))?$/;
/**
 * JIT frames are not named after the map file: its name holds the pid, which differs in every run.
 */
const JIT_MODULE = "[jit]";

/** True when the line is a callchain entry (address first). */
export function isFrameLine(line: string): boolean {
  return FRAME.test(line);
}

/** The frame's raw text without its address, the key under which it is interned. */
export function frameKeyOf(line: string): string | null {
  const m = FRAME.exec(line);
  return m ? m[2]! : null;
}

export function parsePerfFrame(text: string): PerfFrame {
  const withDso = DSO.exec(text);
  const rawSymbol = (withDso ? withDso[1]! : text).replace(OFFSET, "");
  const dso = withDso ? withDso[2]! : null;
  const module = dso === null || dso === "" || dso === "[unknown]" ? null : dso;
  const symbol =
    rawSymbol === "" || isSimpleperfUnnamed(rawSymbol, module) ? "[unknown]" : rawSymbol;
  if (dso === "inlined")
    return { kind: "inlined", record: frame("native", symbol, null, "complete") };
  if (symbol === "[unknown]") {
    const kind: FrameKind =
      module !== null && JIT_MAP.test(module)
        ? "jit"
        : module !== null && isKernel(module)
          ? "kernel"
          : "unknown";
    return {
      kind,
      record: frame(
        kind === "kernel" ? "kernel" : kind === "jit" ? "jit" : "native",
        "[unknown]",
        kind === "jit" ? JIT_MODULE : module,
        "absent",
      ),
    };
  }
  if (module !== null && isKernel(module))
    return { kind: "kernel", record: frame("kernel", symbol, module, "complete") };
  if (module !== null && JIT_MAP.test(module)) return { kind: "jit", record: jitFrame(symbol) };
  return { kind: "native", record: frame("native", symbol, module, "complete") };
}

/** One `[unknown]` frame per file, as perf prints it, rather than one per address. */
function isSimpleperfUnnamed(symbol: string, module: string | null): boolean {
  const m = SIMPLEPERF_UNNAMED.exec(symbol);
  return m !== null && module !== null && (module === m[1] || module.endsWith(`/${m[1]}`));
}

function isKernel(module: string): boolean {
  return (
    module.startsWith("[kernel") ||
    module === "[vdso]" ||
    module.endsWith(".ko") ||
    module === "[bpf_prog]"
  );
}

function frame(
  language: string,
  fn: string,
  module: string | null,
  symbolization: FrameRecord["symbolization"],
): FrameRecord {
  return { language, function: fn, module, file: null, line: null, column: null, symbolization };
}

/**
 * A JIT frame: V8's names carry the script location; other runtimes' names are kept as they are.
 */
function jitFrame(symbol: string): FrameRecord {
  const v8 = V8_NAME.exec(symbol);
  if (!v8) return frame("jit", symbol, JIT_MODULE, "complete");
  const body = v8[2]!.trim();
  const at = JS_LOCATION.exec(body);
  if (!at)
    return {
      language: "javascript",
      function: body === "" ? "(anonymous)" : body,
      module: null,
      file: null,
      line: null,
      column: null,
      symbolization: body === "" ? "partial" : "complete",
    };
  const name = (at[1] ?? "").trim();
  return {
    language: "javascript",
    function: name === "" ? "(anonymous)" : name,
    module: null,
    file: at[2]!,
    line: Number(at[3]),
    column: at[4] === undefined ? null : Number(at[4]),
    symbolization: name === "" ? "partial" : "complete",
  };
}
