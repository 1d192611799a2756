/**
 * speedscope's shared frames → flameox frames, interned once per index. speedscope names
 * no language, so it is inferred from the file's extension (py-spy writes `.py` files,
 * importers of JavaScript profiles `.js`); frames without a file are `native`.
 */
import type { FrameRegistry } from "../common/frame-registry.ts";

/** One entry of `shared.frames`, as checked: name, then file, line and column where given. */
export interface SpeedscopeFrame {
  name: string;
  file: string | null;
  line: number | null;
  col: number | null;
}

const LANGUAGES: [RegExp, string][] = [
  [/\.py[cw]?$/, "python"],
  [/\.(m?js|cjs|ts|tsx|jsx)$/, "javascript"],
  [/\.go$/, "go"],
  [/\.rs$/, "rust"],
  [/\.(java|kt|scala)$/, "java"],
  [/\.rb$/, "ruby"],
  [/\.php$/, "php"],
  [/\.(c|cc|cpp|cxx|h|hpp|m|mm)$/, "native"],
];

export function languageOfFile(file: string | null): string {
  if (file === null) return "native";
  for (const [pattern, language] of LANGUAGES) if (pattern.test(file)) return language;
  return "native";
}

/** Frame registry index of every shared frame, by speedscope frame index. */
export function internFrames(
  frames: readonly SpeedscopeFrame[],
  registry: FrameRegistry,
): number[] {
  return frames.map((f) => {
    const language = languageOfFile(f.file);
    const unnamed = f.name === "" || f.name === "[unknown]";
    const record = {
      language,
      function: unnamed ? "[unknown]" : f.name,
      module: null,
      file: f.file,
      line: f.line,
      column: f.col,
      symbolization: unnamed ? (f.file !== null ? "partial" : "absent") : "complete",
    } as const;
    return registry.intern(
      JSON.stringify(["speedscope", language, record.function, f.file, f.line, f.col]),
      record,
    );
  });
}
