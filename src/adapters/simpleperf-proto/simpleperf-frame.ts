/**
 * A callchain entry of simpleperf as a frame: the function is the file's symbol (already
 * demangled by simpleperf), the module the file's path. Entries simpleperf could not name
 * (symbol_id -1) become one `[unknown]` frame per file, as perf script prints them. Kernel
 * files are kernel frames; methods ART interpreted or JIT-compiled, and symbols of dex,
 * oat and jar files (AOT-compiled Java), are Java frames.
 */
import type { FrameRecord } from "../common/frame-registry.ts";
import { JVM_EXECUTION_TYPES } from "./schema.ts";

const JAVA_FILE = /\.(jar|apk|dex|odex|oat|vdex)$/;
const JIT_CACHE = /^\[JIT (app|zygote) cache\]$/;

function isKernel(path: string): boolean {
  return path.startsWith("[kernel") || path.endsWith(".ko");
}

export function simpleperfFrame(
  path: string,
  symbol: string | null,
  executionType: number,
): FrameRecord {
  const module = path === "" ? null : path;
  const kernel = isKernel(path);
  const java =
    !kernel &&
    (JVM_EXECUTION_TYPES.has(executionType) || JAVA_FILE.test(path) || JIT_CACHE.test(path));
  const language = kernel ? "kernel" : java ? "java" : "native";
  if (symbol === null || symbol === "")
    return {
      language,
      function: "[unknown]",
      module,
      file: null,
      line: null,
      column: null,
      symbolization: "absent",
    };
  return {
    language,
    function: symbol,
    module,
    file: null,
    line: null,
    column: null,
    symbolization: "complete",
  };
}
