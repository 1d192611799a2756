/** The language of a frame, inferred from its source file's (or module's) extension. */
const LANGUAGES: [RegExp, string][] = [
  [/\.go$/, "go"],
  [/\.(m?js|cjs|ts|tsx|jsx)$/, "javascript"],
  [/\.py$/, "python"],
  [/\.(java|kt|scala)$/, "java"],
  [/\.(rs)$/, "rust"],
  [/\.(c|cc|cpp|cxx|h|hpp)$/, "native"],
];

export function languageOf(file: string | null): string {
  if (file === null) return "native";
  for (const [pattern, language] of LANGUAGES) if (pattern.test(file)) return language;
  return "native";
}
